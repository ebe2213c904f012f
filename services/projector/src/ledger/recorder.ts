import { DatasetLedger, LEDGER_MAX_ENTRIES } from '@cds/contracts';
import { isWrongLastSequence, releasesBucketSpec, type Messaging } from '@cds/messaging';
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { Logger } from 'pino';
import type { AfterApply } from '../consumer/after-apply.ts';
import type { ProjectionStats } from '../metrics.ts';
import { encodeLedger, LedgerBook } from './book.ts';
import { createReleaseFinder } from './event-releases.ts';

export interface ReleaseLedgerDeps {
  messaging: Pick<Messaging, 'nc'>;
  /** The projection's statistics (the store failures). */
  stats: Pick<ProjectionStats, 'ledgerStoreFailures'>;
  clock: () => Date;
  log: Logger;
  /** Replicas of the bucket when this ledger creates it. */
  replicas: number;
  /** Default RELEASES_BUCKET (tests give their own). */
  bucket?: string;
  /** Deadline of each bucket operation (creating it, a get, a compare-and-set put). */
  timeoutMs: number;
  /** A changed key is written at most once per this interval. Default DEFAULT_LEDGER_FLUSH_MS. */
  flushMs?: number;
}

export interface ReleaseLedger {
  /** The after-apply reactor: records the batch's releases in memory (no bucket call) and schedules a flush. */
  record: AfterApply;
  /** Writes every changed key now (after a flush under way); a failure is logged, counted and kept. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left (every bucket call has its deadline). */
  close(): Promise<void>;
}

export const DEFAULT_LEDGER_FLUSH_MS = 1_000;
/** Compare-and-set attempts of one key in one flush (each conflict reads the key and merges it in). */
const CAS_ATTEMPTS = 5;
/** The longest wait before retrying after failed flushes (the interval doubles per failure up to it). */
const MAX_RETRY_MS = 30_000;
/** Entries a book may hold beyond LEDGER_MAX_ENTRIES between two writes (trimming is a sort: not per event). */
const TRIM_SLACK = 1_000;
/** Room left in a message for the headers beside a key's value. */
const HEADER_ROOM = 4_096;

interface KeyState {
  book: LedgerBook;
  /** The key's revision this process last read or wrote (0: absent); undefined until read. */
  revision: number | undefined;
  /** The value at that revision (a ledger that merged to the same is not written again: a replay writes nothing). */
  stored: string | undefined;
}

/** Reads a key into its state: its revision, its value, its entries merged into the book. */
async function loadKey(store: KV, dataset: string, state: KeyState, log: Logger): Promise<void> {
  const stored = await store.get(dataset);
  state.revision = stored?.revision ?? 0;
  state.stored = undefined;
  if (stored === null || stored.operation !== 'PUT') return;
  state.stored = stored.string();
  const parsed = DatasetLedger.safeParse(stored.json());
  if (!parsed.success) {
    log.warn({ dataset, revision: stored.revision }, 'release ledger key unreadable: written over');
    return;
  }
  for (const entry of parsed.data.entries) state.book.add(entry);
}

/**
 * Writes a dataset's ledger by compare-and-set: read first when its revision is unknown, and again
 * (merged in) after each conflict; a ledger that merged to the stored value is not written.
 */
async function writeKey(
  store: KV,
  dataset: string,
  state: KeyState,
  opts: { maxBytes: number; log: Logger },
): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    if (state.revision === undefined) await loadKey(store, dataset, state, opts.log);
    state.book.trim(LEDGER_MAX_ENTRIES);
    const value = encodeLedger(dataset, state.book, opts.maxBytes);
    if (value === state.stored) return;
    try {
      state.revision = await store.put(dataset, value, { previousSeq: state.revision! });
      state.stored = value;
      return;
    } catch (err) {
      if (!isWrongLastSequence(err) || attempt >= CAS_ATTEMPTS) throw err;
      state.revision = undefined;
    }
  }
}

