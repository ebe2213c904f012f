export {
  DUPLICATE_KEY,
  isDatabaseUnavailable,
  isDuplicateKeyError,
  mapStoreError,
  StoreUnavailableError,
  writeErrorCodes,
} from './errors.ts';
export { withDeadline, type DeadlineOptions, type OperationDeadline } from './deadline.ts';
export { ensureIndexes, type IndexSpec } from './indexes.ts';
export { connectStore, createStore, type Store, type StoreOptions } from './store.ts';
