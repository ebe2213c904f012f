import { MongoNetworkError, MongoServerError } from 'mongodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { createMetrics } from '@cds/telemetry';
import { buildApp } from './app.ts';
import { createResponseCache, type ResponseCache } from '@cds/response-cache';
import {
  catalogDoc,
  cotDoc,
  createFakeRepository,
  createQueryResponseValidator,
  dateRange,
  descriptorOf,
  seriesBuckets,
  type FakeRepository,
} from './testing/index.ts';

const TODAY = '2025-06-15';
const validate = createQueryResponseValidator();

const goldDays = dateRange('2023-01-02', TODAY, true);
const goldPrices = goldDays.map((d, i) => ({
  d,
  v: 1800 + i,
  o: 1799 + i,
  h: 1801 + i,
  l: 1798 + i,
  c: 1800 + i,
  vol: 10,
}));
const goldStocks = dateRange('2024-01-01', '2025-06-01')
  .filter((d) => d.endsWith('-01'))
  .map((d, i) => ({ d, v: 100 * (i + 1) }));
const cotDates = ['2025-05-06', '2025-05-13', '2025-05-20', '2025-05-27', '2025-06-03', '2025-06-10'];

function fixtures() {
  return {
    catalog: [
      catalogDoc('GOLD', {
        name: 'Gold',
        symbol: 'GC',
        category: 'metals',
        exchange: 'COMEX',
        unit: 'USD/ozt',
        description: 'Gold futures',
        contract_size: '100 troy ounces',
        tick_size: 0.1,
        series: [
          descriptorOf('price', goldPrices, 'daily', 'USD/ozt'),
          descriptorOf('stocks', goldStocks, 'monthly', 'ozt'),
          descriptorOf(
            'cot_legacy',
            cotDates.map((d) => ({ d })),
            'weekly',
          ),
        ],
      }),
      catalogDoc('SILVER', { name: 'Silver', symbol: 'SI', category: 'metals' }),
      catalogDoc('CRUDE_OIL_WTI', { name: 'Crude Oil (WTI) .*', symbol: 'CL', category: 'energy' }),
      catalogDoc('CORN', { name: 'Corn', symbol: 'ZC', category: 'agriculture' }),
      catalogDoc('HIDDEN', { name: 'Series only', listed: false }),
    ],
    series: [
      ...seriesBuckets('GOLD', 'price', goldPrices),
      ...seriesBuckets('GOLD', 'stocks', goldStocks, { frequency: 'monthly' }),
    ],
    cot: cotDates.map((d, i) => cotDoc('GOLD', 'legacy', d, i + 1)),
  };
}

let repo: FakeRepository;
let cache: ResponseCache;
let app: ReturnType<typeof buildApp>;

beforeEach(() => {
  repo = createFakeRepository(fixtures());
  cache = createResponseCache({ maxEntries: 100, maxBytes: 10_000_000, ttlMs: 60_000 });
  app = buildApp({
    repository: repo,
    cache,
    publicBaseUrl: 'https://api.example.com',
    checkResponses: true,
    clock: () => new Date(`${TODAY}T12:00:00Z`),
  });
});

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  validate(url, res);
  return { status: res.statusCode, body: res.json(), headers: res.headers, raw: res.body };
}

async function expectError(url: string, status: number, param: string | undefined) {
  const res = await get(url);
  expect(res.status, res.raw).toBe(status);
  expect(res.body.error.code).toBe(status === 400 ? 'invalid_parameter' : 'not_found');
  expect(res.body.error.param).toBe(param);
  return res.body.error;
}

