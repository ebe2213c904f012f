export {
  cachedBodyFromUpstream,
  serializeBody,
  withRequestId,
  type CachedBody,
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
export { sendCachedBody } from './send.ts';
export {
  cacheKey,
  cacheRule,
  registerResponseCache,
  type CacheEntry,
  type CacheRule,
  type CachedHandler,
} from './plugin.ts';
export { subscribeInvalidations, type Invalidation } from './invalidation.ts';
