import type { JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { SYNC_BUCKET, SourceErrorDay, SourceSyncStatus, sourceErrorKey } from '@cds/contracts';
import { isWrongLastSequence, syncBucketSpec } from '@cds/messaging';
import { z } from 'zod';

/**
 * What `sync` remembers between runs, in the NATS KV bucket CDS_SYNC_STATE (docs/decisions.md):
 *
 * - `cursor.<source>.<series>`: per series, the newest observation date seen and a digest of each
 *   record inside the overlap window, so the next run asks from (newest - overlap) and publishes
 *   only records that are new or whose value changed (a revision);
 * - `cftc` | `eia` | `nass`: per source, the last run and the last success (read later by
 *   `GET /api/v1/status`);
 * - `errors.<source>.<date>`: per source and New York date, the runs that failed that day
 *   (SourceErrorDay: GET /api/v1/datasets reads them as the source answering errors).
 *
 * The ingest side never reads the query side: "what is stored" is what ingest has published.
 */
// The bucket's name and the per-source status are contracts with the gateway's GET /status.
export { SYNC_BUCKET, SourceSyncStatus } from '@cds/contracts';

export const SyncCursor = z.object({
  /** Newest observation date published for the series, YYYY-MM-DD. */
  newest_date: z.string(),
  /** Record key (`<commodity>|<what>|<date>`) -> digest of its published JSON, within the overlap window. */
  seen: z.record(z.string(), z.string()),
  updated_at: z.string(),
});
export type SyncCursor = z.infer<typeof SyncCursor>;

export interface SyncStore {
  getCursor(source: string, series: string): Promise<SyncCursor | undefined>;
  putCursor(source: string, series: string, cursor: SyncCursor): Promise<void>;
  getStatus(source: SourceSyncStatus['source']): Promise<SourceSyncStatus | undefined>;
  putStatus(status: SourceSyncStatus): Promise<void>;
  /**
   * Counts a failed run of a source on its New York date (`sourceErrorKey`): failed_runs + 1, the
   * error and its time; the day's first failure creates it. Returns what it stored.
   */
  raiseErrorDay(failure: SyncFailure): Promise<SourceErrorDay>;
}

/** A failed run of a source: its New York date, the error and when it failed. */
export interface SyncFailure {
  source: SourceErrorDay['source'];
  date: string;
  error: string;
  at: Date;
}

const MAX_ERROR_CHARS = 2_000;

/** The error day after one more failure (`before`: the day so far, if any). */
export function raisedErrorDay(before: SourceErrorDay | undefined, failure: SyncFailure): SourceErrorDay {
  return {
    source: failure.source,
    date: failure.date,
    failed_runs: (before?.failed_runs ?? 0) + 1,
    last_error:
      failure.error.length > MAX_ERROR_CHARS ? `${failure.error.slice(0, MAX_ERROR_CHARS - 1)}…` : failure.error,
    last_failed_at: failure.at.toISOString(),
  };
}

/** A stored error day, or undefined when there is none or it is not one (it is then counted again from 1). */
function storedErrorDay(text: string | undefined): SourceErrorDay | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed = SourceErrorDay.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Another writer changed the key since it was read (compare-and-set lost). */
/** Attempts of a compare-and-set on an error day before it gives up (two runs of one source at once). */
const ERROR_DAY_ATTEMPTS = 3;

/** KV keys allow `[-/_=.A-Za-z0-9]`; anything else in a series name (spaces, commas) becomes `_`. */
export function cursorKey(source: string, series: string): string {
  return `cursor.${source}.${series.replace(/[^-_=A-Za-z0-9]/g, '_')}`;
}

function decode<T>(schema: z.ZodType<T>, bytes: Uint8Array | undefined, key: string): T | undefined {
  if (bytes === undefined) return undefined;
  const parsed = schema.safeParse(JSON.parse(new TextDecoder().decode(bytes)));
  if (!parsed.success) throw new Error(`${SYNC_BUCKET} ${key}: unexpected value (${parsed.error.issues[0]?.message})`);
  return parsed.data;
}

/**
 * The sync state in a NATS KV bucket (file storage, latest value only), created when missing. Each
 * read has the deadline of `js` (nats.js: 5 s unless set); each error-day write `timeoutMs` (5 s).
 */
export async function createKvSyncStore(
  js: JetStreamClient,
  opts: { bucket?: string; replicas: number; timeoutMs?: number },
): Promise<SyncStore & { kv: KV }> {
  const kv = await new Kvm(js).create(...syncBucketSpec(opts));
  const timeout = opts.timeoutMs ?? 5_000;
  const get = async (key: string) => {
    const e = await kv.get(key);
    return e === null || e.operation !== 'PUT' ? undefined : e.value;
  };
  return {
    kv,
    async getCursor(source, series) {
      const key = cursorKey(source, series);
      return decode(SyncCursor, await get(key), key);
    },
    async putCursor(source, series, cursor) {
      await kv.put(cursorKey(source, series), JSON.stringify(cursor));
    },
    async getStatus(source) {
      return decode(SourceSyncStatus, await get(source), source);
    },
    async putStatus(status) {
      await kv.put(status.source, JSON.stringify(status));
    },
    async raiseErrorDay(failure) {
      const key = sourceErrorKey(failure.source, failure.date);
      for (let attempt = 1; ; attempt++) {
        const entry = await kv.get(key);
        const next = raisedErrorDay(storedErrorDay(entry?.operation === 'PUT' ? entry.string() : undefined), failure);
        try {
          // compare-and-set on the key's revision (0: the key is new)
          await kv.put(key, JSON.stringify(next), { previousSeq: entry?.revision ?? 0, timeout });
          return next;
        } catch (err) {
          if (attempt >= ERROR_DAY_ATTEMPTS || !isWrongLastSequence(err)) throw err;
        }
      }
    },
  };
}

/** The same state in memory (unit tests). */
export function createMemorySyncStore(): SyncStore & { data: Map<string, string> } {
  const data = new Map<string, string>();
  const read = <T>(schema: z.ZodType<T>, key: string) => {
    const v = data.get(key);
    return Promise.resolve(v === undefined ? undefined : schema.parse(JSON.parse(v)));
  };
  return {
    data,
    getCursor: (source, series) => read(SyncCursor, cursorKey(source, series)),
    putCursor: (source, series, cursor) => {
      data.set(cursorKey(source, series), JSON.stringify(cursor));
      return Promise.resolve();
    },
    getStatus: (source) => read(SourceSyncStatus, source),
    putStatus: (status) => {
      data.set(status.source, JSON.stringify(status));
      return Promise.resolve();
    },
    raiseErrorDay: (failure) => {
      const key = sourceErrorKey(failure.source, failure.date);
      const next = raisedErrorDay(storedErrorDay(data.get(key)), failure);
      data.set(key, JSON.stringify(next));
      return Promise.resolve(next);
    },
  };
}