describe('GET /commodities', () => {
  it('lists only listed commodities sorted by id, asc by default and desc on request', async () => {
    const asc = await get('/api/v1/commodities');
    expect(asc.body.data.map((c: { id: string }) => c.id)).toEqual(['CORN', 'CRUDE_OIL_WTI', 'GOLD', 'SILVER']);
    expect(asc.body.meta).toMatchObject({ page: 1, per_page: 25, total: 4, total_pages: 1 });
    expect(asc.body.data[2]).toEqual({
      id: 'GOLD',
      name: 'Gold',
      symbol: 'GC',
      category: 'metals',
      exchange: 'COMEX',
      unit: 'USD/ozt',
    });
    const desc = await get('/api/v1/commodities?sort_order=desc');
    expect(desc.body.data.map((c: { id: string }) => c.id)).toEqual(['SILVER', 'GOLD', 'CRUDE_OIL_WTI', 'CORN']);
  });
  it('filters by category and searches name or symbol literally, case-insensitively', async () => {
    const metals = await get('/api/v1/commodities?category=metals');
    expect(metals.body.data.map((c: { id: string }) => c.id)).toEqual(['GOLD', 'SILVER']);
    expect((await get('/api/v1/commodities?search=gc')).body.data.map((c: { id: string }) => c.id)).toEqual(['GOLD']);
    expect((await get('/api/v1/commodities?search=OLD')).body.data.map((c: { id: string }) => c.id)).toEqual(['GOLD']);
    const dots = await get('/api/v1/commodities?search=.*');
    expect(dots.body.data.map((c: { id: string }) => c.id)).toEqual(['CRUDE_OIL_WTI']);
    expect((await get('/api/v1/commodities?search=%24ne')).body.meta.total).toBe(0);
    expect((await get('/api/v1/commodities?search=Series')).body.meta.total).toBe(0); // unlisted
  });
  it('pages: total_pages = ceil(total / per_page); past the last page is an empty 200; no match gives 0 pages', async () => {
    const p2 = await get('/api/v1/commodities?per_page=3&page=2');
    expect(p2.body.data.map((c: { id: string }) => c.id)).toEqual(['SILVER']);
    expect(p2.body.meta).toMatchObject({ page: 2, per_page: 3, total: 4, total_pages: 2 });
    const past = await get('/api/v1/commodities?per_page=3&page=9');
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual([]);
    expect(past.body.meta).toMatchObject({ page: 9, total: 4, total_pages: 2 });
    const none = await get('/api/v1/commodities?search=zzz');
    expect(none.body.meta).toMatchObject({ total: 0, total_pages: 0 });
    // No bound below 2^53 - 1 (issue 16: page=248583618 was a 400): a far page is an empty 200 too.
    for (const page of ['248583618', '9007199254740991']) {
      const far = await get(`/api/v1/commodities?per_page=100&page=${page}`);
      expect(far.status).toBe(200);
      expect(far.body).toMatchObject({ data: [], meta: { page: Number(page), total: 4, total_pages: 1 } });
    }
    await expectError('/api/v1/commodities?page=9007199254740992', 400, 'page');
  });
  it('an empty search is no filter (issue 16): the same answer as none', async () => {
    const all = await get('/api/v1/commodities');
    const empty = await get('/api/v1/commodities?search=');
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual(all.body.data);
    expect(empty.body.meta.total).toBe(4);
    expect((await get('/api/v1/commodities?search=&category=metals')).body.meta.total).toBe(2);
  });
  it('every bad parameter is a 400 naming it; api_key is ignored', async () => {
    await expectError('/api/v1/commodities?foo=1', 400, 'foo');
    await expectError('/api/v1/commodities?search[$ne]=', 400, 'search[$ne]');
    await expectError('/api/v1/commodities?page=1&page=2', 400, 'page');
    await expectError('/api/v1/commodities?page=0', 400, 'page');
    await expectError('/api/v1/commodities?per_page=101', 400, 'per_page');
    await expectError('/api/v1/commodities?category=gems', 400, 'category');
    await expectError('/api/v1/commodities?sort_order=up', 400, 'sort_order');
    await expectError(`/api/v1/commodities?search=${'x'.repeat(101)}`, 400, 'search');
    // A parameter without a name (issue 16: `?=false` had no param) names the query string.
    expect((await expectError('/api/v1/commodities?=false', 400, 'query')).message).toContain('empty name');
    await expectError('/api/v1/commodities?category=metals&=', 400, 'query');
    await expectError('/api/v1/commodities/GOLD?=false', 400, 'query');
    await expectError('/api/v1/commodities/GOLD/series?type=price&=1', 400, 'query');
    await expectError('/api/v1/commodities/GOLD/cot?=x', 400, 'query');
    expect((await get(`/api/v1/commodities?api_key=${'a'.repeat(40)}`)).status).toBe(200);
  });
});

