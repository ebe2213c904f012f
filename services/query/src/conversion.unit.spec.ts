import { beforeEach, describe, expect, it } from 'vitest';
import { createResponseCache } from '@cds/response-cache';
import { foldRelease, type SeriesBucketDoc, type StoredPoint, type VersionedParts } from '@cds/read-models';
import { buildApp } from './app.ts';
import {
  catalogDoc,
  createFakeRepository,
  createQueryResponseValidator,
  descriptorOf,
  seriesBuckets,
  type FakeRepository,
} from './testing/index.ts';

// Currency and unit on the series endpoint (docs/conversion.md), through the app over the fake repository.
const NOW = '2026-04-20T12:00:00.000Z';
const validate = createQueryResponseValidator();

const wheat: StoredPoint[] = [
  { d: '2026-04-01', v: 5, o: 4.9, h: 5.1, l: 4.8, c: 5, vol: 7 },
  { d: '2026-04-02', v: 6 },
  { d: '2026-04-06', v: 6 }, // Easter Monday: no rate, carried from 2 April (4 days back)
  { d: '2026-04-07', v: 6 },
  { d: '2026-04-13', v: 6, o: 5.9, h: 6.1, l: 5.8, c: 6, vol: 3 }, // the rates stop on the 7th: 6 days, null
];
const usd: StoredPoint[] = [
  { d: '2026-04-01', v: 1.1 },
  { d: '2026-04-02', v: 1.2 },
  { d: '2026-04-07', v: 1.25 },
];
const cad: StoredPoint[] = [
  { d: '2026-04-01', v: 1.5 },
  { d: '2026-04-02', v: 1.6 },
  { d: '2026-04-07', v: 1.75 },
];
const canola: StoredPoint[] = [{ d: '2026-04-07', v: 700 }];
const monthly: StoredPoint[] = [{ d: '2026-04-01', v: 100 }];
const production: StoredPoint[] = [{ d: '2026-04-01', v: 1000 }];

/** A rate bucket published in two releases: 1 and 2 April on the 2nd at 14:00 UTC, the 7th on the 7th. */
function rateBucket(id: string, points: StoredPoint[]): SeriesBucketDoc {
  let parts: VersionedParts<StoredPoint> = { current: [], revised: [], releases: [] };
  const release = (at: string) => ({ publishedAt: at, firstSeenAt: at, estimated: true });
  parts = foldRelease(parts, release('2026-04-02T14:00:00.000Z'), points.slice(0, 2), {
    dateOf: (p) => p.d,
    same: (a, b) => a.v === b.v,
  });
  parts = foldRelease(parts, release('2026-04-07T14:00:00.000Z'), points.slice(2), {
    dateOf: (p) => p.d,
    same: (a, b) => a.v === b.v,
  });
  const [bucket] = seriesBuckets(id, 'price', parts.current, { unit: `${id.slice(-3)}/EUR` });
  return { ...bucket!, revised: parts.revised, releases: parts.releases };
}

function rateDoc(ccy: string, points: StoredPoint[]) {
  return catalogDoc(`FX_EUR_${ccy}`, {
    listed: false,
    series: [
      {
        ...descriptorOf('price', points, 'daily', `${ccy}/EUR`),
        source: `ecb:${ccy}`,
        first_published_at: '2026-04-02T14:00:00.000Z',
      },
    ],
  });
}

let repo: FakeRepository;
let app: ReturnType<typeof buildApp>;

beforeEach(() => {
  repo = createFakeRepository({
    catalog: [
      catalogDoc('WHEAT', {
        category: 'agriculture',
        series: [
          {
            ...descriptorOf('price', wheat, 'daily', 'USD/bu'),
            source: 'demo',
            first_published_at: '2026-04-01T00:00:00.000Z',
          },
          descriptorOf('production', production, 'monthly', 'thousand bu'),
        ],
      }),
      catalogDoc('CANOLA', { category: 'agriculture', series: [descriptorOf('price', canola, 'daily', 'CAD/t')] }),
      catalogDoc('COPPER', { series: [descriptorOf('price', monthly, 'monthly', 'USD/mt')] }),
      catalogDoc('GOLD', { series: [descriptorOf('price', monthly, 'monthly', 'USD/troy oz')] }),
      rateDoc('USD', usd),
      rateDoc('CAD', cad),
    ],
    series: [
      ...seriesBuckets('WHEAT', 'price', wheat, { unit: 'USD/bu' }),
      ...seriesBuckets('WHEAT', 'production', production, { frequency: 'monthly', unit: 'thousand bu' }),
      ...seriesBuckets('CANOLA', 'price', canola, { unit: 'CAD/t' }),
      ...seriesBuckets('COPPER', 'price', monthly, { frequency: 'monthly', unit: 'USD/mt' }),
      ...seriesBuckets('GOLD', 'price', monthly, { frequency: 'monthly', unit: 'USD/troy oz' }),
      rateBucket('FX_EUR_USD', usd),
      rateBucket('FX_EUR_CAD', cad),
    ],
  });
  app = buildApp({
    repository: repo,
    cache: createResponseCache({ maxEntries: 100, maxBytes: 10_000_000, ttlMs: 60_000 }),
    publicBaseUrl: 'https://api.example.com',
    checkResponses: true,
    clock: () => new Date(NOW),
  });
});

