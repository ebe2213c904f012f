export { buildApp, ROUTES, type QueryDeps } from './app.ts';
export { QueryConfigSchema, type QueryConfig } from './config.ts';
export { toCachedBody, withRequestId, type CachedBody } from './cache/cached-body.ts';
export {
  createResponseCache,
  LIST_TAG,
  type ResponseCache,
  type ResponseCacheOptions,
  type ResponseCacheStats,
} from './cache/response-cache.ts';
export { subscribeInvalidations, type Invalidation } from './invalidation/projected-events.ts';
export { createMongoRepository, type MongoRepositoryOptions } from './repository/mongo-repository.ts';
export { classifyMongoError } from './repository/mongo-errors.ts';
export type {
  CatalogPageQuery,
  CotPageQuery,
  Page,
  ReadModelRepository,
  SeriesBucket,
} from './repository/repository.ts';
export { computeSeries, resample, applyTransform, round6, type SeriesComputation } from './series/compute.ts';
