import {
  COT_CHECKS,
  COT_CHECKS_BUCKET,
  COT_CHECKS_DAYS,
  COT_DATASET_NAMES,
  CotCheckFailure,
  cotCheckKey,
  cotSeriesType,
  SUPPLY_DEMAND_CHECKS,
  SUPPLY_DEMAND_SERIES_TYPE,
  supplyDemandCheckKey,
  type ConsistencyDay,
} from '@cds/contracts';
import { declareMetrics, type Logger, type Metrics } from '@cds/telemetry';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { followBucket } from '../datasets/follow-bucket.ts';

/** Most failing reports a gateway keeps in memory (bounded: a new key past it is dropped and counted). */
export const COT_CHECKS_MAX_ENTRIES = 50_000;

/** The consistency failures (COT reports, WASDE balance sheets), as GET /status answers them. */
export interface CotChecksView {
  /** One item per dataset and report date within COT_CHECKS_DAYS of `nowMs`, newest first; empty when none. */
  consistency(nowMs: number): ConsistencyDay[];
  /** Increases on every change (lets readers cache what they derive). */
  version(): number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** The datasets of a day in COT_DATASET_NAMES order, then the balance sheets (supply_demand). */
const DATASET_ORDER = new Map<string, number>(
  [...COT_DATASET_NAMES.map(cotSeriesType), SUPPLY_DEMAND_SERIES_TYPE].map((d, i) => [d, i]),
);
/** Every check a day can count, in the order its `checks` lists them. */
const CHECK_ORDER = [...COT_CHECKS, ...SUPPLY_DEMAND_CHECKS];
type ConsistencyCheckName = (typeof CHECK_ORDER)[number];

/** The dataset a failure counts under on /status: a COT dataset's series type, or supply_demand. */
function datasetOf(f: CotCheckFailure): string {
  return f.dataset === 'supply_demand' ? SUPPLY_DEMAND_SERIES_TYPE : cotSeriesType(f.dataset);
}

/**
 * The key a failure is stored under in COT_CHECKS_BUCKET: a COT report's (cotCheckKey), or a
 * balance sheet's (supplyDemandCheckKey: release date, commodity, region, marketing year). A balance
 * sheet without its `sheet` has no key of its own (undefined: skipped as malformed).
 */
export function consistencyKeyOf(f: CotCheckFailure): string | undefined {
  if (f.dataset !== 'supply_demand') return cotCheckKey(f.dataset, f.report_date, f.commodity);
  if (f.sheet === undefined) return undefined;
  return supplyDemandCheckKey(f.report_date, f.commodity, f.sheet.region, f.sheet.marketing_year);
}

/** The earliest report date /status reports at `nowMs`: COT_CHECKS_DAYS before its UTC date. */
export function cotChecksCutoff(nowMs: number): string {
  return new Date(nowMs - COT_CHECKS_DAYS * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The failing reports by KV key, bounded: at most `maxEntries` (a new key past it is dropped and
 * counted; a key already held is still updated or deleted). Reports dated before the window are
 * neither kept nor answered: the bucket's keys expire on their own, without a delete the follower
 * would see.
 */
export class CotChecksTable implements CotChecksView {
  readonly #entries = new Map<string, CotCheckFailure>();
  readonly #max: number;
  readonly #nowMs: () => number;
  #version = 0;
  #dropped = 0;
  /** The cutoff of the last walk that removed the reports the window left (it moves once a day). */
  #prunedAt = '';
  #cached: { version: number; second: number; cutoff: string; items: ConsistencyDay[] } | undefined;

  constructor(opts: { nowMs: () => number; maxEntries?: number }) {
    this.#nowMs = opts.nowMs;
    this.#max = opts.maxEntries ?? COT_CHECKS_MAX_ENTRIES;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Values not kept because the table was full. */
  get dropped(): number {
    return this.#dropped;
  }

  version(): number {
    return this.#version;
  }

  /** A key's value was put: kept when within the window and the bound. */
  put(key: string, failure: CotCheckFailure): void {
    if (failure.report_date < cotChecksCutoff(this.#nowMs())) {
      this.delete(key);
      return;
    }
    if (!this.#entries.has(key) && this.#entries.size >= this.#max) {
      this.#pruneOld();
      if (this.#entries.size >= this.#max) {
        this.#dropped += 1;
        return;
      }
    }
    this.#entries.set(key, failure);
    this.#version += 1;
  }

  /** A key was deleted or purged (a later version of the report passed). */
  delete(key: string): void {
    if (this.#entries.delete(key)) this.#version += 1;
  }

  /** Removes the reports the window has left, once per cutoff (a full table does not walk itself on every put). */
  #pruneOld(): void {
    const cutoff = cotChecksCutoff(this.#nowMs());
    if (cutoff === this.#prunedAt) return;
    this.#prunedAt = cutoff;
    for (const [key, f] of this.#entries) if (f.report_date < cutoff) this.#entries.delete(key);
  }

  /**
   * Recomputed when the table changed, at most once a second (a projector rewriting many keys does
   * not make every request walk the table), and when the window moves (a new UTC day).
   */
  consistency(nowMs: number): ConsistencyDay[] {
    const second = Math.floor(nowMs / 1000);
    const cutoff = cotChecksCutoff(nowMs);
    const cached = this.#cached;
    if (cached?.cutoff === cutoff && (cached.version === this.#version || cached.second === second)) {
      return cached.items;
    }
    const items = summarize(this.#entries.values(), cutoff);
    this.#cached = { version: this.#version, second, cutoff, items };
    return items;
  }
}

/**
 * One item per dataset and date from `cutoff` on: newest date first, then the COT datasets in
 * COT_DATASET_NAMES order, then supply_demand. A COT report counts once; a balance sheet (one
 * commodity, region and marketing year of an edition) counts once, so `failed_reports` of a
 * supply_demand day is its failing sheets, and `commodities` names each commodity once.
 */
export function summarize(failures: Iterable<CotCheckFailure>, cutoff: string): ConsistencyDay[] {
  const days = new Map<
    string,
    {
      dataset: string;
      date: string;
      checks: Map<ConsistencyCheckName, number>;
      count: number;
      commodities: Set<string>;
    }
  >();
  for (const f of failures) {
    if (f.report_date < cutoff) continue;
    const dataset = datasetOf(f);
    const id = `${dataset}|${f.report_date}`;
    let day = days.get(id);
    if (day === undefined) {
      day = { dataset, date: f.report_date, checks: new Map(), count: 0, commodities: new Set() };
      days.set(id, day);
    }
    day.count += 1;
    day.commodities.add(f.commodity);
    for (const check of new Set(f.failed_checks)) day.checks.set(check, (day.checks.get(check) ?? 0) + 1);
  }
  return [...days.values()]
    .sort((a, b) =>
      a.date !== b.date ? (a.date < b.date ? 1 : -1) : DATASET_ORDER.get(a.dataset)! - DATASET_ORDER.get(b.dataset)!,
    )
    .map((d) => ({
      dataset: d.dataset,
      date: d.date,
      failed_reports: d.count,
      checks: Object.fromEntries(CHECK_ORDER.filter((c) => d.checks.has(c)).map((c) => [c, d.checks.get(c)!])),
      commodities: [...d.commodities].sort(),
    }));
}

export interface CotChecksFollower extends CotChecksView {
  readonly table: CotChecksTable;
  /** Whether the bucket is being followed (false while it does not exist yet). */
  following(): boolean;
  stop(): Promise<void>;
}

/**
 * Follows the COT consistency failures bucket (COT_CHECKS_BUCKET, the projector's) into memory, so
 * GET /status never waits on NATS (followBucket: an ordered consume from the first message, the
 * bucket looked for again every `retryMs` until the projector has created it; the gateway answers
 * meanwhile). A value failing its schema, or stored under another key than its own, is logged and
 * skipped; a delete or purge removes the key.
 */
export function followCotChecks(opts: {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  nowMs: () => number;
  bucket?: string;
  retryMs?: number;
  maxEntries?: number;
}): CotChecksFollower {
  const table = new CotChecksTable({
    nowMs: opts.nowMs,
    ...(opts.maxEntries !== undefined ? { maxEntries: opts.maxEntries } : {}),
  });
  const follower = followBucket({
    nc: opts.nc,
    js: opts.js,
    jsm: opts.jsm,
    logger: opts.logger,
    bucket: opts.bucket ?? COT_CHECKS_BUCKET,
    what: 'the COT consistency failures',
    schema: CotCheckFailure,
    accept: (key, failure) => consistencyKeyOf(failure) === key,
    put: (key, failure) => table.put(key, failure),
    remove: (key) => table.delete(key),
    ...(opts.retryMs !== undefined ? { retryMs: opts.retryMs } : {}),
  });
  return {
    table,
    consistency: (nowMs) => table.consistency(nowMs),
    version: () => table.version(),
    following: () => follower.following(),
    stop: () => follower.stop(),
  };
}

/** Gauges of the followed table: its size, and what the bound dropped (docs/reliability.md). */
export function registerCotCheckMetrics(metrics: Metrics, table: CotChecksTable): void {
  const instruments = declareMetrics(metrics);
  instruments.observe(
    'cds_gateway_cot_checks_entries',
    'gauge',
    'COT reports and balance sheets failing a consistency check held for GET /status',
    (report) => report(table.size),
  );
  instruments.observe(
    'cds_gateway_cot_checks_dropped',
    'counter',
    'COT check failures not held because the table was full (COT_CHECKS_MAX_ENTRIES)',
    (report) => report(table.dropped),
  );
}
