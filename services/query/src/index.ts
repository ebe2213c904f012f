export { buildApp, ROUTES, type QueryDeps } from './app.ts';
export { QueryConfigSchema, type QueryConfig } from './config.ts';
export { toCachedBody, withRequestId, type CachedBody } from '@cds/response-cache';
export {
  createResponseCache,
  LIST_TAG,
  type ResponseCache,
  type ResponseCacheOptions,
  type ResponseCacheStats,
} from '@cds/response-cache';
export { subscribeInvalidations, type Invalidation } from '@cds/response-cache';
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
