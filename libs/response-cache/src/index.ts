export {
  cachedBodyFromUpstream,
  serializeBody,
  withRequestId,
  type CachedBody,
  type Freshness,
  type ResponseBody,
} from './cached-body.ts';
export {
  createResponseCache,
  forwardedKey,
  LIST_TAG,
  type CacheTags,
  type ResponseCache,
  type ResponseCacheOptions,
  type ResponseCacheStats,
} from './response-cache.ts';
export { isConditional, notModified, sendCachedBody, sendNotModified, type CsvForm } from './send.ts';
export {
  cacheKey,
  cacheRule,
  createNegotiator,
  JSON_OR_CSV,
  registerResponseCache,
  type CacheEntry,
  type CacheRule,
  type CachedHandler,
  type ResponseCacheOptions as ResponseCachePluginOptions,
} from './plugin.ts';
export { subscribeInvalidations, type Invalidation } from './invalidation.ts';
