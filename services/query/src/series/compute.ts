import {
  FREQUENCY_RANK,
  MAX_SERIES_LIMIT,
  type Frequency,
  type SeriesType,
  type SortOrder,
  type TimeSeriesPoint,
  type Transform,
} from '@cds/contracts';
import type { StoredPoint, StoredRelease } from '@cds/read-models';
import type { ViewedPoint } from '@cds/store';
import { publicationOf } from '../http/point-in-time.ts';
import { periodStart } from './dates.ts';
import { keptRender } from './kept-render.ts';
import type { ConvertedPoint } from './rates.ts';

/** How observations of one period combine when resampling to a coarser frequency (docs/decisions.md). */
export type Aggregation = 'ohlc' | 'sum' | 'last';

export function aggregationOf(type: SeriesType): Aggregation {
  if (type === 'price') return 'ohlc';
  if (type === 'volume') return 'sum';
  return 'last';
}

/** True when `requested` is finer than the series' native frequency (a 400 on frequency). */
export function isFinerThan(requested: Frequency, native: Frequency): boolean {
  return FREQUENCY_RANK[requested] < FREQUENCY_RANK[native];
}

/** The later published of two releases; an absent one (data stored before versions) counts as earliest. */
export function laterRelease(a: StoredRelease | undefined, b: StoredRelease | undefined): StoredRelease | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.p > a.p ? b : a;
}

/** A point made from others carries the latest publication among them (docs/point-in-time.md). */
function withRelease<T extends { d: string; v: number }>(
  out: T,
  release: StoredRelease | undefined,
): T & { release?: StoredRelease } {
  return release === undefined ? out : { ...out, release };
}

function combine(group: ViewedPoint[], how: Aggregation): ViewedPoint {
  const first = group[0]!;
  const last = group[group.length - 1]!;
  let release: StoredRelease | undefined;
  for (const p of group) release = laterRelease(release, p.release);
  if (how === 'last') return withRelease({ d: last.d, v: last.v }, release);
  if (how === 'sum') {
    let sum = 0;
    for (const p of group) sum += p.v;
    return withRelease({ d: last.d, v: sum }, release);
  }
  // Price: open = first open, high = max, low = min, close = value = last close, volume = sum.
  // A field absent from every observation of the period stays absent.
  const out: ViewedPoint = withRelease({ d: last.d, v: last.v }, release);
  if (first.o !== undefined) out.o = first.o;
  let high: number | undefined;
  let low: number | undefined;
  let volume: number | undefined;
  for (const p of group) {
    if (p.h !== undefined) high = high === undefined ? p.h : Math.max(high, p.h);
    if (p.l !== undefined) low = low === undefined ? p.l : Math.min(low, p.l);
    if (p.vol !== undefined) volume = (volume ?? 0) + p.vol;
  }
  if (high !== undefined) out.h = high;
  if (low !== undefined) out.l = low;
  out.c = last.c ?? last.v;
  if (volume !== undefined) out.vol = volume;
  return out;
}

/**
 * Resamples ascending observations to `frequency` by ISO week (Monday to Sunday) or calendar month:
 * one point per period that has observations, dated at the period's last observation. Daily (or
 * the native frequency, when the caller passes it) returns the observations unchanged.
 */
export function resample(points: readonly ViewedPoint[], frequency: Frequency, how: Aggregation): ViewedPoint[] {
  if (frequency === 'daily' || points.length === 0) return [...points];
  const out: ViewedPoint[] = [];
  let group: ViewedPoint[] = [];
  let key = '';
  for (const p of points) {
    const k = periodStart(p.d, frequency);
    if (k !== key && group.length > 0) {
      out.push(combine(group, how));
      group = [];
    }
    key = k;
    group.push(p);
  }
  out.push(combine(group, how));
  return out;
}

/**
 * Rounds a transformed value to 6 decimal places, through the decimal string so float noise
 * (0.30000000000000004) disappears and large values keep their integer digits; -0 becomes 0.
 */
export function round6(x: number): number {
  const r = Number(x.toFixed(6));
  return r === 0 ? 0 : r;
}

/**
 * Applies a transform to ascending (resampled) points. `predecessor` is the value of the period
 * before the first point in range (see computeSeries), or undefined when there is none, in which
 * case change and pct_change leave the first point out. pct_change leaves out every point whose
 * predecessor is 0. cumulative is the running sum from the first point in range.
 *
 * Each result carries the latest publication of the values it comes from: the point and its
 * predecessor (`predecessorRelease` for the first), or every point so far for cumulative.
 */
export function applyTransform(
  points: readonly ViewedPoint[],
  transform: Exclude<Transform, 'none'>,
  predecessor: number | undefined,
  predecessorRelease?: StoredRelease,
): { d: string; v: number; release?: StoredRelease }[] {
  const out: { d: string; v: number; release?: StoredRelease }[] = [];
  if (transform === 'cumulative') {
    let sum = 0;
    let release: StoredRelease | undefined;
    for (const p of points) {
      sum += p.v;
      release = laterRelease(release, p.release);
      out.push(withRelease({ d: p.d, v: round6(sum) }, release));
    }
    return out;
  }
  let prev = predecessor;
  let prevRelease = predecessorRelease;
  for (const p of points) {
    if (prev !== undefined) {
      const release = laterRelease(prevRelease, p.release);
      if (transform === 'change') out.push(withRelease({ d: p.d, v: round6(p.v - prev) }, release));
      else if (prev !== 0) out.push(withRelease({ d: p.d, v: round6(((p.v - prev) / prev) * 100) }, release));
    }
    prev = p.v;
    prevRelease = p.release;
  }
  return out;
}

