export { fromServedBody, toCachedBody, withRequestId, type CachedBody } from './cached-body.ts';
export {
  createResponseCache,
  LIST_TAG,
  type CacheEntryOptions,
  type ResponseCache,
  type ResponseCacheOptions,
  type ResponseCacheStats,
} from './response-cache.ts';
export { subscribeInvalidations, type Invalidation } from './invalidation.ts';
