export {
  SYNC_BUCKET,
  SyncCursor,
  SourceSyncStatus,
  createKvSyncStore,
  createMemorySyncStore,
  cursorKey,
  type SyncStore,
} from './state.ts';
export { runSync, type SyncOptions, type SourceSyncResult, type SeriesOutcome } from './run-sync.ts';
export { SYNC_SOURCES, type SyncSource } from '../sources/common/sync/task.ts';
