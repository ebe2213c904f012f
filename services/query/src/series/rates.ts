import { MAX_RATE_CARRY_DAYS, type ConversionRateRule, type Frequency } from '@cds/contracts';
import { addDays } from '@cds/schedule';
import type { ViewedPoint } from '@cds/store';

/**
 * The exchange-rate arithmetic of a conversion (docs/conversion.md), on the native observations:
 * each point is multiplied by the unit factor and by the cross rate of its date, rate(to) ÷
 * rate(from) with the euro's rate 1 (the reference rates are units of a currency per one euro).
 * A point without a rate gets the value NaN, served as null; its open/high/low/close are dropped.
 */

/** A rate series' observations, ascending: `v` units of the currency per one euro. */
export type RatePoints = readonly { d: string; v: number }[];

/** The cross rate to ÷ from on every date both have (either side undefined: the euro, 1). */
export interface CrossRates {
  dates: string[];
  rates: number[];
}

export function crossRates(from: RatePoints | undefined, to: RatePoints | undefined): CrossRates {
  const dates: string[] = [];
  const rates: number[] = [];
  if (from === undefined || to === undefined) {
    const one = from ?? to ?? [];
    for (const p of one) {
      dates.push(p.d);
      rates.push(from === undefined ? p.v : 1 / p.v);
    }
  } else {
    let j = 0;
    for (const t of to) {
      while (j < from.length && from[j]!.d < t.d) j++;
      if (j < from.length && from[j]!.d === t.d) {
        dates.push(t.d);
        rates.push(t.v / from[j]!.v);
      }
    }
  }
  return { dates, rates };
}

