import {
  MAX_RATE_CARRY_DAYS,
  currencyOfRateSeries,
  rateSeriesId,
  rateUnit,
  sourceFactsOf,
  type Conversion,
  type ConversionRateRule,
  type Frequency,
  type SeriesType,
} from '@cds/contracts';
import { yearOf, type StoredSeriesDescriptor } from '@cds/read-models';
import type { ViewedPoint } from '@cds/store';
import type { RouteContext } from '../http/route-context.ts';
import { planConversion, type ConversionPlan } from './conversion.ts';
import { firstReleaseEstimateOf } from '../catalog/first-release.ts';
import {
  convertPoints,
  crossRates,
  rateRuleOf,
  rateWindow,
  type ConversionCounts,
  type ConvertedPoint,
  type RatePoints,
} from './rates.ts';

/** What a series answer converts: the request's parameters and the series read. */
export interface SeriesToConvert {
  commodityId: string;
  type: SeriesType;
  native: Frequency;
  /** The series' unit as stored. */
  unit: string | undefined;
  currency: string | undefined;
  /** The `unit` parameter. */
  toUnit: string | undefined;
  /** as_of: the rates are read as of it too (no rate published after it is used). */
  asOf: string | undefined;
  inRange: readonly ViewedPoint[];
  before: readonly ViewedPoint[];
}

export interface ConvertedSeries {
  inRange: ConvertedPoint[];
  before: ConvertedPoint[];
  unit: string;
  conversion: Conversion;
  /** The rate series' provenance (`ecb:USD`), for the answer's freshness. */
  sources: string[];
}

const DERIVED =
  'Converted values are derived data: computed by this service from the series and the reference rates, ' +
  'not statistics published by the source of either.';

const RULE_TEXT: Record<ConversionRateRule, string> = {
  daily: `Each point uses the rate of its date, or the latest earlier one at most ${MAX_RATE_CARRY_DAYS} days back (a carried point's fx_rate_date).`,
  weekly_average:
    "Each point uses the average, over the 7 days ending on its date, of each day's cross rate (to ÷ from).",
  monthly_average: "Each point uses the average, over its calendar month, of each day's cross rate (to ÷ from).",
};

/** The rate series' descriptors by currency, from the unlisted catalog documents. */
async function rateDescriptors(ctx: RouteContext): Promise<Map<string, StoredSeriesDescriptor>> {
  const rated = new Map<string, StoredSeriesDescriptor>();
  for (const doc of await ctx.repository.unlistedEntries()) {
    const currency = currencyOfRateSeries(doc._id);
    const price = doc.series?.price;
    if (currency !== undefined && price !== undefined) rated.set(currency, price);
  }
  return rated;
}

/** A currency's rates from `from` to `to` (the euro: none, its rate is 1), in the request's point-in-time view. */
async function readRates(
  ctx: RouteContext,
  currency: string,
  descriptor: StoredSeriesDescriptor | undefined,
  window: { from: string; to: string },
  asOf: string | undefined,
): Promise<RatePoints | undefined> {
  if (descriptor === undefined) return undefined;
  const range = await ctx.repository.readSeries({
    commodityId: rateSeriesId(currency),
    type: 'price',
    startDate: window.from,
    endDate: window.to,
    firstYear: yearOf(descriptor.first_date),
    lastYear: yearOf(descriptor.last_date),
    // With as_of: each day's first published rate, known from its own day's release by the rates'
    // calendar (16:00 Frankfurt), not from the stamp of the event that carried it (a backfilled year
    // is one event per currency, stamped at its last day): the rule of every series (catalog/first-release.ts).
    // A later correction does not reach an earlier as_of.
    view:
      asOf === undefined
        ? undefined
        : { asOf, firstRelease: true, firstReleaseEstimate: firstReleaseEstimateOf(descriptor, 'price') },
  });
  return range.points;
}

/** The dates the points' rates may come from (undefined when there are no points). */
function windowOf(s: SeriesToConvert, rule: ConversionRateRule): { from: string; to: string } | undefined {
  const first = s.before[0] ?? s.inRange[0];
  const last = s.inRange.at(-1) ?? s.before.at(-1);
  if (first === undefined || last === undefined) return undefined;
  return { from: rateWindow(first.d, rule).from, to: rateWindow(last.d, rule).to };
}

/** The rates of both currencies a conversion reads (undefined: the euro, or no points to convert). */
interface RatesRead {
  from: RatePoints | undefined;
  to: RatePoints | undefined;
}

async function ratesOf(
  ctx: RouteContext,
  s: SeriesToConvert,
  plan: ConversionPlan & { currency: { from: string; to: string } },
  rated: Map<string, StoredSeriesDescriptor>,
  rule: ConversionRateRule,
): Promise<RatesRead | undefined> {
  const window = windowOf(s, rule);
  if (window === undefined) return undefined;
  const [from, to] = await Promise.all([
    readRates(ctx, plan.currency.from, rated.get(plan.currency.from), window, s.asOf),
    readRates(ctx, plan.currency.to, rated.get(plan.currency.to), window, s.asOf),
  ]);
  return { from, to };
}