/**
 * The release ledger of a projection (RELEASES_BUCKET, contracts datasets.ts): after each applied
 * batch, what its data events first served per dataset (`createReleaseFinder`), merged into the
 * dataset's ledger in memory (`LedgerBook`); each changed key is written at most once per
 * `flushMs`, by compare-and-set on its revision: a key is read (and merged in) before its first
 * write, and again after each conflict (another replica wrote it), so no writer loses another's
 * entries and no `f` moves later. The bucket is created on first use. A bucket failure never
 * fails or holds up the projection: it is logged, counted (`cds_projector_ledger_store_failures_total`)
 * and retried by the next flush (the interval doubling up to 30 s while failures last). What a
 * crashed process had not written is recorded again when its events are redelivered.
 */
export function createReleaseLedger(deps: ReleaseLedgerDeps): ReleaseLedger {
  const { log, stats } = deps;
  const flushMs = deps.flushMs ?? DEFAULT_LEDGER_FLUSH_MS;
  const js = jetstream(deps.messaging.nc, { timeout: deps.timeoutMs });
  const maxBytes = (deps.messaging.nc.info?.max_payload ?? 1_048_576) - HEADER_ROOM;
  const releasesOf = createReleaseFinder();
  const keys = new Map<string, KeyState>();
  const dirty = new Set<string>();
  let kv: KV | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let lastFlushMs = -Infinity;
  let failedFlushes = 0;
  let closed = false;

  const stateOf = (dataset: string): KeyState => {
    let s = keys.get(dataset);
    if (s === undefined) {
      s = { book: new LedgerBook(), revision: undefined, stored: undefined };
      keys.set(dataset, s);
    }
    return s;
  };

  const flushDirty = async (): Promise<void> => {
    if (dirty.size === 0) return;
    lastFlushMs = performance.now();
    try {
      kv ??= await new Kvm(js).create(...releasesBucketSpec({ replicas: deps.replicas, bucket: deps.bucket }));
    } catch (err) {
      failedFlushes += 1;
      stats.ledgerStoreFailures += 1;
      log.warn({ err, datasets: dirty.size }, 'release ledger not written: the bucket is not available (retried)');
      return;
    }
    for (const dataset of [...dirty]) {
      dirty.delete(dataset);
      try {
        await writeKey(kv, dataset, stateOf(dataset), { maxBytes, log });
      } catch (err) {
        dirty.add(dataset);
        // read again before the next write: the put may have landed after its deadline
        stateOf(dataset).revision = undefined;
        // the others wait for the next flush: one deadline missed, not one per key (a close stays short)
        failedFlushes += 1;
        stats.ledgerStoreFailures += 1;
        kv = undefined; // the next flush makes sure of the bucket again (it may have been deleted)
        log.warn({ err, dataset, waiting: dirty.size }, 'release ledger key not written (retried)');
        return;
      }
    }
    failedFlushes = 0;
  };

  const schedule = (): void => {
    if (closed || timer !== undefined || running !== undefined || dirty.size === 0) return;
    const interval = failedFlushes === 0 ? flushMs : Math.min(MAX_RETRY_MS, flushMs * 2 ** failedFlushes);
    timer = setTimeout(
      () => {
        timer = undefined;
        void flushNow();
      },
      Math.max(0, lastFlushMs + interval - performance.now()),
    );
    timer.unref();
  };

  const flushNow = (): Promise<void> => {
    running ??= flushDirty().finally(() => {
      running = undefined;
      schedule();
    });
    return running;
  };

  return {
    record: ({ events }) => {
      const f = deps.clock().toISOString();
      let changed = false;
      for (const { event } of events) {
        for (const { dataset, entry } of releasesOf(event, f)) {
          const { book } = stateOf(dataset);
          if (!book.add(entry)) continue;
          dirty.add(dataset);
          changed = true;
          // a bound on memory while the bucket is out of reach (the write trims to the limit itself)
          if (book.size > LEDGER_MAX_ENTRIES + TRIM_SLACK) book.trim(LEDGER_MAX_ENTRIES);
        }
      }
      if (changed) schedule();
    },
    flush: async () => {
      await running;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await flushNow();
    },
    close: async () => {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      await running;
      await flushDirty();
    },
  };
}