describe('GET /commodities/:slug', () => {
  it('returns the detail with every available series sorted by type and meta.request_id', async () => {
    const res = await get('/api/v1/commodities/GOLD');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: 'GOLD',
      description: 'Gold futures',
      contract_size: '100 troy ounces',
      tick_size: 0.1,
    });
    expect(res.body.data.available_series).toEqual([
      { type: 'cot_legacy', frequency: 'weekly', first_date: '2025-05-06', last_date: '2025-06-10' },
      { type: 'price', frequency: 'daily', first_date: '2023-01-02', last_date: '2025-06-13' },
      { type: 'stocks', frequency: 'monthly', first_date: '2024-01-01', last_date: '2025-06-01' },
    ]);
    expect(res.body.meta).toEqual({ request_id: res.headers['x-request-id'] });
  });
  it('unknown (or unlisted) commodity is 404 on slug; a malformed slug or extra parameter is 400', async () => {
    await expectError('/api/v1/commodities/PLATINUM', 404, 'slug');
    await expectError('/api/v1/commodities/HIDDEN', 404, 'slug');
    await expectError('/api/v1/commodities/gold', 400, 'slug');
    await expectError('/api/v1/commodities/GOLD?x=1', 400, 'x');
  });
  it('a well-formed id of any length the catalog lacks is 404 on slug, on every route; its shape alone decides a 400', async () => {
    const long = `${'A'.repeat(30)}_${'B'.repeat(37)}`; // 68 characters: longer than any catalog id
    for (const slug of [long, 'C'.repeat(65), `X${'_1'.repeat(1_500)}`]) {
      for (const tail of ['', '/series?type=price', '/cot']) {
        const error = await expectError(`/api/v1/commodities/${slug}${tail}`, 404, 'slug');
        expect(error.message.length).toBeLessThan(200);
      }
    }
    for (const slug of [`${long}_`, `${'a'.repeat(68)}`, `${'A'.repeat(68)}-B`]) {
      await expectError(`/api/v1/commodities/${slug}/series?type=price`, 400, 'slug');
    }
  });
});

