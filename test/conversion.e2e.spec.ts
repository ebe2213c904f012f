// Prices in the user's currency and unit (docs/conversion.md) through the real pipeline: the bundled
// snapshot (`ingest backfill --snapshot data/snapshot`: EIA, NASS, World Bank and the euro reference
// rates) -> NATS -> projector -> FerretDB -> query -> gateway. Every expected number is computed
// here, from the ECB's own history file (a byte-for-byte excerpt, test/fixtures/SOURCES.md, read
// by a small parser in this file, not the product's) and from the series fetched unconverted from
// the API, with the measures written out from their definitions: never through the product's
// conversion code or its tables. Every answer through e2e.get is validated against the OpenAPI
// document by the harness.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { subjectFor, type DataEvent } from '@cds/contracts';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { REPO_ROOT } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startE2E, type ApiResponse, type E2E } from './support/harness.ts';
import { spawnIngest } from './support/ingest-child.ts';
import { waitForProjections } from './support/projections.ts';

const SNAPSHOT = join(REPO_ROOT, 'data', 'snapshot');
const RATES_FILE = join(REPO_ROOT, 'test', 'fixtures', 'eurofxref-hist_2025-01-02_2026-04-13_excerpt.csv');
const API = '/api/v1/commodities';
/** The snapshot load ends within this (a hung child is killed and the suite fails). */
const INGEST_DEADLINE_MS = 180_000;

// --- the measures, from their definitions (not the product's table) --------------------------------

/** The international pound (kg), the troy ounce (g), the US oil barrel of 42 US gallons (m³), the MMBtu (GJ). */
const LB_KG = 0.45359237;
const TROY_OZ_G = 31.1034768;
const BBL_M3 = 42 * 0.003785411784;
const MMBTU_GJ = 1.05505585262;
/** USDA's standard bushel weights: a metric ton is 1000 / (56 × 0.45359237) = 39.368 bushels of corn, 36.744 of soybeans. */
const BU_PER_T = { CORN: 1000 / (56 * LB_KG), SOYBEANS: 1000 / (60 * LB_KG) };

// --- the ECB's file, read here ----------------------------------------------------------------------

/** Units of each currency per one euro, by day, as the file states them (`N/A` or empty: no rate). */
function readEcbHistory(text: string): Map<string, Map<string, number>> {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = lines[0]!.split(',').map((h) => h.trim());
  const dateAt = header.indexOf('Date');
  const out = new Map<string, Map<string, number>>();
  for (const line of lines.slice(1)) {
    const cells = line.split(',').map((c) => c.trim());
    const date = cells[dateAt]!;
    header.forEach((ccy, i) => {
      if (!/^[A-Z]{3}$/.test(ccy) || cells[i] === 'N/A' || cells[i] === '' || cells[i] === undefined) return;
      if (!out.has(ccy)) out.set(ccy, new Map());
      out.get(ccy)!.set(date, Number(cells[i]));
    });
  }
  return out;
}
const ECB = readEcbHistory(readFileSync(RATES_FILE, 'utf8'));

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
/** The instant a day's rates were published: 16:00 Frankfurt (CET, UTC+1, in the winter dates used here). */
const publishedAtWinter = (date: string) => Date.parse(`${date}T15:00:00Z`);

/** A currency's rate on a day (units per euro), the euro itself 1; undefined on a day without one (or not yet published). */
function rateOn(ccy: string, date: string, asOf = Infinity): number | undefined {
  if (ccy === 'EUR') return 1;
  if (publishedAtWinter(date) > asOf) return undefined;
  return ECB.get(ccy)?.get(date);
}

/** The daily rule: the cross rate (to ÷ from) of the point's day, else of the latest earlier day at most 5 days back. */
function dailyRate(from: string, to: string, date: string, asOf = Infinity) {
  for (let back = 0; back <= 5; back += 1) {
    const day = addDays(date, -back);
    const f = rateOn(from, day, asOf);
    const t = rateOn(to, day, asOf);
    if (f !== undefined && t !== undefined) return { rate: t / f, date: day, carried: back > 0 };
  }
  return undefined;
}

