import type { CatalogEntry } from '@cds/contracts';
import { localParts } from '@cds/schedule';
import type { CatalogIndex } from '../catalog/index.ts';
import { CATALOG } from '../sources/registry.ts';
import type { BatcherOptions } from '../publish/batcher.ts';
import { runIngest, type IngestSummary } from '../publish/pipeline.ts';
import type { Publisher } from '../publish/publisher.ts';
import { createHttpClient, type HttpClientOptions } from '../sources/common/http.ts';
import { createParseStats, type ParseStats } from '../sources/common/stats.ts';
import type { SourceItem } from '../sources/types.ts';
import { filterAgainstCursor } from './cursor.ts';
import type { SourceSyncStatus, SyncCursor, SyncStore } from './state.ts';
import { seriesTasks, syncPartOf } from '../sources/registry.ts';
import type { SyncKeys, SyncSource, TaskContext } from '../sources/common/sync/task.ts';

export interface SyncSettings extends SyncKeys {
  /** Source API addresses (default: the official ones). */
  baseUrls?: Partial<Record<SyncSource, string>>;
}

export interface SyncOptions extends SyncSettings {
  sources: readonly SyncSource[];
  /** A fresh publisher per source, so each source's summary counts its own events. */
  publisher: () => Publisher;
  store: SyncStore;
  catalog?: CatalogIndex;
  /** Catalog entries published (once, deduplicated) before the data. */
  catalogEntries?: readonly CatalogEntry[];
  /** Only these commodities (tests, or a narrow re-sync). */
  commodities?: readonly string[];
  /** Ask from this date (YYYY-MM-DD) instead of the cursors. */
  since?: string;
  clock?: () => Date;
  /** HTTP client settings (rate limit, timeouts, retries; tests inject sleep/now). */
  http?: Partial<Omit<HttpClientOptions, 'source'>>;
  /** Rows per page (EIA at most 5,000; Socrata default 5,000). */
  pageSize?: number;
  /** Records per query before a source splits it (tests lower it). */
  recordLimit?: number;
  /** Overall time allowed per source (default 30 min): no request starts past it. */
  sourceDeadlineMs?: number;
  batcher?: BatcherOptions;
  /** After each series: series done and total across the run, records read so far. */
  onProgress?: (p: { done: number; total: number; recordsRead: number; label: string }) => void;
  /** What went wrong without failing the run (an error day not stored); default: a line on stderr. */
  onWarning?: (message: string) => void;
}

export interface SeriesOutcome {
  series: string;
  commodity: string;
  from: string;
  ok: boolean;
  error?: string;
  records: number;
  fresh: number;
  revised: number;
}

export interface SourceSyncResult {
  source: SyncSource;
  ok: boolean;
  series: SeriesOutcome[];
  summary?: IngestSummary;
  stats: ParseStats;
  /** The source-wide failure (missing key, publishing failed), when there is one. */
  error?: string;
  status: SourceSyncStatus;
}

/** The key a source cannot sync without (its required credential), when the settings lack it. */
function requiredKey(source: SyncSource, settings: SyncSettings) {
  return syncPartOf(source).source.credentials.find((c) => c.required && !settings.keys?.[c.env]);
}

/** The API key a source needs (EIA, NASS), its environment variable when it is missing, else undefined. */
export function missingKey(source: SyncSource, settings: SyncSettings): string | undefined {
  return requiredKey(source, settings)?.env;
}

/**
 * What a source's tasks fetch with: the HTTP client (rate limit, retries, the source's deadline,
 * the CFTC app token), the page retry settings, the catalog, the counters, today and the source's
 * address and key. Used by every sync and by the snapshot's live build.
 */
