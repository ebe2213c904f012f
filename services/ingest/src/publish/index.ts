export {
  createBatcher,
  DEFAULT_BATCH_BUDGET,
  type Batch,
  type Batcher,
  type BatcherOptions,
  type CotBatch,
  type SeriesBatch,
} from './batcher.ts';
export {
  prepareBatchEvent,
  prepareCatalogEvent,
  type EventContext,
  type Prepared,
  type PreparedEvent,
} from './events.ts';
export { createKvLedger, createMemoryLedger, ledgerKey, LEDGER_BUCKET, type Ledger } from './ledger.ts';
export { runIngest, type IngestOptions, type IngestProgress, type IngestSummary } from './pipeline.ts';
export {
  createPublisher,
  PublishFailedError,
  type Publisher,
  type PublisherOptions,
  type PublisherStats,
} from './publisher.ts';
export { ensureEventStreams, type StreamSettings } from './streams.ts';