/** The monthly rule: the average of the month's daily cross rates (to ÷ from). */
function monthlyRate(from: string, to: string, month: string): number | undefined {
  const rates: number[] = [];
  for (let day = `${month}-01`; day.startsWith(month); day = addDays(day, 1)) {
    const f = rateOn(from, day);
    const t = rateOn(to, day);
    if (f !== undefined && t !== undefined) rates.push(t / f);
  }
  return rates.length === 0 ? undefined : rates.reduce((a, b) => a + b, 0) / rates.length;
}

// --- calling the API ----------------------------------------------------------------------------------

interface Point {
  date: string;
  value: number | null;
  fx_rate?: number;
  fx_rate_date?: string;
  [k: string]: unknown;
}

let e2e: E2E;
let messaging: Messaging;
let key: string;

async function series(slug: string, query: string, headers?: Record<string, string>): Promise<ApiResponse> {
  const res = await e2e.get(`${API}/${slug}/series?type=price&${query}`, { key, ...(headers ? { headers } : {}) });
  expect(res.status, `${slug} ${query}: ${res.text.slice(0, 300)}`).toBe(200);
  return res;
}

/** The unconverted points of a range, by date (what the source published). */
async function raw(slug: string, range: string): Promise<Map<string, number>> {
  const res = await series(slug, range);
  return new Map((res.json.data as Point[]).map((p) => [p.date, p.value as number]));
}

/** Converted values and rates are served to 8 significant digits (services/query/src/series/rates.ts). */
const SIGNIFICANT = 8;

/** Equal to the expected number within half a unit of its last served digit (the rounding, nothing more). */
function expectNear(actual: unknown, expected: number, what: string): void {
  expect(typeof actual, `${what}: ${String(actual)}`).toBe('number');
  const halfUnit = 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(expected))) - (SIGNIFICANT - 1));
  const ok = Math.abs((actual as number) - expected) <= halfUnit * (1 + 1e-9);
  expect(ok, `${what}: served ${String(actual)}, expected ${expected}`).toBe(true);
}

async function expect400(path: string, param: string, names?: string): Promise<void> {
  const res = await e2e.get(`${API}/${path}`, { key });
  expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(400);
  expect(res.json.error.code, path).toBe('invalid_parameter');
  expect(res.json.error.param, `${path}: ${res.json.error.message}`).toBe(param);
  if (names !== undefined) expect(res.json.error.message, path).toContain(names);
}

/** The CSV's header and rows, by the header's names. */
function csvRows(text: string): Record<string, string>[] {
  const [head, ...rows] = text.split('\r\n').filter((l) => l !== '');
  const names = head!.split(',');
  return rows.map((r) => Object.fromEntries(r.split(',').map((cell, i) => [names[i]!, cell])));
}

