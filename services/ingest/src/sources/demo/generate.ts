import type { Frequency, SeriesType } from '@cds/contracts';
import type { CatalogIndex, CommodityDefinition } from '../../catalog/index.ts';
import { demoOf, type DemoFundamental } from './mapping.ts';
import type { SourceItem } from '../types.ts';
import { CATALOG, REGISTRY } from '../registry.ts';
import { cotItem, seriesItem } from '../common/records.ts';
import { cotReportDateOfWeek, endOfEasternDay, lastReleasedCotDate } from './cot-dates.ts';
import { createRandom, hashSeed } from './prng.ts';

export interface DemoOptions {
  /** Last day of the generated history, YYYY-MM-DD; default: the clock's UTC date. */
  today?: string;
  /** Years of history before `today` (default 3). */
  years?: number;
  /** Seed label (default 'cds-demo'); each commodity draws from its own stream seeded by label + id. */
  seed?: string;
  /** Only these commodity ids (default: the whole catalog). */
  commodities?: readonly string[];
  catalog?: CatalogIndex;
  /**
   * Validate every record with the contracts' zod schemas like the file adapters do (default
   * false: the records are valid by construction, tests check every one against the schemas,
   * and zod costs about four times the generation itself; the publisher validates batches again).
   */
  validate?: boolean;
  /** Clock for the default `today` and the COT cut-off. */
  now?: () => Date;
  /**
   * The instant whose last CFTC release bounds the COT reports (no demo report is dated after the
   * report date of the last release that had happened by then). Default: the clock's now, or the
   * end of `today` in New York when `today` is given.
   */
  cotAsOf?: Date;
  /**
   * Parts to leave out because real data replaces them: `cot` the COT reports and the open interest
   * of a commodity with a COT contract (the CFTC's weekly figure replaces it), each other source's
   * `demo.part` the series a commodity maps to that source (sources/registry.ts DEMO_PARTS).
   */
  without?: readonly string[];
}

const DAY_MS = 86_400_000;
const FILE = 'demo';
/** The provenance of everything the generator makes: served as `source: "demo"`. */
export const DEMO_SOURCE = 'demo';

function isoOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

