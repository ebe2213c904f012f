import { SYNC_SOURCE_NAMES, type SyncSourceName } from '@cds/contracts';
import type { CatalogIndex } from '../../../catalog/index.ts';
import type { HttpClient } from '../http.ts';
import type { ParseStats } from '../stats.ts';
import type { SourceItem } from '../../types.ts';
import type { PageRetry } from './pages.ts';

/** The sources `ingest sync` runs: the synced rows of the contracts' SOURCES, in their order. */
export type SyncSource = SyncSourceName;
export const SYNC_SOURCES: readonly SyncSource[] = SYNC_SOURCE_NAMES;

/** The keys and tokens sync reads from the environment (each source's `credentials`), by environment variable. */
export interface SyncKeys {
  keys?: Readonly<Record<string, string | undefined>>;
}

export interface TaskContext {
  client: HttpClient;
  retry: PageRetry;
  catalog: CatalogIndex;
  stats: ParseStats;
  /** Today in UTC, YYYY-MM-DD. */
  today: string;
  /** When the fetch runs (default: the clock): dates the records a source gives no release time. */
  now?: Date;
  baseUrl?: string;
  apiKey?: string;
  pageSize?: number;
  /** Records per query before a source splits it (NASS Quick Stats; tests lower it). */
  recordLimit?: number;
}

/**
 * One series of one source: the cursor it keeps, where its sync starts, and how it fetches. Each
 * source builds its tasks beside its parser (`sources/<source>/sync-task.ts`).
 */
export interface SeriesTask {
  source: SyncSource;
  /** Cursor name within the source, e.g. `RWTC`, `legacy.GOLD`, a NASS short_desc. */
  series: string;
  commodityId: string;
  /** Digests of records older than newest - overlapDays are dropped from the cursor. */
  overlapDays: number;
  /** The first date (or year) asked, as shown in the summary. */
  from(newest: string | undefined, today: string, since?: string): string;
  /** Every record of the series from `from`, or an error: never a partial result. */
  fetch(from: string, ctx: TaskContext): Promise<SourceItem[]>;
}

/** Appends every item a parser yields to `into`. */
export async function collectItems(gen: AsyncIterable<SourceItem>, into: SourceItem[]): Promise<void> {
  for await (const item of gen) into.push(item);
}