/** The snapshot's rows of a price series, by date (the values the source published). */
function snapshotPrices(commodity: string): Map<string, number> {
  const text = gunzipSync(readFileSync(join(SNAPSHOT, 'series.csv.gz'))).toString('utf8');
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${commodity},price,`)) continue;
    const m = /,(\d{4}-\d{2}-\d{2}),([^,]+)$/.exec(line);
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

// --- the as_of case: a version of a real WTI price published before that day's rates -------------------

/**
 * WTI on Friday 2026-01-02 as EIA published it (the snapshot's value), in a version stamped 13:00 UTC
 * that day (as a user's import of the day's bar would be): before the day's rates (16:00 Frankfurt,
 * 15:00 UTC). The day before a TARGET day's rates, the previous one's (2025-12-31) are the latest.
 */
const EARLY_DATE = '2026-01-02';
const EARLY_AT = '2026-01-02T13:00:00.000Z';
// From the day itself: the snapshot's December prices count from their weekly reports under as_of
// (docs/point-in-time.md, estimated first releases), so as of 2 January they are known too.
const EARLY_RANGE = 'start_date=2026-01-02&end_date=2026-01-31';

function earlyVersion(value: number): DataEvent {
  return {
    id: 'conversion-e2e-early-wti',
    type: 'series.points.recorded',
    version: 1,
    occurred_at: new Date().toISOString(),
    source: 'e2e',
    data: {
      commodity_id: 'CRUDE_OIL_WTI',
      series_type: 'price',
      frequency: 'daily',
      unit: 'USD/bbl',
      source: 'eia:RWTC',
      price_basis: 'spot',
      published_at: EARLY_AT,
      published_at_estimated: true,
      period: '2026',
      points: [{ date: EARLY_DATE, value }],
    },
  };
}

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'conversion-e2e' });
  key = (await e2e.account('enterprise')).key;
  // The snapshot without its supply and demand editions (none is that recent) and with the rates from
  // December 2024 on (a month before the first this file converts with): the file's run stays short.
  const load = spawnIngest(
    ['backfill', '--snapshot', SNAPSHOT, '--editions-since', '2099-12', '--rates-since', '2024-12', '--quiet'],
    { natsUrl: e2e.infra.identities.nats.ingest },
  );
  const timer = setTimeout(() => load.child.kill('SIGKILL'), INGEST_DEADLINE_MS);
  const run = await load.result.finally(() => clearTimeout(timer));
  expect(run.code, run.out).toBe(0);
  const early = earlyVersion(snapshotPrices('CRUDE_OIL_WTI').get(EARLY_DATE)!);
  await messaging.publish(subjectFor(early), early, { msgID: early.id });
  await waitForProjections(messaging, 120_000);
  await eventually(
    'the early WTI version served',
    async () => {
      const early = await e2e.get(`${API}/CRUDE_OIL_WTI/series?type=price&${EARLY_RANGE}&as_of=${EARLY_AT}`, {
        key,
        validate: false,
      });
      return early.json?.data?.length === 1;
    },
    60_000,
  );
}, 300_000);

afterAll(async () => {
  await messaging?.close();
  await e2e?.stop();
});

// --- the tests ----------------------------------------------------------------------------------------

describe('currency: each point at the rate of its own date', () => {
  const RANGE = 'start_date=2025-04-01&end_date=2026-05-08';

  it('a daily USD price in EUR: the day’s rate, carried at most 5 days (fx_rate_date says which), then null', async () => {
    const usd = await raw('CRUDE_OIL_WTI', RANGE);
    const res = await series('CRUDE_OIL_WTI', `${RANGE}&currency=EUR`);
    const points = res.json.data as Point[];
    expect(points.map((p) => p.date)).toEqual([...usd.keys()]);
    let carried = 0;
    let missing = 0;
    for (const p of points) {
      const r = dailyRate('USD', 'EUR', p.date);
      if (r === undefined) {
        missing += 1;
        expect(p.value, p.date).toBeNull();
        expect(p.fx_rate, p.date).toBeUndefined();
        continue;
      }
      if (r.carried) carried += 1;
      expectNear(p.value, usd.get(p.date)! * r.rate, p.date);
      expectNear(p.fx_rate, r.rate, `${p.date} fx_rate`);
      // only a carried rate names its date
      expect(p.fx_rate_date, p.date).toBe(r.carried ? r.date : undefined);
    }
    const on = (date: string) => points.find((p) => p.date === date)!;
    // Easter Monday 2025 and 26 December 2025 (TARGET holidays): the Thursday's and the 24th's rates
    expect(on('2025-04-21').fx_rate_date).toBe('2025-04-17');
    expect(on('2025-12-26').fx_rate_date).toBe('2025-12-24');
    expect(on('2026-04-06').fx_rate_date).toBe('2026-04-02');
    // the snapshot's rates end 2026-04-13: carried to Friday the 17th, none from Monday the 20th
    expect(on('2026-04-17').fx_rate_date).toBe('2026-04-13');
    expect(on('2026-04-20').value).toBeNull();
    expect(carried).toBeGreaterThan(5);
    expect(missing).toBeGreaterThan(10);
    const meta = res.json.meta;
    expect(meta.unit).toBe('EUR/bbl');
    expect(meta.conversion).toMatchObject({
      from: { unit: 'USD/bbl', currency: 'USD' },
      to: { unit: 'EUR/bbl', currency: 'EUR' },
    });
    expect(meta.conversion.unit).toBeUndefined();
    expect(meta.conversion.currency).toMatchObject({
      from: 'USD',
      to: 'EUR',
      rates: ['USD/EUR'],
      rule: 'daily',
      carried,
      missing,
      attribution: 'Source: ECB statistics',
    });
    expect(meta.conversion.currency.source).toMatch(/^ecb:USD\b/);
    expect(meta.conversion.currency.note).toMatch(/derived/i);
  });

  it('through the euro cross: USD to GBP = value × GBP/EUR ÷ USD/EUR of each date', async () => {
    const range = 'start_date=2025-04-01&end_date=2025-06-30';
    const usd = await raw('CRUDE_OIL_WTI', range);
    const res = await series('CRUDE_OIL_WTI', `${range}&currency=GBP`);
    for (const p of res.json.data as Point[]) {
      const gbp = ECB.get('GBP')!;
      const r = dailyRate('USD', 'GBP', p.date)!;
      expectNear(p.value, (usd.get(p.date)! * gbp.get(r.date)!) / ECB.get('USD')!.get(r.date)!, p.date);
      expect(p.fx_rate_date, p.date).toBe(r.date === p.date ? undefined : r.date);
    }
    expect(res.json.meta.unit).toBe('GBP/bbl');
    expect([...res.json.meta.conversion.currency.rates].sort()).toEqual(['GBP/EUR', 'USD/EUR']);
  });

  it('a monthly price at the average of its month’s daily rates; a month without rates is null', async () => {
    const range = 'start_date=2025-01-01&end_date=2026-05-31';
    const usd = await raw('GOLD', range);
    const res = await series('GOLD', `${range}&currency=EUR`);
    let missing = 0;
    for (const p of res.json.data as Point[]) {
      const m = monthlyRate('USD', 'EUR', p.date.slice(0, 7));
      if (m === undefined) {
        missing += 1;
        expect(p.value, p.date).toBeNull();
        continue;
      }
      expectNear(p.value, usd.get(p.date)! * m, p.date);
      expectNear(p.fx_rate, m, `${p.date} fx_rate`);
      expect(p.fx_rate_date, p.date).toBeUndefined();
    }
    expect(missing).toBe(1); // May 2026
    expect(res.json.meta.conversion.currency).toMatchObject({ rule: 'monthly_average', carried: 0, missing });
  });

  it('no look-ahead: as_of before a day’s rates were published converts that day with the earlier rate', async () => {
    const range = `${EARLY_RANGE}&currency=EUR`;
    const value = snapshotPrices('CRUDE_OIL_WTI').get(EARLY_DATE)!;
    const before = await series('CRUDE_OIL_WTI', `${range}&as_of=2026-01-02T14:30:00Z`);
    const carried = dailyRate('USD', 'EUR', EARLY_DATE, Date.parse('2026-01-02T14:30:00Z'))!;
    expect(carried.date).toBe('2025-12-31');
    // only the early version had been published by then
    expect(before.json.data).toHaveLength(1);
    const [then] = before.json.data as Point[];
    expect(then!.fx_rate_date).toBe('2025-12-31');
    expectNear(then!.value, value * carried.rate, 'as of 14:30 UTC');
    expect(before.json.meta.conversion.currency).toMatchObject({ carried: 1, missing: 0 });
  });

  // A year's rates are one event stamped at its last TARGET day (2026's at the snapshot's build), yet a
  // day's rate is known from its own 16:00 Frankfurt (services/query/src/series/first-release.ts).
  it('as_of after a day’s rates were published converts that day with its own rate', async () => {
    const range = `${EARLY_RANGE}&currency=EUR`;
    const value = snapshotPrices('CRUDE_OIL_WTI').get(EARLY_DATE)!;
    const after = await series('CRUDE_OIL_WTI', `${range}&as_of=2026-01-02T15:30:00Z`);
    const [now] = after.json.data as Point[];
    // the day's own rate: no fx_rate_date
    expect(now!.fx_rate_date).toBeUndefined();
    expect(now!.fx_rate).toBeDefined();
    expectNear(now!.value, value / ECB.get('USD')!.get(EARLY_DATE)!, 'as of 15:30 UTC');
  });

  it('converts the observations before resampling: a monthly point is its last day at that day’s rate', async () => {
    const range = 'start_date=2025-04-01&end_date=2025-12-31&currency=EUR';
    const daily = new Map(((await series('CRUDE_OIL_WTI', range)).json.data as Point[]).map((p) => [p.date, p.value]));
    const monthly = await series('CRUDE_OIL_WTI', `${range}&frequency=monthly`);
    expect(monthly.json.data).toHaveLength(9);
    for (const p of monthly.json.data as Point[]) expect(p.value, p.date).toBe(daily.get(p.date));
    expect(monthly.json.meta.conversion.currency.rule).toBe('daily');
  });

  it('transforms work on the converted values: a change from or to a null is null, a cumulative sum null from it on', async () => {
    const query = 'end_date=2026-04-30&currency=EUR';
    const daily = (await series('CRUDE_OIL_WTI', `start_date=2026-03-16&${query}`)).json.data as Point[];
    const range = `start_date=2026-03-30&${query}`;
    const change = (await series('CRUDE_OIL_WTI', `${range}&transform=change`)).json.data as Point[];
    expect(change.map((p) => p.date)).toEqual(daily.filter((p) => p.date >= '2026-03-30').map((p) => p.date));
    for (const p of change) {
      const i = daily.findIndex((d) => d.date === p.date);
      const [prev, cur] = [daily[i - 1]!.value, daily[i]!.value];
      if (prev === null || cur === null) expect(p.value, p.date).toBeNull();
      else expect(p.value, p.date).toBeCloseTo(cur - prev, 5);
    }
    expect(change.filter((p) => p.value === null).length).toBeGreaterThan(0);
    const cumulative = (await series('CRUDE_OIL_WTI', `${range}&transform=cumulative`)).json.data as Point[];
    const firstNull = daily.find((p) => p.value === null)!.date;
    for (const p of cumulative) if (p.date >= firstNull) expect(p.value, p.date).toBeNull();
    expect(cumulative[0]!.value).not.toBeNull();
  });

  it('the same currency: values unchanged, no rate series', async () => {
    const range = 'start_date=2025-04-01&end_date=2025-04-30';
    const usd = await raw('CRUDE_OIL_WTI', range);
    const res = await series('CRUDE_OIL_WTI', `${range}&currency=USD`);
    for (const p of res.json.data as Point[]) expect(p.value, p.date).toBe(usd.get(p.date));
    expect(res.json.meta.unit).toBe('USD/bbl');
    // nothing to convert: no rate used, none listed
    expect(res.json.meta.conversion.currency?.rates ?? []).toEqual([]);
  });
});

describe('unit: the physical measure, per commodity', () => {
  const MONTHS = 'start_date=2025-01-01&end_date=2026-06-30';

  it('corn (56 lb) and soybeans (60 lb) in USD/t; corn in USc/bu', async () => {
    for (const slug of ['CORN', 'SOYBEANS'] as const) {
      const usd = await raw(slug, MONTHS);
      const res = await series(slug, `${MONTHS}&unit=t`);
      for (const p of res.json.data as Point[])
        expectNear(p.value, usd.get(p.date)! * BU_PER_T[slug], `${slug} ${p.date}`);
      expect(res.json.meta.unit).toBe('USD/t');
      expectNear(res.json.meta.conversion.unit.factor, BU_PER_T[slug], `${slug} factor`);
      expect(res.json.meta.conversion.unit.working).toContain(slug === 'CORN' ? '56 lb' : '60 lb');
      expect(res.json.meta.conversion.currency).toBeUndefined();
      expect(res.json.data.some((p: Point) => 'fx_rate' in p)).toBe(false);
    }
    const usd = await raw('CORN', MONTHS);
    const cents = await series('CORN', `${MONTHS}&unit=USc/bu`);
    for (const p of cents.json.data as Point[]) expectNear(p.value, usd.get(p.date)! * 100, `USc ${p.date}`);
    expect(cents.json.meta.unit).toBe('USc/bu');
  });

  it('WTI in USD/m3: a barrel is 42 US gallons', async () => {
    const range = 'start_date=2025-04-01&end_date=2025-05-30';
    const wti = await raw('CRUDE_OIL_WTI', range);
    const m3 = await series('CRUDE_OIL_WTI', `${range}&unit=m3`);
    for (const p of m3.json.data as Point[]) expectNear(p.value, wti.get(p.date)! / BBL_M3, `m3 ${p.date}`);
    expect(m3.json.meta.unit).toBe('USD/m3');
    expectNear(m3.json.meta.conversion.unit.factor, 1 / BBL_M3, 'bbl to m3');
    expect(m3.json.meta.conversion.currency).toBeUndefined();
  });

  it('corn in EUR/t: the bushel factor times the month’s average rate', async () => {
    const usd = await raw('CORN', MONTHS);
    const res = await series('CORN', `${MONTHS}&unit=EUR/t`);
    let missing = 0;
    for (const p of res.json.data as Point[]) {
      const m = monthlyRate('USD', 'EUR', p.date.slice(0, 7));
      if (m === undefined) {
        missing += 1;
        expect(p.value, p.date).toBeNull();
      } else expectNear(p.value, usd.get(p.date)! * BU_PER_T.CORN * m, p.date);
    }
    expect(missing).toBe(2); // May and June 2026: after the snapshot's rates
    expect(res.json.meta).toMatchObject({
      unit: 'EUR/t',
      conversion: {
        from: { unit: 'USD/bu', currency: 'USD' },
        to: { unit: 'EUR/t', currency: 'EUR' },
        currency: { rule: 'monthly_average', missing, attribution: 'Source: ECB statistics' },
      },
    });
  });

  it('gold in EUR/g and natural gas in EUR/GJ: the measure’s factor and the rate of each point', async () => {
    const range = 'start_date=2025-04-01&end_date=2025-05-30';
    const gold = await raw('GOLD', MONTHS);
    const g = await series('GOLD', `${MONTHS}&unit=EUR/g`);
    for (const p of g.json.data as Point[]) {
      const m = monthlyRate('USD', 'EUR', p.date.slice(0, 7));
      if (m === undefined) expect(p.value, p.date).toBeNull();
      else expectNear(p.value, (gold.get(p.date)! / TROY_OZ_G) * m, `gold ${p.date}`);
    }
    expect(g.json.meta.unit).toBe('EUR/g');
    expectNear(g.json.meta.conversion.unit.factor, 1 / TROY_OZ_G, 'troy oz to g');

    const gas = await raw('NATURAL_GAS', range);
    const gj = await series('NATURAL_GAS', `${range}&unit=GJ&currency=EUR`);
    for (const p of gj.json.data as Point[]) {
      const r = dailyRate('USD', 'EUR', p.date)!;
      expectNear(p.value, (gas.get(p.date)! / MMBTU_GJ) * r.rate, `gas ${p.date}`);
    }
    expect(gj.json.meta.unit).toBe('EUR/GJ');
    expectNear(gj.json.meta.conversion.unit.factor, 1 / MMBTU_GJ, 'MMBtu to GJ');
  });
});

describe('CSV, refusals, and the unconverted answer', () => {
  it('CSV: the same numbers as the JSON, an empty cell for null, a file name that says the conversion', async () => {
    const query = 'start_date=2026-03-30&end_date=2026-05-08&currency=EUR';
    const json = await series('CRUDE_OIL_WTI', query);
    const csv = await series('CRUDE_OIL_WTI', query, { accept: 'text/csv' });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toBe(
      'attachment; filename="CRUDE_OIL_WTI-series-price-2026-03-30_2026-05-08-EUR.csv"',
    );
    const rows = csvRows(csv.text);
    expect(Object.keys(rows[0]!)).not.toContain('fx_rate');
    expect(rows.map((r) => r.date)).toEqual(json.json.data.map((p: Point) => p.date));
    for (const [i, p] of (json.json.data as Point[]).entries()) {
      expect(rows[i]!.value, p.date).toBe(p.value === null ? '' : String(p.value));
    }
    expect(rows.some((r) => r.value === '')).toBe(true);
    const unit = await series('CORN', 'start_date=2025-01-01&end_date=2025-12-31&unit=USc/bu', { accept: 'text/csv' });
    expect(unit.headers.get('content-disposition')).toBe(
      'attachment; filename="CORN-series-price-2025-01-01_2025-12-31-unit-USc_per_bu.csv"',
    );
  });

  it('lists no rate series among the commodities (they are series the conversion reads, not commodities)', async () => {
    const ids: string[] = [];
    for (let page = 1; page <= 10; page += 1) {
      const res = await e2e.get(`${API}?per_page=100&page=${page}`, { key });
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      ids.push(...res.json.data.map((c: { id: string }) => c.id));
      if (res.json.data.length < 100) break;
    }
    expect(ids).toContain('CRUDE_OIL_WTI');
    expect(ids.filter((id) => id.startsWith('FX_'))).toEqual([]);
    const search = await e2e.get(`${API}?search=FX_EUR`, { key });
    expect(search.json.data).toEqual([]);
  });

  it('refuses with a 400 naming the parameter', async () => {
    const wti = 'CRUDE_OIL_WTI/series?type=price';
    await expect400(`${wti}&currency=XYZ`, 'currency', 'XYZ');
    await expect400(`${wti}&currency=usd`, 'currency');
    await expect400('CORN/series?type=open_interest&currency=EUR', 'currency');
    await expect400('GOLD/series?type=price&unit=bu', 'unit');
    await expect400(`${wti}&unit=t`, 'unit');
    await expect400(`${wti}&unit=furlong`, 'unit', 'furlong');
    await expect400('CORN/series?type=price&unit=EUR/t&currency=GBP', 'unit');
  });

  it('leaves the unconverted answer as it was: no conversion, no fx_rate, the source’s numbers', async () => {
    const range = 'start_date=2026-03-30&end_date=2026-05-08';
    const res = await series('CRUDE_OIL_WTI', range);
    expect(res.json.meta.unit).toBe('USD/bbl');
    expect('conversion' in res.json.meta).toBe(false);
    const snapshot = snapshotPrices('CRUDE_OIL_WTI');
    const before = new Set([
      'date',
      'value',
      'open',
      'high',
      'low',
      'close',
      'volume',
      'published_at',
      'first_seen_at',
      'published_at_estimated',
    ]);
    for (const p of res.json.data as Point[]) {
      expect(
        Object.keys(p).filter((k) => !before.has(k)),
        p.date,
      ).toEqual([]);
      expect(p.value, p.date).toBe(snapshot.get(p.date));
    }
    const csv = await series('CRUDE_OIL_WTI', range, { accept: 'text/csv' });
    expect(csv.text.split('\r\n')[0]).toBe('date,value,open,high,low,close,volume');
    expect(csv.headers.get('content-disposition')).toBe(
      'attachment; filename="CRUDE_OIL_WTI-series-price-2026-03-30_2026-05-08.csv"',
    );
  });
});