async function get(path: string, headers: Record<string, string> = {}) {
  const url = `/api/v1/commodities/${path}`;
  const res = await app.inject({ method: 'GET', url, headers });
  validate(url, res);
  return { status: res.statusCode, body: res.json(), headers: res.headers, raw: res.body };
}

const RANGE = 'start_date=2026-04-01&end_date=2026-04-13';

describe('currency on a daily price', () => {
  it('converts each point with its date’s rate, carries at most 5 days, and says how', async () => {
    const res = await get(`WHEAT/series?type=price&${RANGE}&currency=EUR&unit=t`);
    expect(res.status, res.raw).toBe(200);
    const perTonne = 1000 / (60 * 0.45359237);
    const values = res.body.data.map((p: { value: number | null }) => p.value);
    expect(values[0]).toBeCloseTo((5 * perTonne) / 1.1, 4);
    expect(values[2]).toBeCloseTo((6 * perTonne) / 1.2, 4);
    expect(values[4]).toBeNull();
    expect(res.body.data[0]).toMatchObject({
      date: '2026-04-01',
      fx_rate: 0.90909091, // 1 / 1.1 to 8 significant digits
      volume: 7,
    });
    // the rate of its own date: no fx_rate_date; a carried point names its rate's date
    expect(res.body.data[0]).not.toHaveProperty('fx_rate_date');
    expect(res.body.data[0].open).toBeCloseTo((4.9 * perTonne) / 1.1, 4);
    expect(res.body.data[2]).toMatchObject({ date: '2026-04-06', fx_rate_date: '2026-04-02' });
    expect(res.body.data[4]).toEqual({ date: '2026-04-13', value: null, volume: 3 });
    expect(res.body.meta.unit).toBe('EUR/t');
    expect(res.body.meta.conversion).toEqual({
      from: { unit: 'USD/bu', currency: 'USD' },
      to: { unit: 'EUR/t', currency: 'EUR' },
      unit: {
        from: 'USD/bu',
        to: 'EUR/t',
        factor: perTonne,
        working: '1 t = 36.7437 bu of 60 lb (0.45359237 kg/lb): price per t = price per bu × 36.7437',
      },
      currency: {
        from: 'USD',
        to: 'EUR',
        rates: ['USD/EUR'],
        rule: 'daily',
        carried: 1,
        missing: 1,
        source: 'ecb:USD',
        attribution: 'Source: ECB statistics',
        note: expect.stringContaining('derived data') as unknown,
      },
    });
    // the series' own provenance stays the answer's
    expect(res.body.meta.source).toBe('demo');
  });

  it('writes an empty CSV cell for a point without a rate, and names the file after the conversion', async () => {
    const res = await app.inject({
      method: 'GET',
      url: `/api/v1/commodities/WHEAT/series?type=price&${RANGE}&currency=EUR`,
      headers: { accept: 'text/csv' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const lines = res.body.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^2026-04-13,,/);
    expect(lines.join('\n')).not.toContain('fx_rate');
    expect(res.headers['content-disposition']).toContain('EUR');
  });

  it('converts through the euro cross (CAD to USD: both rates of the day)', async () => {
    const res = await get('CANOLA/series?type=price&start_date=2026-04-07&end_date=2026-04-07&currency=USD');
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data[0].value).toBeCloseTo((700 * 1.25) / 1.75, 4);
    expect(res.body.meta.conversion.currency).toMatchObject({ from: 'CAD', to: 'USD', rates: ['CAD/EUR', 'USD/EUR'] });
    expect(res.body.meta.unit).toBe('USD/t');
  });

  it('uses no rate published after as_of', async () => {
    const res = await get(`WHEAT/series?type=price&${RANGE}&currency=EUR&as_of=2026-04-07T12:00:00Z`);
    expect(res.status, res.raw).toBe(200);
    // the 7 April rate came at 14:00: the 7th carries the 2nd's (5 days), the 13th has none
    expect(res.body.data[3]).toMatchObject({ date: '2026-04-07', fx_rate_date: '2026-04-02' });
    expect(res.body.meta.conversion.currency).toMatchObject({ carried: 2, missing: 1 });
  });

  it('knows a day’s rate from its own 16:00 Frankfurt, not from the later stamp of the release that carried it', async () => {
    // 1 and 2 April came in one release stamped 2 April 14:00 UTC (as a backfilled year is stamped at its last day)
    const res = await get(
      'WHEAT/series?type=price&start_date=2026-04-01&end_date=2026-04-02&currency=EUR&as_of=2026-04-02T10:00:00Z',
    );
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data[0]).toMatchObject({ date: '2026-04-01', value: 4.5454545 });
    expect(res.body.data[0]).not.toHaveProperty('fx_rate_date');
    // the 2nd's own rate comes at 16:00 Frankfurt (14:00 UTC): at 10:00 the 1st's is carried
    expect(res.body.data[1]).toMatchObject({ date: '2026-04-02', fx_rate_date: '2026-04-01' });
    expect(res.body.meta.conversion.currency).toMatchObject({ carried: 1, missing: 0 });
  });

  it('converts before resampling: a weekly value is the last day’s converted close; a null stays null', async () => {
    const res = await get(`WHEAT/series?type=price&${RANGE}&currency=EUR&frequency=weekly`);
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data.map((p: { value: number | null }) => p.value)).toEqual([6 / 1.2, 6 / 1.25, null]);
  });

  it('a transform of a null value is null (change from or to it)', async () => {
    const res = await get(`WHEAT/series?type=price&${RANGE}&currency=EUR&transform=change`);
    expect(res.status, res.raw).toBe(200);
    const values = res.body.data.map((p: { value: number | null }) => p.value);
    expect(values).toHaveLength(4);
    expect(values[0]).toBeCloseTo(6 / 1.2 - 5 / 1.1, 4);
    expect(values[3]).toBeNull();
  });

  it('keys the cache on currency and unit', async () => {
    const plain = await get(`WHEAT/series?type=price&${RANGE}`);
    const eur = await get(`WHEAT/series?type=price&${RANGE}&currency=EUR`);
    expect(plain.body.data[0].value).toBe(5);
    expect(eur.body.data[0].value).not.toBe(5);
    expect(plain.headers.etag).not.toBe(eur.headers.etag);
    const again = await app.inject({
      method: 'GET',
      url: `/api/v1/commodities/WHEAT/series?type=price&${RANGE}&currency=EUR`,
      headers: { 'if-none-match': String(eur.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });
});

describe('currency on monthly prices, and units alone', () => {
  it('a monthly point uses the average of its month’s daily rates', async () => {
    const res = await get('COPPER/series?type=price&start_date=2026-04-01&end_date=2026-04-30&currency=EUR');
    expect(res.status, res.raw).toBe(200);
    const avg = (1 / 1.1 + 1 / 1.2 + 1 / 1.25) / 3;
    expect(res.body.data[0].value).toBeCloseTo(100 * avg, 4);
    expect(res.body.data[0]).not.toHaveProperty('fx_rate_date');
    expect(res.body.meta.conversion.currency.rule).toBe('monthly_average');
    expect(res.body.meta.unit).toBe('EUR/mt');
  });

  it('converts a quantity’s unit, keeping its scale', async () => {
    const res = await get('WHEAT/series?type=production&start_date=2026-04-01&end_date=2026-04-30&unit=t');
    expect(res.status, res.raw).toBe(200);
    expect(res.body.data[0].value).toBeCloseTo((1000 * 60 * 0.45359237) / 1000, 4);
    expect(res.body.meta.unit).toBe('thousand t');
    expect(res.body.meta.conversion.currency).toBeUndefined();
  });
});

describe('refusals', () => {
  const cases: [string, string, RegExp][] = [
    ['WHEAT/series?type=price&currency=XYZ', 'currency', /currencies with rates: EUR, CAD, USD/],
    ['WHEAT/series?type=production&currency=EUR', 'currency', /not a price/],
    ['GOLD/series?type=price&unit=bu', 'unit', /bushel/],
    ['COPPER/series?type=price&unit=bbl', 'unit', /mass/],
    ['WHEAT/series?type=production&unit=USD/t', 'unit', /quantity/],
    ['WHEAT/series?type=price&currency=EUR&unit=USD/t', 'unit', /not the currency asked/],
    ['WHEAT/series?type=price&unit=parsec', 'unit', /not a measure/],
  ];
  it.each(cases)('%s is a 400 naming %s', async (path, param, message) => {
    const res = await get(path);
    expect(res.status, res.raw).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
    expect(res.body.error.message).toMatch(message);
  });

  it('the rate series are no commodities', async () => {
    expect((await get('FX_EUR_USD/series?type=price')).status).toBe(404);
  });
});
