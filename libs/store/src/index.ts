export { isDatabaseUnavailable, isDuplicateKeyError } from './errors.ts';
export { withDeadline, type OperationDeadline } from './deadline.ts';
export { isFerretDB } from './ferretdb.ts';
export { ensureIndexes } from './indexes.ts';
export { connectStore, createStore, type Store } from './store.ts';
export type {
  ViewedPoint,
  CasWrite,
  CotHistoryQuery,
  CotPageQuery,
  Page,
  ReadModelCollection,
  ReadModelDoc,
  ReadModelReader,
  ReadModelStore,
  SeriesRange,
  SeriesRangeQuery,
  StoreCall,
  SupplyDemandSheetsQuery,
} from './read-models/port.ts';
export { createReadModelStore } from './read-models/store.ts';
export { aliasesCollection, readActiveCollection } from './read-models/aliases.ts';
export { INDEXES } from './read-models/mongodb-adapter.ts';
export {
  claimsCollectionName,
  FERRETDB_COMMANDS_IN_FLIGHT,
  FERRETDB_UPDATES_PER_COMMAND,
  type FerretDbOptions,
} from './read-models/ferretdb-adapter.ts';
export {
  packCotBucket,
  packSeriesBucket,
  packSupplyDemandBucket,
  unpackCotBucket,
  unpackReports,
  unpackSeriesBucket,
  type PackedCotBucketDoc,
  type PackedSeriesBucketDoc,
} from './read-models/ferretdb-packing.ts';
export {
  BULK_CHUNK_BYTES,
  BULK_FILES_COLLECTION,
  createBulkFileStore,
  type BulkFileStore,
  type BulkManifest,
} from './bulk-files.ts';
export { seriesRangeFromBuckets, viewPoints, type ViewedSeriesBucket } from './read-models/views.ts';