describe('GET /commodities/:slug/series', () => {
  it('defaults: end_date today (UTC), start_date one year before, native frequency, ascending', async () => {
    const res = await get('/api/v1/commodities/GOLD/series?type=price');
    const dates = res.body.data.map((p: { date: string }) => p.date);
    expect(dates[0]).toBe('2024-06-17'); // 2024-06-15 is a Saturday
    expect(dates.at(-1)).toBe('2025-06-13');
    expect(res.body.meta).toMatchObject({
      commodity_id: 'GOLD',
      type: 'price',
      frequency: 'daily',
      unit: 'USD/ozt',
      transform: 'none',
      count: dates.length,
    });
    const stored = goldPrices.find((p) => p.d === '2024-06-17')!;
    expect(res.body.data[0]).toEqual({
      date: '2024-06-17',
      value: stored.v,
      open: stored.o,
      high: stored.h,
      low: stored.l,
      close: stored.c,
      volume: stored.vol,
    });
  });
  it('resamples to weekly, takes the predecessor from before start_date, and reports pct_change in percent', async () => {
    const weekly = await get(
      '/api/v1/commodities/GOLD/series?type=price&frequency=weekly&start_date=2025-01-01&end_date=2025-01-12',
    );
    expect(weekly.body.data.map((p: { date: string }) => p.date)).toEqual(['2025-01-03', '2025-01-10']);
    const pct = await get(
      '/api/v1/commodities/GOLD/series?type=price&start_date=2025-01-02&end_date=2025-01-03&transform=pct_change',
    );
    const v = (d: string) => goldPrices.find((p) => p.d === d)!.v;
    expect(pct.body.data).toEqual([
      { date: '2025-01-02', value: Number((((v('2025-01-02') - v('2025-01-01')) / v('2025-01-01')) * 100).toFixed(6)) },
      { date: '2025-01-03', value: Number((((v('2025-01-03') - v('2025-01-02')) / v('2025-01-02')) * 100).toFixed(6)) },
    ]);
    expect(pct.body.meta).toMatchObject({ unit: 'percent', transform: 'pct_change', count: 2 });
  });
  it('the first point of a series has no predecessor: change leaves it out', async () => {
    const res = await get(
      '/api/v1/commodities/GOLD/series?type=price&start_date=2020-01-01&end_date=2023-01-04&transform=change',
    );
    expect(res.body.data).toEqual([
      { date: '2023-01-03', value: 1 },
      { date: '2023-01-04', value: 1 },
    ]);
  });
  it('desc + limit 5 gives the five latest points', async () => {
    const res = await get('/api/v1/commodities/GOLD/series?type=price&sort_order=desc&limit=5');
    expect(res.body.data.map((p: { date: string }) => p.date)).toEqual([
      '2025-06-13',
      '2025-06-12',
      '2025-06-11',
      '2025-06-10',
      '2025-06-09',
    ]);
    expect(res.body.meta.count).toBe(5);
  });
  it('every bad parameter is a 400 naming it; unknown commodity and unoffered type are 404s naming theirs', async () => {
    await expectError('/api/v1/commodities/GOLD/series', 400, 'type');
    await expectError('/api/v1/commodities/GOLD/series?type=gold', 400, 'type');
    await expectError('/api/v1/commodities/GOLD/series?type=price&start_date=2024-02-30', 400, 'start_date');
    await expectError('/api/v1/commodities/GOLD/series?type=price&end_date=20240101', 400, 'end_date');
    await expectError(
      '/api/v1/commodities/GOLD/series?type=price&start_date=2024-05-02&end_date=2024-05-01',
      400,
      'start_date',
    );
    await expectError('/api/v1/commodities/GOLD/series?type=price&start_date=2026-01-01', 400, 'start_date');
    await expectError('/api/v1/commodities/GOLD/series?type=price&limit=0', 400, 'limit');
    await expectError('/api/v1/commodities/GOLD/series?type=price&limit=10001', 400, 'limit');
    await expectError('/api/v1/commodities/GOLD/series?type=price&transform=log', 400, 'transform');
    await expectError('/api/v1/commodities/GOLD/series?type=price&frequency=hourly', 400, 'frequency');
    await expectError('/api/v1/commodities/GOLD/series?type=price&type=volume', 400, 'type');
    await expectError('/api/v1/commodities/GOLD/series?type=price&format=legacy', 400, 'format');
    const finer = await expectError('/api/v1/commodities/GOLD/series?type=stocks&frequency=weekly', 400, 'frequency');
    expect(finer.message).toContain('monthly');
    await expectError('/api/v1/commodities/GOLD/series?type=volume', 404, 'type');
    await expectError('/api/v1/commodities/NICKEL/series?type=price', 404, 'slug');
    await expectError('/api/v1/commodities/gold/series?type=price', 400, 'slug');
  });
});