function dayOfIso(iso: string): number {
  const t = Date.parse(`${iso}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(iso) || Number.isNaN(t)) throw new Error(`demo: invalid date "${iso}"`);
  return Math.floor(t / DAY_MS);
}

function decimalsOf(tick: number): number {
  const s = String(tick);
  const dot = s.indexOf('.');
  return dot === -1 ? 0 : s.length - dot - 1;
}

/** The demo's date range: weekdays from `years` before `today` up to `today` (inclusive). */
export function demoRange(options: Pick<DemoOptions, 'today' | 'years' | 'now'> = {}): { start: string; end: string } {
  const end = options.today ?? (options.now ?? (() => new Date()))().toISOString().slice(0, 10);
  const years = options.years ?? 3;
  const y = Number(end.slice(0, 4)) - years;
  let start = `${y}${end.slice(4)}`;
  if (start.endsWith('02-29')) start = `${y}-02-28`;
  return { start, end };
}

/**
 * The report dates of the demo's COT: one a week, dated like the CFTC's (the Tuesday, or the Monday
 * when the Tuesday is a federal holiday), from `start` up to the report date of the last CFTC
 * release that had happened at the cut-off (see DemoOptions.cotAsOf), never later.
 */
export function demoCotDates(options: Pick<DemoOptions, 'today' | 'years' | 'now' | 'cotAsOf'> = {}): string[] {
  const { start, end } = demoRange(options);
  const asOf =
    options.cotAsOf ??
    (options.today !== undefined ? endOfEasternDay(options.today) : (options.now ?? (() => new Date()))());
  const lastReleased = lastReleasedCotDate(asOf);
  const last = lastReleased < end ? lastReleased : end;
  const out: string[] = [];
  for (let d = dayOfIso(start); d <= dayOfIso(last); d += 1) {
    const iso = isoOfDay(d);
    if (cotReportDateOfWeek(iso) === iso) out.push(iso);
  }
  return out;
}

/**
 * Deterministic demo data for the catalog (same seed, years and `today` give the same items),
 * every item marked `source: "demo"`: weekday daily prices as a mean-reverting random walk in the
 * contract's ticks (low <= open, close <= high), daily volume and open interest, weekly COT reports
 * in both formats dated like the CFTC's (see demoCotDates) whose groups add up to the open
 * interest, and each commodity's fundamentals at their frequency (weekly on Fridays, monthly at
 * month end, annual on YYYY-12-31 published as monthly).
 * A synchronous generator, to keep the per-item cost small; see generateDemo for the async form.
 */
export function* generateDemoItems(options: DemoOptions = {}): Generator<SourceItem> {
  const catalog = options.catalog ?? CATALOG;
  const { start, end } = demoRange(options);
  const first = dayOfIso(start);
  const last = dayOfIso(end);
  // weekdays shared by every commodity: day number, ISO string, weekday (1 = Monday)
  const days: { iso: string; dow: number }[] = [];
  for (let d = first; d <= last; d++) {
    const dow = (d + 4) % 7; // 1970-01-01 was a Thursday (4)
    if (dow !== 0 && dow !== 6) days.push({ iso: isoOfDay(d), dow });
  }
  const cotDates: ReadonlySet<string> = new Set(options.without?.includes('cot') ? [] : demoCotDates(options));
  const ids = options.commodities ?? catalog.commodities.map((c) => c.entry.id);
  for (const id of ids) {
    const c = catalog.byId(id);
    if (!c) throw new Error(`demo: unknown commodity "${id}"`);
    yield* commodityItems(c, days, cotDates, first, last, options);
  }
}

/** generateDemoItems as an AsyncGenerator, like every other adapter. */
export async function* generateDemo(options: DemoOptions = {}): AsyncGenerator<SourceItem> {
  let n = 0;
  for (const item of generateDemoItems(options)) {
    yield item;
    // let other work run now and then during a long generation
    if (++n % 10_000 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function* commodityItems(
  c: CommodityDefinition,
  days: readonly { iso: string; dow: number }[],
  cotDates: ReadonlySet<string>,
  first: number,
  last: number,
  options: DemoOptions,
): Generator<SourceItem> {
  const validate = options.validate ?? false;
  const id = c.entry.id;
  const unit = c.entry.unit;
  const rnd = createRandom(hashSeed(`${options.seed ?? 'cds-demo'}:${id}`));
  const p = demoOf(c);
  if (p === undefined) throw new Error(`catalog: ${id} has no demo parameters (sources.demo)`);
  const tick = c.entry.tick_size ?? 0.01;
  const dec = decimalsOf(tick);
  const scale = 10 ** dec;
  const roundTick = (x: number) => Math.round(Math.round(x / tick) * tick * scale) / scale;
  const sigma = p.volatility / Math.sqrt(252);
  const anchor = Math.log(p.start_price);
  let logPrice = anchor;
  let prevClose = roundTick(p.start_price);
  let oi = p.open_interest;
  let sentiment = 0;
  let line = 0;
  const where = { file: FILE, line: 0 };
  // series types real data replaces (a real spot, cash or average price replaces the demo price too)
  const without = new Set(options.without ?? []);
  const replaced = new Set<string>(
    REGISTRY.flatMap((s) => (s.demoPart !== undefined && without.has(s.demoPart.part) ? s.demoPart.replaces(c) : [])),
  );
  // the contract code the real COT reports carry, when a source has one for the commodity
  const contractCode = REGISTRY.map((s) => s.demoPart?.contractCode?.(c)).find((code) => code !== undefined);
  const series = (
    type: SeriesType,
    frequency: Frequency,
    u: string | undefined,
    point: Record<string, number | string>,
  ) => {
    where.line = ++line;
    const basis = type === 'price' ? ('demo' as const) : undefined;
    if (validate) return seriesItem(id, type, frequency, u, point, where, DEMO_SOURCE, basis);
    return {
      kind: 'series' as const,
      commodity_id: id,
      series_type: type,
      frequency,
      ...(u ? { unit: u } : {}),
      source: DEMO_SOURCE,
      ...(basis ? { price_basis: basis } : {}),
      point: point as never,
    };
  };

  for (const day of days) {
    // --- price: mean-reverting log random walk, OHLC consistent and on the tick grid
    logPrice += sigma * rnd.normal() - 0.002 * (logPrice - anchor);
    const close = Math.max(tick, roundTick(Math.exp(logPrice)));
    const open = Math.max(tick, roundTick(prevClose * Math.exp(sigma * 0.3 * rnd.normal())));
    const high = Math.max(
      open,
      close,
      roundTick(Math.max(open, close) * Math.exp(Math.abs(rnd.normal()) * sigma * 0.5)),
    );
    const low = Math.max(
      tick,
      Math.min(open, close, roundTick(Math.min(open, close) * Math.exp(-Math.abs(rnd.normal()) * sigma * 0.5))),
    );
    const ret = Math.log(close / prevClose);
    prevClose = close;
    const volume = Math.max(0, Math.round(p.volume * Math.exp(0.35 * rnd.normal() + 4 * Math.abs(ret))));
    oi = Math.max(100, Math.round(oi * Math.exp(0.01 * rnd.normal() - 0.02 * Math.log(oi / p.open_interest))));
    sentiment = Math.max(-1, Math.min(1, 0.97 * sentiment + 0.1 * rnd.normal() + 3 * ret));

    if (!replaced.has('price')) {
      yield series('price', 'daily', unit, { date: day.iso, value: close, open, high, low, close, volume });
    }
    yield series('volume', 'daily', 'contracts', { date: day.iso, value: volume });
    if (!replaced.has('open_interest'))
      yield series('open_interest', 'daily', 'contracts', { date: day.iso, value: oi });

    if (cotDates.has(day.iso)) {
      // --- weekly COT (Tuesdays, up to the last release), both formats, from the same open interest
      const { legacy, disaggregated } = demoCotRecords(c, contractCode, day.iso, oi, sentiment, rnd);
      where.line = ++line;
      yield validate
        ? cotItem('legacy', id, legacy, where, DEMO_SOURCE)
        : { kind: 'cot', commodity_id: id, format: 'legacy', source: DEMO_SOURCE, record: legacy };
      where.line = ++line;
      yield validate
        ? cotItem('disaggregated', id, disaggregated, where, DEMO_SOURCE)
        : { kind: 'cot', commodity_id: id, format: 'disaggregated', source: DEMO_SOURCE, record: disaggregated };
    }
  }

  // --- fundamentals at their natural frequencies (but those real data replaces)
  for (const fund of p.fundamentals) {
    if (replaced.has(fund.type)) continue;
    const frnd = createRandom(hashSeed(`${options.seed ?? 'cds-demo'}:${id}:${fund.type}`));
    for (const point of fundamentalPoints(fund, frnd, days, first, last))
      yield series(fund.type, fund.frequency === 'weekly' ? 'weekly' : 'monthly', fund.unit, point);
  }
}

/**
 * One week's COT records of a commodity in both formats, from the day's open interest and market
 * sentiment: the groups add up to the open interest.
 */
function demoCotRecords(
  c: CommodityDefinition,
  contractCode: string | undefined,
  date: string,
  oi: number,
  sentiment: number,
  rnd: ReturnType<typeof createRandom>,
) {
  const f = (base: number, swing: number) =>
    Math.round(oi * Math.max(0.005, base + swing * sentiment + 0.01 * rnd.normal()));
  const nrLong = f(0.07, 0);
  const nrShort = f(0.08, 0);
  const ncSpread = f(0.14, 0);
  const ncLong = f(0.24, 0.1);
  const ncShort = f(0.18, -0.1);
  const legacy = {
    report_date: date,
    ...(c.entry.exchange ? { exchange: c.entry.exchange } : {}),
    ...(contractCode ? { contract_code: contractCode } : {}),
    open_interest: oi,
    commercial: { long: oi - ncSpread - nrLong - ncLong, short: oi - ncSpread - nrShort - ncShort },
    non_commercial: { long: ncLong, short: ncShort, spreading: ncSpread },
    non_reportable: { long: nrLong, short: nrShort },
  };
  // disaggregated: the non-commercial traders split into managed money and other reportables,
  // the commercials into producer/merchant and swap dealers; non-reportables are the same
  const mmSpread = Math.round(ncSpread * 0.6);
  const orSpread = ncSpread - mmSpread;
  const mmLong = Math.round(ncLong * 0.65);
  const mmShort = Math.round(ncShort * 0.65);
  const swSpread = f(0.04, 0);
  const swLong = Math.round(legacy.commercial.long * 0.3);
  const swShort = Math.round(legacy.commercial.short * 0.25);
  const disaggregated = {
    report_date: date,
    ...(c.entry.exchange ? { exchange: c.entry.exchange } : {}),
    ...(contractCode ? { contract_code: contractCode } : {}),
    open_interest: oi,
    producer_merchant: {
      long: legacy.commercial.long - swLong - swSpread,
      short: legacy.commercial.short - swShort - swSpread,
    },
    swap_dealer: { long: swLong, short: swShort, spreading: swSpread },
    managed_money: { long: mmLong, short: mmShort, spreading: mmSpread },
    other_reportable: { long: ncLong - mmLong, short: ncShort - mmShort, spreading: orSpread },
  };
  return { legacy, disaggregated };
}

/** The points of one demo fundamental at its frequency: weekly on Fridays, monthly at month end, annual on YYYY-12-31. */
function* fundamentalPoints(
  fund: DemoFundamental,
  frnd: ReturnType<typeof createRandom>,
  days: readonly { iso: string; dow: number }[],
  first: number,
  last: number,
): Generator<{ date: string; value: number }> {
  const round = (x: number) => (fund.base >= 100 ? Math.round(x) : Math.round(x * 100) / 100);
  const season = (dayNumber: number) =>
    1 + (fund.seasonality ?? 0) * Math.sin((2 * Math.PI * (dayNumber % 365.25)) / 365.25);
  let level = 0;
  const step = () => {
    level = 0.9 * level + 0.02 * frnd.normal();
    return Math.exp(level);
  };
  if (fund.frequency === 'weekly') {
    for (const day of days) {
      if (day.dow !== 5) continue;
      yield { date: day.iso, value: round(fund.base * season(dayOfIso(day.iso)) * step()) };
    }
  } else if (fund.frequency === 'monthly') {
    for (let d = first; d <= last; d++) {
      if (isoOfDay(d + 1).slice(8) !== '01') continue; // month end
      yield { date: isoOfDay(d), value: round(fund.base * season(d) * step()) };
    }
  } else {
    const y0 = Number(isoOfDay(first).slice(0, 4));
    const y1 = Number(isoOfDay(last).slice(0, 4));
    for (let y = y0; y <= y1; y++) {
      const iso = `${y}-12-31`;
      const d = dayOfIso(iso);
      if (d < first || d > last) continue;
      yield { date: iso, value: round(fund.base * step()) };
    }
  }
}
