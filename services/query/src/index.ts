export { buildApp, type QueryDeps } from './app.ts';
export { QueryConfigSchema, type QueryConfig } from './config.ts';
export {
  createResponseCache,
  subscribeInvalidations,
  type Invalidation,
  type ResponseCache,
} from '@cds/response-cache';
export { createMongoRepository, type MongoRepositoryOptions } from './repository/mongo-repository.ts';
export { classifyMongoError } from './repository/mongo-errors.ts';
export type {
  CatalogPageQuery,
  CotPageQuery,
  Page,
  ReadModelRepository,
  SeriesRange,
} from './repository/repository.ts';
export { computeSeries, resample, applyTransform, round6, type SeriesComputation } from './series/compute.ts';