/** The index of the last date <= d, or -1. */
function lastAtOrBefore(dates: readonly string[], d: string): number {
  let lo = 0;
  let hi = dates.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (dates[mid]! <= d) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Which rate a series' points use: their own day's at the daily frequency, else their period's average. */
export function rateRuleOf(native: Frequency): ConversionRateRule {
  if (native === 'daily') return 'daily';
  return native === 'weekly' ? 'weekly_average' : 'monthly_average';
}

/** The first and last date whose rates a point dated `d` may use under a rule. */
export function rateWindow(d: string, rule: ConversionRateRule): { from: string; to: string } {
  if (rule === 'daily') return { from: addDays(d, -MAX_RATE_CARRY_DAYS), to: d };
  if (rule === 'weekly_average') return { from: addDays(d, -6), to: d };
  return { from: `${d.slice(0, 8)}01`, to: `${d.slice(0, 8)}31` };
}

/** The rate of one point: the factor, and the date of the rate on the daily rule; undefined when there is none. */
export function rateOf(
  cross: CrossRates,
  d: string,
  rule: ConversionRateRule,
): { rate: number; date?: string } | undefined {
  if (rule === 'daily') {
    const i = lastAtOrBefore(cross.dates, d);
    if (i < 0 || cross.dates[i]! < addDays(d, -MAX_RATE_CARRY_DAYS)) return undefined;
    return { rate: cross.rates[i]!, date: cross.dates[i]! };
  }
  // The average of the cross rate's daily values in the window (each day's to ÷ from, then averaged).
  const w = rateWindow(d, rule);
  const hi = lastAtOrBefore(cross.dates, w.to);
  const lo = lastAtOrBefore(cross.dates, addDays(w.from, -1)) + 1;
  if (hi < lo) return undefined;
  // Summed here (a month has at most 23 rates): running sums over the whole history would lose digits.
  let sum = 0;
  for (let i = lo; i <= hi; i++) sum += cross.rates[i]!;
  return { rate: sum / (hi + 1 - lo) };
}

/** A converted point: its rate (and the rate's date, daily) beside it for the answer. */
export interface ConvertedPoint extends ViewedPoint {
  fx?: number;
  fxDate?: string;
}

/**
 * The last conversion of each point, while the point lives (the read memo keeps the current view's
 * points across requests): asked again with the same factor and rate, the same converted object is
 * given back, so its rendered form and JSON text are kept too (kept-render.ts) and a converted answer
 * costs about what an unconverted one does. A point of another view is a new object every time.
 */
interface LastConversion {
  factor: number;
  /** The exchange rate (0: none asked, -1: none found) and its date. */
  rate: number;
  date: string | undefined;
  out: ConvertedPoint;
}
const lastConversion = new WeakMap<ViewedPoint, LastConversion>();

/** The point converted by `make`, or the same object as last time with the same factor, rate and rate date. */
function keptConversion(
  p: ViewedPoint,
  factor: number,
  rate: number,
  date: string | undefined,
  make: () => ConvertedPoint,
): ConvertedPoint {
  const last = lastConversion.get(p);
  if (last !== undefined && last.factor === factor && last.rate === rate && last.date === date) return last.out;
  const out = make();
  lastConversion.set(p, { factor, rate, date, out });
  return out;
}

/**
 * To 8 significant digits, more than a source's price (4 to 6) or a reference rate (5 or 6) has: the
 * float noise of a product or quotient (116.84000000000001, 1 / 1.1) goes, and the answer stays short.
 */
function significant(x: number): number {
  return Number(x.toPrecision(8));
}

function times(x: number, f: number): number {
  return f === 1 ? x : significant(x * f);
}

function scaled<T extends Omit<ViewedPoint, 'earlier'>>(p: T, f: number): T {
  const out = { ...p, v: times(p.v, f) };
  if (p.o !== undefined) out.o = times(p.o, f);
  if (p.h !== undefined) out.h = times(p.h, f);
  if (p.l !== undefined) out.l = times(p.l, f);
  if (p.c !== undefined) out.c = times(p.c, f);
  return out;
}

export interface ConversionCounts {
  carried: number;
  missing: number;
}

/**
 * Converts ascending observations: × `factor` (the unit part) and, with `cross`, × the rate of the
 * point's date under `rule` (counted in `counts` when asked: carried, missing). Earlier versions
 * (include=revisions) are converted with their point's rate.
 */
export function convertPoints(
  points: readonly ViewedPoint[],
  factor: number,
  cross: CrossRates | undefined,
  rule: ConversionRateRule,
  counts?: ConversionCounts,
): ConvertedPoint[] {
  const out: ConvertedPoint[] = new Array<ConvertedPoint>(points.length);
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    if (cross === undefined) {
      out[i] = keptConversion(p, factor, 0, undefined, () => convertOne(p, factor));
      continue;
    }
    const rate = rateOf(cross, p.d, rule);
    if (rate === undefined) {
      if (counts !== undefined) counts.missing += 1;
      out[i] = keptConversion(p, factor, -1, undefined, () => missingRate(p));
      continue;
    }
    if (counts !== undefined && rate.date !== undefined && rate.date !== p.d) counts.carried += 1;
    out[i] = keptConversion(p, factor, rate.rate, rate.date, () => {
      const converted: ConvertedPoint = convertOne(p, factor * rate.rate);
      converted.fx = significant(rate.rate);
      // Only a carried rate's date is said: the others are of the point's own date.
      if (rate.date !== undefined && rate.date !== p.d) converted.fxDate = rate.date;
      return converted;
    });
  }
  return out;
}

/** A point without a rate: its value NaN (served as null), its volume and publication kept. */
function missingRate(p: ViewedPoint): ConvertedPoint {
  const missing: ConvertedPoint = { d: p.d, v: Number.NaN };
  if (p.vol !== undefined) missing.vol = p.vol;
  if (p.release !== undefined) missing.release = p.release;
  return missing;
}

function convertOne(p: ViewedPoint, f: number): ConvertedPoint {
  const out: ConvertedPoint = scaled(p, f);
  if (p.earlier !== undefined) out.earlier = p.earlier.map((e) => scaled(e, f));
  return out;
}