/** A series' points converted at their rates, and what that counted. */
interface ConvertedRun {
  inRange: ConvertedPoint[];
  before: ConvertedPoint[];
  counts: ConversionCounts;
}

/**
 * The last currency conversion of each series and conversion, kept while the points and the rates it
 * was made from are the same objects. The read memo hands every request the same kept objects of the
 * current view (repository/read-memo.ts), so a request asked again (with the response cache off, or
 * another format, limit or transform of the same range) skips the cross rates and the per-point
 * lookups; a changed series or rate is read as new objects and converted afresh. A conversion is a
 * function of those objects alone, so whatever view matches gets the right run; only the current
 * view's runs are kept (the other views read fresh objects every time).
 */
interface KeptRun {
  inRange: readonly ViewedPoint[];
  before: readonly ViewedPoint[];
  rates: RatesRead;
  run: ConvertedRun;
}
const KEPT_RUNS = 256;
const keptRuns = new Map<string, KeptRun>();

function sameItems(a: readonly unknown[] | undefined, b: readonly unknown[] | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function convertRun(
  key: string,
  s: SeriesToConvert,
  factor: number,
  rates: RatesRead | undefined,
  rule: ConversionRateRule,
): ConvertedRun {
  const kept = keptRuns.get(key);
  if (
    kept !== undefined &&
    rates !== undefined &&
    sameItems(kept.inRange, s.inRange) &&
    sameItems(kept.before, s.before) &&
    sameItems(kept.rates.from, rates.from) &&
    sameItems(kept.rates.to, rates.to)
  )
    return kept.run;
  const cross = rates === undefined ? crossRates([], undefined) : crossRates(rates.from, rates.to);
  const counts: ConversionCounts = { carried: 0, missing: 0 };
  const run = {
    inRange: convertPoints(s.inRange, factor, cross, rule, counts),
    before: convertPoints(s.before, factor, cross, rule),
    counts,
  };
  if (rates !== undefined && s.asOf === undefined) {
    if (keptRuns.size >= KEPT_RUNS && !keptRuns.has(key)) keptRuns.delete(keptRuns.keys().next().value!);
    keptRuns.set(key, { inRange: s.inRange, before: s.before, rates, run });
  }
  return run;
}

/**
 * Converts a series' observations as `currency` and `unit` ask (400s naming them when they do not
 * fit), before any resampling or transform: the unit factor, then each point's exchange rate.
 */
export async function convertSeries(ctx: RouteContext, s: SeriesToConvert): Promise<ConvertedSeries | undefined> {
  if (s.currency === undefined && s.toUnit === undefined) return undefined;
  // Only a currency (asked, or named by the unit: EUR/t) needs the rates' descriptors.
  const rated =
    s.currency !== undefined || s.toUnit?.includes('/') === true
      ? await rateDescriptors(ctx)
      : new Map<string, StoredSeriesDescriptor>();
  const plan = planConversion({
    commodityId: s.commodityId,
    type: s.type,
    seriesUnit: s.unit,
    currency: s.currency,
    unit: s.toUnit,
    ratedCurrencies: [...rated.keys()].sort(),
  });
  if (plan === undefined) return undefined;
  const conversion: Conversion = {
    from: { unit: plan.fromUnit, currency: plan.fromCurrency },
    to: { unit: plan.toUnit, currency: plan.toCurrency },
    ...(plan.unit === undefined ? {} : { unit: plan.unit }),
  };
  if (plan.currency === undefined) {
    return {
      inRange: convertPoints(s.inRange, plan.factor, undefined, 'daily'),
      before: convertPoints(s.before, plan.factor, undefined, 'daily'),
      unit: plan.toUnit,
      conversion: withoutAbsent(conversion),
      sources: [],
    };
  }
  const rule = rateRuleOf(s.native);
  const rates = await ratesOf(ctx, s, { ...plan, currency: plan.currency }, rated, rule);
  const key = `${s.commodityId}\u0000${s.type}\u0000${plan.fromUnit}\u0000${plan.toUnit}\u0000${plan.factor}\u0000${rule}`;
  const { inRange, before, counts } = convertRun(key, s, plan.factor, rates, rule);
  const used = [plan.currency.from, plan.currency.to].filter((c) => rated.has(c));
  const sources = used.map((c) => rated.get(c)?.source ?? rateSeriesId(c));
  conversion.currency = {
    from: plan.currency.from,
    to: plan.currency.to,
    rates: used.map(rateUnit),
    rule,
    ...counts,
    source: sources.join(', '),
    attribution: sourceFactsOf(sources[0])?.attribution ?? '',
    note: `${RULE_TEXT[rule]} ${DERIVED}`,
  };
  return { inRange, before, unit: plan.toUnit, conversion: withoutAbsent(conversion), sources };
}

/** The conversion without its absent from/to fields (a quantity has no currency). */
function withoutAbsent(c: Conversion): Conversion {
  const strip = (o: Conversion['from']) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Conversion['from'];
  return { ...c, from: strip(c.from), to: strip(c.to) };
}