describe('GET /commodities/:slug/cot', () => {
  it('defaults to legacy, newest first, with net = long - short computed here', async () => {
    const res = await get('/api/v1/commodities/GOLD/cot');
    expect(res.body.data.map((r: { report_date: string }) => r.report_date)).toEqual([...cotDates].reverse());
    const newest = res.body.data[0];
    const stored = cotDoc('GOLD', 'legacy', '2025-06-10', 6).groups;
    expect(newest).toEqual({
      report_date: '2025-06-10',
      commodity: 'GOLD',
      exchange: 'CMX',
      format: 'legacy',
      open_interest: 30_000,
      scope: 'futures_only',
      commercial: { ...stored.commercial, net: stored.commercial!.long - stored.commercial!.short },
      non_commercial: { ...stored.non_commercial, net: stored.non_commercial!.long - stored.non_commercial!.short },
      non_reportable: { ...stored.non_reportable, net: stored.non_reportable!.long - stored.non_reportable!.short },
    });
    expect(res.body.meta).toMatchObject({ page: 1, per_page: 25, total: 6, total_pages: 1 });
  });
  it('inclusive date bounds, ascending order, pagination, and empty 200s', async () => {
    const res = await get(
      '/api/v1/commodities/GOLD/cot?start_date=2025-05-13&end_date=2025-06-03&sort_order=asc&per_page=2&page=2',
    );
    expect(res.body.data.map((r: { report_date: string }) => r.report_date)).toEqual(['2025-05-27', '2025-06-03']);
    expect(res.body.meta).toMatchObject({ page: 2, per_page: 2, total: 4, total_pages: 2 });
    const past = await get('/api/v1/commodities/GOLD/cot?page=5');
    expect(past.body).toMatchObject({ data: [], meta: { total: 6, total_pages: 1 } });
    const far = await get('/api/v1/commodities/GOLD/cot?page=248583618&per_page=100');
    expect(far.body).toMatchObject({ data: [], meta: { page: 248583618, total: 6, total_pages: 1 } });
    const none = await get('/api/v1/commodities/GOLD/cot?start_date=2020-01-01&end_date=2020-12-31');
    expect(none.body).toMatchObject({ data: [], meta: { total: 0, total_pages: 0 } });
  });
  it('a format the commodity lacks is 404 on format; unknown commodity 404 on slug; bad params 400', async () => {
    await expectError('/api/v1/commodities/GOLD/cot?format=disaggregated', 404, 'format');
    await expectError('/api/v1/commodities/SILVER/cot', 404, 'format');
    await expectError('/api/v1/commodities/NICKEL/cot', 404, 'slug');
    await expectError('/api/v1/commodities/GOLD/cot?format=new', 400, 'format');
    await expectError('/api/v1/commodities/GOLD/cot?start_date=2025-06-01&end_date=2025-05-01', 400, 'start_date');
    await expectError('/api/v1/commodities/GOLD/cot?per_page=0', 400, 'per_page');
    await expectError('/api/v1/commodities/GOLD/cot?type=price', 400, 'type');
  });
});