export interface SeriesComputation {
  type: SeriesType;
  /** The series' native frequency. */
  native: Frequency;
  /** The effective frequency (never finer than native). */
  frequency: Frequency;
  transform: Transform;
  sortOrder: SortOrder;
  limit?: number | undefined;
  /** Stored observations with start_date <= d <= end_date, ascending, as the view shows them. */
  inRange: readonly ViewedPoint[];
  /**
   * The points are the read memo's, kept across requests (the current view): each one's rendered
   * object and JSON text are kept with it (kept-render.ts). Without it every point is rendered anew.
   */
  kept?: boolean | undefined;
  /**
   * Stored observations before start_date, ascending: at least every one in the period (at the
   * effective frequency) of the last observation before start_date. Only read for change and
   * pct_change; may be empty.
   */
  before: readonly ViewedPoint[];
}

/**
 * The predecessor of the first point in range, for change and pct_change: the observations before
 * start_date are resampled on their own at the effective frequency and the last resulting period
 * is taken. So at daily frequency it is the last observation before start_date; weekly or monthly,
 * it is the period of that observation built from its observations before start_date (when
 * start_date falls inside a period, the in-range part and the earlier part are two points).
 */
export function predecessorValue(
  before: readonly ViewedPoint[],
  frequency: Frequency,
  how: Aggregation,
): number | undefined {
  return predecessorPoint(before, frequency, how)?.v;
}

/** The predecessor period as a point (predecessorValue), with the latest publication of its observations. */
export function predecessorPoint(
  before: readonly ViewedPoint[],
  frequency: Frequency,
  how: Aggregation,
): ViewedPoint | undefined {
  const last = before[before.length - 1];
  if (last === undefined) return undefined;
  const key = periodStart(last.d, frequency);
  let i = before.length - 1;
  while (i > 0 && periodStart(before[i - 1]!.d, frequency) === key) i--;
  const resampled = resample(before.slice(i), frequency, how);
  return resampled[resampled.length - 1];
}

function priceFields(
  p: StoredPoint,
  out: { open?: number; high?: number; low?: number; close?: number; volume?: number },
) {
  // A converted point without a rate (NaN, rates.ts) has none of them; a period made with one, not its close.
  if (p.o !== undefined) out.open = p.o;
  if (p.h !== undefined) out.high = p.h;
  if (p.l !== undefined) out.low = p.l;
  if (p.c !== undefined && !Number.isNaN(p.c)) out.close = p.c;
  if (p.vol !== undefined) out.volume = p.vol;
}

/** A value as served: NaN (a converted point without an exchange rate, or computed from one) is null. */
function served(v: number): number | null {
  return Number.isNaN(v) ? null : v;
}

function render(p: ConvertedPoint, withPriceFields: boolean): TimeSeriesPoint {
  const out: TimeSeriesPoint = { date: p.d, value: served(p.v) };
  if (withPriceFields) priceFields(p, out);
  if (p.fx !== undefined) {
    out.fx_rate = p.fx;
    if (p.fxDate !== undefined) out.fx_rate_date = p.fxDate;
  }
  // Inline (no intermediate object): this runs once per point of every answer computed.
  const r = p.release;
  if (r !== undefined) {
    out.published_at = r.p;
    out.first_seen_at = r.f;
    if (r.e === true) out.published_at_estimated = true;
  }
  if (p.earlier !== undefined) {
    out.revisions = p.earlier.map((e) => {
      const revision: NonNullable<TimeSeriesPoint['revisions']>[number] = { value: e.v };
      if (withPriceFields) priceFields(e, revision);
      return Object.assign(revision, publicationOf(e.release));
    });
  }
  return out;
}

/**
 * The whole series pipeline of docs/decisions.md: resample, transform in ascending order, sort, limit
 * (at most MAX_SERIES_LIMIT points without a limit: the first ones in sort order).
 */
export function computeSeries(c: SeriesComputation): TimeSeriesPoint[] {
  const how = aggregationOf(c.type);
  const frequency = c.frequency;
  const resampled = frequency === c.native ? [...c.inRange] : resample(c.inRange, frequency, how);
  let points: TimeSeriesPoint[];
  if (c.transform === 'none') {
    const withPriceFields = c.type === 'price';
    points =
      c.kept === true && frequency === c.native
        ? resampled.map((p) => keptRender(p, withPriceFields, render))
        : resampled.map((p) => render(p, withPriceFields));
  } else {
    const predecessor =
      c.transform === 'cumulative'
        ? undefined
        : predecessorPoint(c.before, frequency === c.native ? 'daily' : frequency, how);
    points = applyTransform(resampled, c.transform, predecessor?.v, predecessor?.release).map((p) => ({
      date: p.d,
      value: served(p.v),
      ...publicationOf(p.release),
    }));
  }
  if (c.sortOrder === 'desc') points.reverse();
  const limit = Math.min(c.limit ?? MAX_SERIES_LIMIT, MAX_SERIES_LIMIT);
  return points.length > limit ? points.slice(0, limit) : points;
}
