import type { CatalogEntry } from '@cds/contracts';
import type { RejectedItem, SourceItem } from '../sources/types.ts';
import { createBatcher, type Batch, type BatcherOptions } from './batcher.ts';
import { prepareBatchEvent, prepareCatalogEvent, type Prepared } from './events.ts';
import type { Publisher } from './publisher.ts';

export interface IngestProgress {
  recordsRead: number;
  rejected: number;
  eventsPublished: number;
  duplicatesSkipped: number;
  recordsPublished: number;
  buffered: number;
}

export interface IngestSummary extends IngestProgress {
  /** The first `maxRejections` rejections, in input order (the count is in `rejected`). */
  rejections: RejectedItem[];
  /** Records replaced by a later record of the same commodity, series and date in the input. */
  replaced: number;
  catalogEntries: number;
  /** Of the events published / skipped as duplicates, those of catalog entries. */
  catalogPublished: number;
  catalogDuplicates: number;
  elapsedMs: number;
}

export interface IngestOptions {
  items: AsyncIterable<SourceItem> | Iterable<SourceItem>;
  publisher: Publisher;
  /** Published first (CommodityUpserted), and awaited before any data. */
  catalog?: readonly CatalogEntry[];
  /** Envelope `source`. */
  source: string;
  /** Envelope `occurred_at` clock. */
  clock?: () => Date;
  batcher?: BatcherOptions;
  /** Rejections kept in the summary. Default 1000. */
  maxRejections?: number;
  /** Called every `progressEvery` records and at the end. */
  onProgress?: (p: IngestProgress) => void;
  progressEvery?: number;
}

/** A batch's records, what they are and their period, as a rejection names them. */
function describeBatch(batch: Batch): { n: number; what: string; period: string } {
  if (batch.kind === 'series') return { n: batch.points.length, what: batch.series_type, period: batch.period };
  if (batch.kind === 'cot') return { n: batch.reports.length, what: `cot ${batch.format}`, period: batch.period };
  return {
    n: batch.figures.length,
    what: `supply_demand ${batch.region} ${batch.marketing_year}`,
    period: `edition ${batch.edition}`,
  };
}

/**
 * Runs one ingest: publishes the catalog, then batches the source items into events, validates
 * each against its contract and publishes it. A bad row never aborts the run: adapters yield it as
 * a rejection, and a batch whose event fails its schema rejects its records with the reason.
 */
export async function runIngest(opts: IngestOptions): Promise<IngestSummary> {
  const started = Date.now();
  const clock = opts.clock ?? (() => new Date());
  const maxRejections = opts.maxRejections ?? 1_000;
  const progressEvery = opts.progressEvery ?? 10_000;
  const { publisher } = opts;
  const batcher = createBatcher(opts.batcher);
  const rejections: RejectedItem[] = [];
  let recordsRead = 0;
  let rejected = 0;

  const reject = (r: RejectedItem) => {
    rejected++;
    if (rejections.length < maxRejections) rejections.push(r);
  };
  const progress = (): IngestProgress => ({
    recordsRead,
    rejected,
    eventsPublished: publisher.stats.eventsPublished,
    duplicatesSkipped: publisher.stats.duplicatesSkipped,
    recordsPublished: publisher.stats.recordsPublished,
    buffered: batcher.buffered,
  });
  const ctx = () => ({ source: opts.source, occurredAt: clock().toISOString() });

  const send = async (p: Prepared, onInvalid: (reason: string) => void) => {
    if (!p.ok) {
      onInvalid(p.reason);
      return;
    }
    await publisher.publish(p.prepared);
  };
  const sendBatch = (batch: Batch) =>
    send(prepareBatchEvent(batch, ctx()), (reason) => {
      const { n, what, period } = describeBatch(batch);
      for (let i = 0; i < n; i++) {
        reject({
          kind: 'rejected',
          file: opts.source,
          line: 0,
          reason: `${batch.commodity_id} ${what} ${period}: ${reason}`,
        });
      }
    });

  const catalog = opts.catalog ?? [];
  for (const entry of catalog) {
    await send(prepareCatalogEvent(entry, ctx()), (reason) =>
      reject({ kind: 'rejected', file: 'catalog', line: 0, reason: `${entry.id}: ${reason}` }),
    );
  }
  await publisher.flush();
  const catalogPublished = publisher.stats.eventsPublished;
  const catalogDuplicates = publisher.stats.duplicatesSkipped;

  for await (const item of opts.items) {
    recordsRead++;
    if (item.kind === 'rejected') reject(item);
    else for (const batch of batcher.add(item)) await sendBatch(batch);
    if (recordsRead % progressEvery === 0) opts.onProgress?.(progress());
  }
  for (const batch of batcher.drain()) await sendBatch(batch);
  await publisher.flush();
  const final = progress();
  opts.onProgress?.(final);
  return {
    ...final,
    rejections,
    replaced: batcher.replaced,
    catalogEntries: catalog.length,
    catalogPublished,
    catalogDuplicates,
    elapsedMs: Date.now() - started,
  };
}