describe('GET /commodities/:slug/cot with include (COT analytics)', () => {
  const base = '/api/v1/commodities/GOLD/cot';
  type Report = Record<string, unknown> & { report_date: string };
  it('changes against the previous report even when it lies before the requested dates or page', async () => {
    const res = await get(`${base}?include=changes&start_date=2025-05-20&sort_order=asc&per_page=1&page=2`);
    expect(res.status).toBe(200);
    const [r] = res.body.data as Report[];
    expect(r!.report_date).toBe('2025-05-27');
    // seeds 3 → 4 (fixtures.cotDoc): long +1000, short +700, open interest +5000
    expect(r!.changes).toEqual({
      open_interest: 5000,
      commercial: { long: 1000, short: 700, net: 300 },
      non_commercial: { long: 1000, short: 700, spreading: 0, net: 300 },
      non_reportable: { long: 1000, short: 700, net: 300 },
    });
    const first = await get(`${base}?include=changes&end_date=2025-05-06`);
    expect((first.body.data as Report[])[0]!.changes).toBeUndefined();
  });
  it('pct_of_oi on every report; cot_index absent with fewer than index_weeks reports; only what was asked', async () => {
    const res = await get(`${base}?include=pct_of_oi,cot_index&index_weeks=26`);
    const newest = (res.body.data as Report[])[0]!;
    // seed 6 of 30000: commercial 6010 → 20 (20.03), 4237 → 14.1; non_commercial 4274 → 14.2 (14.247), spreading 100 → 0.3
    expect(newest.pct_of_oi).toEqual({
      commercial: { long: 20, short: 14.1 },
      non_commercial: { long: 20.1, short: 14.2, spreading: 0.3 },
      non_reportable: { long: 20.1, short: 14.4 },
    });
    expect(newest.cot_index).toBeUndefined();
    expect(newest.changes).toBeUndefined();
  });
  it('without include the answer is unchanged, and the cache keeps the variants apart', async () => {
    const plain = await get(base);
    const withChanges = await get(`${base}?include=changes`);
    const again = await get(base);
    expect(again.raw).toBe(plain.raw.replace(plain.body.meta.request_id, again.body.meta.request_id));
    expect((again.body.data as Report[])[0]!.changes).toBeUndefined();
    expect((withChanges.body.data as Report[])[0]!.changes).toBeDefined();
    const reordered = await get(`${base}?include=cot_index,changes&index_weeks=26`);
    expect((reordered.body.data as Report[])[0]!.changes).toBeDefined();
  });
  it('a bad include or index_weeks is a 400 naming it; index_weeks without cot_index is accepted and ignored', async () => {
    for (const q of [
      'include=volume',
      'include=',
      'include=changes,',
      'include=changes,changes',
      'include=a&include=b',
    ]) {
      await expectError(`${base}?${q}`, 400, 'include');
    }
    for (const q of ['index_weeks=25', 'index_weeks=521', 'index_weeks=52.5', 'index_weeks=', 'index_weeks=x']) {
      await expectError(`${base}?include=cot_index&${q}`, 400, 'index_weeks');
    }
    const ignored = await get(`${base}?include=changes&index_weeks=52`);
    expect(ignored.status).toBe(200);
  });
});

