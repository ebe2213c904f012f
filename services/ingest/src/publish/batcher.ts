import {
  cotDatasetOf,
  MAX_POINTS_PER_EVENT,
  MAX_REPORTS_PER_EVENT,
  type CitCotRecord,
  type DisaggregatedCotRecord,
  type LegacyCotRecord,
  type SeriesPointRecord,
} from '@cds/contracts';
import type { CotItem, PublicationStamp, SeriesItem, SeriesKey, SupplyDemandItem } from '../sources/types.ts';

/** A batch of the points of one series (SeriesKey) and period (YYYY). */
export interface SeriesBatch extends SeriesKey {
  /** The publication of its points (a batch holds the points of one release; absent: the ingest time). */
  published_at?: string;
  published_at_estimated?: boolean;
  period: string;
  /** Sorted by date, one point per date. */
  points: SeriesPointRecord[];
}

/**
 * A batch of COT reports of one commodity, dataset (a format in a scope: `scope` only when futures
 * and options, as on the event) and year; sorted by report_date, one per date.
 */
export type CotBatch =
  | {
      kind: 'cot';
      commodity_id: string;
      format: 'legacy';
      scope?: 'futures_and_options';
      source?: string;
      period: string;
      reports: LegacyCotRecord[];
    }
  | {
      kind: 'cot';
      commodity_id: string;
      format: 'disaggregated';
      scope?: 'futures_and_options';
      source?: string;
      period: string;
      reports: DisaggregatedCotRecord[];
    }
  | {
      kind: 'cot';
      commodity_id: string;
      format: 'cit';
      scope: 'futures_and_options';
      source?: string;
      period: string;
      reports: CitCotRecord[];
    };

/** One release of one balance sheet: the source yields it whole, so it is its own batch. */
export type Batch = SeriesBatch | CotBatch | SupplyDemandItem;

export interface BatcherOptions {
  /** Most points in one series batch. Default MAX_POINTS_PER_EVENT. */
  maxPoints?: number;
  /** Most reports in one COT batch. Default MAX_REPORTS_PER_EVENT. */
  maxReports?: number;
  /**
   * Most records held across all open groups. When exceeded, the least recently touched groups are
   * flushed (partially, if more of them arrive later) until a quarter of the budget is free.
   */
  budget?: number;
}

export interface Batcher {
  /** Adds one record; returns the batches that must be published now (often none). */
  add(item: SeriesItem | CotItem | SupplyDemandItem): Batch[];
  /** Returns every open group as batches (in a deterministic order) and empties the batcher. */
  drain(): Batch[];
  /** Records held right now. */
  readonly buffered: number;
  /** Records that replaced an earlier record of the same group and date (the later row wins). */
  readonly replaced: number;
}

interface Group {
  item: SeriesItem | CotItem;
  period: string;
  /** Input position of the last record added: the least recently touched groups go first. */
  touched: number;
  records: Map<string, SeriesPointRecord | LegacyCotRecord | DisaggregatedCotRecord | CitCotRecord>;
}

export const DEFAULT_BATCH_BUDGET = 50_000;

const stampKey = (p: PublicationStamp | undefined) => (p === undefined ? '' : `${p.at}${p.estimated ? '~' : ''}`);

/**
 * Groups records into event-sized batches: series by (commodity, type, frequency, unit, source, basis,
 * year, publication: a series event has one `published_at`, so the open interest points of a CFTC
 * file, one per weekly release, make one event each), COT by (commodity, dataset, source, year; each
 * report carries its own publication; the dataset is the format in its scope, so a futures-only and a
 * combined report of the same market and date never share a batch). Inputs interleave groups (CFTC files mix markets, EIA is
 * newest first), so groups stay open until the memory budget forces the oldest out or the input
 * ends. Everything here depends only on the input order and the options, so the same input always
 * yields the same batches (and therefore the same event ids).
 *
 * Dates are days, so a year holds at most 366 points or reports, below both per-event caps; a
 * group that still reaches its cap (a lowered cap) is flushed as it stands and a new one opened.
 */
export function createBatcher(opts: BatcherOptions = {}): Batcher {
  const maxPoints = opts.maxPoints ?? MAX_POINTS_PER_EVENT;
  const maxReports = opts.maxReports ?? MAX_REPORTS_PER_EVENT;
  const budget = Math.max(1, opts.budget ?? DEFAULT_BATCH_BUDGET);
  const groups = new Map<string, Group>();
  let position = 0;
  let buffered = 0;
  let replaced = 0;

  const toBatch = (g: Group): Batch => {
    const records = [...g.records.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map((e) => e[1]);
    const it = g.item;
    if (it.kind === 'series') {
      return {
        kind: 'series',
        commodity_id: it.commodity_id,
        series_type: it.series_type,
        frequency: it.frequency,
        ...(it.unit !== undefined ? { unit: it.unit } : {}),
        ...(it.source !== undefined ? { source: it.source } : {}),
        ...(it.price_basis !== undefined ? { price_basis: it.price_basis } : {}),
        ...(it.published !== undefined
          ? { published_at: it.published.at, published_at_estimated: it.published.estimated }
          : {}),
        period: g.period,
        points: records as SeriesPointRecord[],
      };
    }
    return {
      kind: 'cot',
      commodity_id: it.commodity_id,
      format: it.format,
      ...(it.scope !== undefined ? { scope: it.scope } : {}),
      ...(it.source !== undefined ? { source: it.source } : {}),
      period: g.period,
      reports: records,
    } as CotBatch;
  };

  const take = (key: string, g: Group): Batch => {
    groups.delete(key);
    buffered -= g.records.size;
    return toBatch(g);
  };

  return {
    get buffered() {
      return buffered;
    },
    get replaced() {
      return replaced;
    },
    add(item) {
      // a balance sheet's release comes whole from its source: published as it is, in input order
      if (item.kind === 'supply_demand') return [item];
      const date = item.kind === 'series' ? item.point.date : item.record.report_date;
      const period = date.slice(0, 4);
      const key =
        item.kind === 'series'
          ? `s\u0000${item.commodity_id}\u0000${item.series_type}\u0000${item.frequency}\u0000${item.unit ?? ''}\u0000${item.source ?? ''}\u0000${item.price_basis ?? ''}\u0000${period}\u0000${stampKey(item.published)}`
          : `c\u0000${item.commodity_id}\u0000${cotDatasetOf(item)}\u0000${item.source ?? ''}\u0000${period}`;
      let g = groups.get(key);
      if (g === undefined) {
        g = { item, period, touched: 0, records: new Map() };
        groups.set(key, g);
      }
      g.touched = ++position;
      const record = item.kind === 'series' ? item.point : item.record;
      const before = g.records.size;
      g.records.set(date, record);
      if (g.records.size === before) replaced++;
      else buffered++;

      const out: Batch[] = [];
      const cap = item.kind === 'series' ? maxPoints : maxReports;
      if (g.records.size >= cap) out.push(take(key, g));
      if (buffered > budget) {
        const target = Math.floor((budget * 3) / 4);
        const oldestFirst = [...groups].sort((a, b) => a[1].touched - b[1].touched);
        for (const [k, old] of oldestFirst) {
          if (buffered <= target) break;
          out.push(take(k, old));
        }
      }
      return out;
    },
    drain() {
      const keys = [...groups.keys()].sort();
      const out = keys.map((k) => take(k, groups.get(k)!));
      return out;
    },
  };
}
