export {
  cachedBodyFromUpstream,
  cachedCsvFromUpstream,
  serializeBody,
  serializeCsv,
  withRequestId,
  type BodySerializer,
  type SerializedBytes,
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
export { isConditional, notModified, writeCachedBody, type CsvForm } from './send.ts';
export {
  cacheKey,
  cacheRule,
  CSV_KEY,
  CSV_KEEP_MAX_BYTES,
  createNegotiator,
  JSON_OR_CSV,
  registerResponseCache,
  type CacheEntry,
  type CacheRule,
  type CachedHandler,
  type ResponseCacheOptions as ResponseCachePluginOptions,
} from './plugin.ts';
export { subscribeInvalidations, type Invalidation } from './invalidation.ts';