describe('request ids, cache and failures', () => {
  it("uses the gateway's x-request-id when well-formed, else a fresh one", async () => {
    const forwarded = await get('/api/v1/commodities/GOLD', { 'x-request-id': 'req_0123456789abcdef0123' });
    expect(forwarded.headers['x-request-id']).toBe('req_0123456789abcdef0123');
    expect(forwarded.body.meta.request_id).toBe('req_0123456789abcdef0123');
    const evil = await get('/api/v1/commodities/GOLD', { 'x-request-id': 'a"b' });
    expect(evil.body.meta.request_id).toMatch(/^req_[0-9a-f]{20}$/);
    const error = await get('/api/v1/commodities/NOPE', { 'x-request-id': 'gw-1' });
    expect(error.body.error.request_id).toBe('gw-1');
  });
  it('a repeated request is served from memory with identical bytes except the request id', async () => {
    const url = '/api/v1/commodities/GOLD/series?type=price&frequency=weekly';
    const first = await get(url);
    const calls = { ...repo.calls };
    const second = await get(url);
    const reordered = await get('/api/v1/commodities/GOLD/series?frequency=weekly&type=price');
    expect(repo.calls).toEqual(calls);
    const strip = (r: { raw: string; headers: Record<string, unknown> }) =>
      r.raw.replace(String(r.headers['x-request-id']), '');
    expect(strip(second)).toBe(strip(first));
    expect(strip(reordered)).toBe(strip(first));
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
  });
  it('invalidation of a commodity makes the next request read the new data', async () => {
    const url = '/api/v1/commodities/GOLD';
    expect((await get(url)).body.data.name).toBe('Gold');
    repo.data.catalog[0]!.name = 'Gold (renamed)';
    expect((await get(url)).body.data.name).toBe('Gold');
    cache.invalidate('SILVER');
    expect((await get(url)).body.data.name).toBe('Gold');
    cache.invalidate('GOLD');
    expect((await get(url)).body.data.name).toBe('Gold (renamed)');
  });
  it('database unavailability and time-outs are 503 in the contract shape, never leaking the driver message', async () => {
    repo.failWith = new MongoNetworkError('connect ECONNREFUSED 10.1.2.3:27017');
    const down = await get('/api/v1/commodities');
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('service_unavailable');
    expect(down.raw).not.toContain('10.1.2.3');
    repo.failWith = new MongoServerError({
      message: 'operation exceeded time limit',
      code: 50,
      codeName: 'MaxTimeMSExpired',
    });
    expect((await get('/api/v1/commodities/GOLD/series?type=price')).status).toBe(503);
    expect((await app.inject('/readyz')).statusCode).toBe(503);
    repo.failWith = undefined;
    expect((await get('/api/v1/commodities/GOLD/series?type=price')).status).toBe(200);
    expect((await app.inject('/readyz')).statusCode).toBe(200);
  });
  it('HEAD answers the headers of GET without a body, also from the cache', async () => {
    const url = '/api/v1/commodities/GOLD/cot';
    const got = await app.inject(url);
    for (let i = 0; i < 2; i++) {
      const head = await app.inject({ method: 'HEAD', url });
      expect(head.statusCode).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(got.body));
    }
  });
  it('methods other than GET, HEAD and OPTIONS are 405 with Allow, unknown routes 404, probes answer', async () => {
    for (const url of ['/api/v1/commodities', '/api/v1/commodities/GOLD', '/api/v1/commodities/GOLD/series']) {
      for (const method of ['POST', 'TRACE', 'QUERY', 'PROPFIND']) {
        const res = await app.inject({ method: method as 'GET', url });
        expect(res.statusCode, `${method} ${url}`).toBe(405);
        expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
        expect(res.json().error.code).toBe('method_not_allowed');
      }
    }
    expect((await app.inject('/api/v1/nope')).json().error.code).toBe('not_found');
    expect((await app.inject('/healthz')).json()).toEqual({ status: 'ok' });
  });
});

describe('GET /metrics', () => {
  it('counts requests by route and status, and cache hits and misses', async () => {
    const metrics = createMetrics('query');
    const withMetrics = buildApp({
      repository: repo,
      cache,
      publicBaseUrl: 'https://api.example.com',
      checkResponses: true,
      clock: () => new Date(`${TODAY}T12:00:00Z`),
      metrics,
    });
    const url = '/api/v1/commodities/GOLD/series?type=price';
    for (let i = 0; i < 3; i++) expect((await withMetrics.inject({ url })).statusCode).toBe(200);
    expect((await withMetrics.inject({ url: '/api/v1/commodities/NOPE' })).statusCode).toBe(404);
    const res = await withMetrics.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    const text = res.body;
    expect(text).toContain('# TYPE cds_query_requests_total counter');
    expect(text).toMatch(
      /cds_query_requests_total\{[^}]*route="\/api\/v1\/commodities\/:slug\/series"[^}]*status="200"[^}]*\} 3/,
    );
    expect(text).toMatch(/cds_query_requests_total\{[^}]*status="404"[^}]*\} 1/);
    expect(text).toMatch(
      /cds_query_request_duration_ms_count\{[^}]*route="\/api\/v1\/commodities\/:slug\/series"[^}]*\} 3/,
    );
    expect(text).toMatch(/cds_query_cache_lookups_total\{[^}]*result="hit"[^}]*\} 2/);
    expect(text).toMatch(/cds_query_cache_lookups_total\{[^}]*result="miss"[^}]*\} [12]/);
    expect(text).not.toContain('route="/metrics"');
    await withMetrics.close();
    await metrics.shutdown();
  });
});
