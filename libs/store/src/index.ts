export { isDatabaseUnavailable, isDuplicateKeyError, mapStoreError, StoreUnavailableError } from './errors.ts';
export { withDeadline, type OperationDeadline } from './deadline.ts';
export { ensureIndexes } from './indexes.ts';
export { connectStore, createStore, type Store, type StoreOptions } from './store.ts';
export type {
  AdapterName,
  CasResult,
  CasWrite,
  CatalogQuery,
  CotHistoryQuery,
  CotPageQuery,
  Page,
  ReadModelCollection,
  ReadModelDoc,
  ReadModelDocs,
  ReadModelReader,
  ReadModelStore,
  ReadModelWriter,
  SeriesRange,
  SeriesRangeQuery,
  StoreCall,
} from './read-models/port.ts';
export { createReadModelStore, isFerretDB, type ReadModelStoreOptions } from './read-models/store.ts';
export { aliasesCollection, readActiveCollection } from './read-models/aliases.ts';
export type { ReadModelIndex } from './read-models/adapter.ts';
export { INDEXES } from './read-models/mongodb-adapter.ts';
export {
  claimsCollectionName,
  FERRETDB_UPDATES_PER_COMMAND,
  type FerretDbOptions,
  type WriteClaimDoc,
} from './read-models/ferretdb-adapter.ts';
export {
  packCotBucket,
  packSeriesBucket,
  unpackCotBucket,
  unpackReports,
  unpackSeriesBucket,
  type PackedCotBucketDoc,
  type PackedSeriesBucketDoc,
} from './read-models/ferretdb-packing.ts';