export function createTaskContext(
  source: SyncSource,
  opts: SyncSettings &
    Pick<SyncOptions, 'http' | 'pageSize' | 'recordLimit'> & {
      catalog: CatalogIndex;
      today: string;
      deadline: number;
      stats: ParseStats;
      now?: Date;
    },
): TaskContext {
  const { source: src, sync } = syncPartOf(source);
  const keyed = src.credentials.find((c) => c.required);
  const apiKey = keyed === undefined ? undefined : opts.keys?.[keyed.env];
  const paced = sync.http?.(opts.keys ?? {}) ?? {};
  const client = createHttpClient({
    minIntervalMs: paced.minIntervalMs ?? 1000,
    ...opts.http,
    deadline: opts.deadline,
    source,
    headers: { ...opts.http?.headers, ...paced.headers },
  });
  return {
    client,
    retry: {
      deadline: opts.deadline,
      ...(opts.http?.sleep !== undefined ? { sleep: opts.http.sleep } : {}),
      ...(opts.http?.now !== undefined ? { now: opts.http.now } : {}),
      ...(opts.http?.baseDelayMs !== undefined ? { baseDelayMs: opts.http.baseDelayMs } : {}),
    },
    catalog: opts.catalog,
    stats: opts.stats,
    today: opts.today,
    ...(opts.now !== undefined ? { now: opts.now } : {}),
    ...(opts.baseUrls?.[source] !== undefined ? { baseUrl: opts.baseUrls[source] } : {}),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(opts.pageSize !== undefined ? { pageSize: opts.pageSize } : {}),
    ...(opts.recordLimit !== undefined ? { recordLimit: opts.recordLimit } : {}),
  };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Counts a failed run on the source's error day (its New York date when the run started): GET
 * /datasets shows the source answering errors that day. Never fails the sync: a write that fails
 * or misses its deadline (the store's) is a warning.
 */
async function recordErrorDay(
  opts: Pick<SyncOptions, 'store' | 'onWarning'>,
  source: SyncSource,
  started: Date,
  error: string,
  at: Date,
): Promise<void> {
  const date = localParts(started).date;
  try {
    await opts.store.raiseErrorDay({ source, date, error, at });
  } catch (err) {
    const warn = opts.onWarning ?? ((m: string) => process.stderr.write(`warning: ${m}\n`));
    warn(`${source}: the failed run was not counted on its error day ${date}: ${messageOf(err)}`);
  }
}

/**
 * Syncs each source in turn: for every commodity and each of its mapped series, asks the source
 * only for what is newer than the series' cursor (minus the overlap that catches revisions), all
 * pages or nothing, keeps the records that are new or revised, publishes them through the usual
 * pipeline (deterministic ids, ledger), and only then advances the cursors and the source status.
 * A failing series fails its source but not the others; a failing source does not stop the next.
 */
export async function runSync(opts: SyncOptions): Promise<SourceSyncResult[]> {
  const catalog = opts.catalog ?? CATALOG;
  const clock = opts.clock ?? (() => new Date());
  const plan = opts.sources.map((source) => ({ source, tasks: seriesTasks(source, catalog, opts.commodities) }));
  const total = plan.reduce((n, p) => n + p.tasks.length, 0);
  let done = 0;
  let recordsRead = 0;
  const results: SourceSyncResult[] = [];
  let catalogSent = false;

  for (const { source, tasks } of plan) {
    const started = clock();
    const now = opts.http?.now ?? Date.now;
    const deadline = now() + (opts.sourceDeadlineMs ?? 30 * 60_000);
    const stats = createParseStats();
    const keyMissing = missingKey(source, opts);
    const before = await opts.store.getStatus(source);
    const outcomes: SeriesOutcome[] = [];
    const fresh: SourceItem[] = [];
    const cursors: { series: string; next: SyncCursor }[] = [];
    let sourceError: string | undefined;

    if (keyMissing !== undefined) {
      sourceError = `${keyMissing} is not set: ${source} needs an API key (docs/sources.md)`;
      done += tasks.length;
      opts.onProgress?.({ done, total, recordsRead, label: source });
    } else {
      const fetchedAt = clock();
      const today = fetchedAt.toISOString().slice(0, 10);
      const ctx = createTaskContext(source, { ...opts, catalog, today, deadline, stats, now: fetchedAt });
      for (const task of tasks) {
        const cursor = await opts.store.getCursor(source, task.series);
        const from = task.from(cursor?.newest_date, today, opts.since);
        const outcome: SeriesOutcome = {
          series: task.series,
          commodity: task.commodityId,
          from,
          ok: true,
          records: 0,
          fresh: 0,
          revised: 0,
        };
        try {
          const items = await task.fetch(from, ctx);
          const kept = filterAgainstCursor(items, cursor, task.overlapDays, clock());
          outcome.records = items.length;
          outcome.fresh = kept.fresh.filter((i) => i.kind !== 'rejected').length;
          outcome.revised = kept.revised;
          recordsRead += items.length;
          fresh.push(...kept.fresh);
          if (kept.next.newest_date !== '') cursors.push({ series: task.series, next: kept.next });
        } catch (err) {
          outcome.ok = false;
          outcome.error = messageOf(err);
        }
        outcomes.push(outcome);
        done++;
        opts.onProgress?.({ done, total, recordsRead, label: source });
      }
    }

    let summary: IngestSummary | undefined;
    if (sourceError === undefined) {
      try {
        summary = await runIngest({
          items: fresh,
          publisher: opts.publisher(),
          catalog: catalogSent ? [] : (opts.catalogEntries ?? []),
          source: `${source}:sync`,
          clock,
          ...(opts.batcher !== undefined ? { batcher: opts.batcher } : {}),
        });
        catalogSent = true;
        // Published: only now do the cursors move on.
        for (const c of cursors) await opts.store.putCursor(source, c.series, c.next);
      } catch (err) {
        sourceError = `publishing failed: ${messageOf(err)}`;
      }
    }

    const failed = outcomes.filter((o) => !o.ok);
    const error =
      sourceError ??
      (failed.length > 0
        ? `${failed.length} of ${outcomes.length} series failed; first: ${failed[0]!.series}: ${failed[0]!.error}`
        : undefined);
    const newestSeen = cursors
      .map((c) => c.next.newest_date)
      .reduce<string | null>((a, b) => (a === null || b > a ? b : a), null);
    const previousNewest = before?.newest_data_date ?? null;
    const newest =
      sourceError !== undefined
        ? previousNewest
        : newestSeen === null || (previousNewest !== null && previousNewest > newestSeen)
          ? previousNewest
          : newestSeen;
    const status: SourceSyncStatus = {
      source,
      last_success_at: error === undefined ? clock().toISOString() : (before?.last_success_at ?? null),
      newest_data_date: newest,
      last_run_at: started.toISOString(),
      ...(error !== undefined ? { last_error: error } : {}),
    };
    await opts.store.putStatus(status);
    if (error !== undefined) await recordErrorDay(opts, source, started, error, clock());
    results.push({
      source,
      ok: error === undefined,
      series: outcomes,
      stats,
      status,
      ...(summary !== undefined ? { summary } : {}),
      ...(error !== undefined ? { error } : {}),
    });
  }
  return results;
}
