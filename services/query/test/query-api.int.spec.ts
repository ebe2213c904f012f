import { COLLECTIONS, projectedSubject, type CatalogDoc } from '@cds/read-models';
import { INDEXES, packCotBucket, packSeriesBucket } from '@cds/store';
import { findFreePort, getTestInfra, startMongo, uniqueName, waitUntil, type MongoHandle } from '@cds/testkit';
import { connectNats } from '@cds/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildApp,
  createMongoRepository,
  createResponseCache,
  subscribeInvalidations,
  type Invalidation,
  type ResponseCache,
} from '../src/index.ts';
import {
  catalogDoc,
  cotBuckets,
  cotDoc,
  createQueryResponseValidator,
  dateRange,
  descriptorOf,
  seriesBuckets,
} from '../src/testing/index.ts';

// The query service against a real MongoDB API server (FerretDB in the testkit), with read-model
// documents inserted directly in the libs/read-models shapes, and cache invalidation over NATS.

const TODAY = '2025-06-15';
const validate = createQueryResponseValidator();
const clock = () => new Date(`${TODAY}T08:00:00Z`);

const prices = dateRange('2023-01-02', TODAY, true).map((d, i) => ({
  d,
  v: 70 + (i % 50) / 4,
  o: 70,
  h: 90,
  l: 60,
  c: 70 + (i % 50) / 4,
  vol: 1000 + i,
}));
// A fundamentals series with a gap of several years: the predecessor of 2024 lies in 2021.
const stocks = [
  ...['2021-10-01', '2021-11-01', '2021-12-01'].map((d, i) => ({ d, v: 10 + i })),
  ...['2024-01-01', '2024-02-01', '2024-03-01'].map((d, i) => ({ d, v: 20 + i * 2 })),
];
const cotDates = dateRange('2024-01-02', '2025-06-10').filter((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 2);

function catalog(): CatalogDoc[] {
  return [
    catalogDoc('CRUDE_OIL_WTI', {
      name: 'Crude Oil WTI',
      symbol: 'CL',
      category: 'energy',
      exchange: 'NYMEX',
      unit: 'USD/bbl',
      tick_size: 0.01,
      series: [
        descriptorOf('price', prices, 'daily', 'USD/bbl'),
        descriptorOf('stocks', stocks, 'monthly', 'kbbl'),
        descriptorOf(
          'cot_legacy',
          cotDates.map((d) => ({ d })),
          'weekly',
        ),
        descriptorOf(
          'cot_disaggregated',
          cotDates.map((d) => ({ d })),
          'weekly',
        ),
      ],
    }),
    catalogDoc('GOLD', { name: 'Gold', symbol: 'GC', category: 'metals' }),
    catalogDoc('REGEX_TEST', { name: 'Weird .* name (a|b)', symbol: '$NE', category: 'softs' }),
    ...['A', 'B', 'C', 'D', 'E'].map((x) => catalogDoc(`CORN_${x}`, { name: `Corn ${x}`, category: 'agriculture' })),
    catalogDoc('UNLISTED', { name: 'Arrived before catalog', listed: false }),
  ];
}

let client: MongoClient;
let db: Db;
let nc: NatsConnection;
let cache: ResponseCache;
let invalidation: Invalidation;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  const infra = getTestInfra();
  client = new MongoClient(infra.mongoUrl, { serverSelectionTimeoutMS: 2000 });
  db = client.db(uniqueName('query_api'));
  await db.collection(COLLECTIONS.catalog).insertMany(catalog() as never[]);
  await db
    .collection(COLLECTIONS.series)
    .insertMany(
      [
        ...seriesBuckets('CRUDE_OIL_WTI', 'price', prices, { unit: 'USD/bbl' }),
        ...seriesBuckets('CRUDE_OIL_WTI', 'stocks', stocks, { frequency: 'monthly', unit: 'kbbl' }),
      ].map(packSeriesBucket) as never[],
    );
  await db
    .collection(COLLECTIONS.cot)
    .insertMany(
      cotBuckets([
        ...cotDates.map((d, i) => cotDoc('CRUDE_OIL_WTI', 'legacy', d, i + 1)),
        ...cotDates.map((d, i) => cotDoc('CRUDE_OIL_WTI', 'disaggregated', d, i + 1)),
      ]).map(packCotBucket) as never[],
    );
  for (const [name, specs] of Object.entries(INDEXES)) {
    for (const spec of specs)
      await db.collection(name).createIndex(spec.key, { name: spec.name, unique: spec.unique ?? false });
  }
  cache = createResponseCache({ maxEntries: 1000, maxBytes: 50_000_000, ttlMs: 60_000 });
  nc = await connectNats({ servers: infra.natsUrl, name: 'query-api-spec' });
  invalidation = subscribeInvalidations(nc, cache);
  await invalidation.ready;
  app = buildApp({
    repository: createMongoRepository({ db, maxTimeMs: 2000 }),
    cache,
    publicBaseUrl: 'http://localhost:8080',
    checkResponses: true,
    clock,
  });
});

afterAll(async () => {
  await app?.close();
  await invalidation?.close();
  await nc?.close();
  await db?.dropDatabase().catch(() => undefined);
  await client?.close();
});

async function get(url: string, target = app) {
  const res = await target.inject({ method: 'GET', url });
  validate(url, res);
  return { status: res.statusCode, body: res.json(), raw: res.body, id: String(res.headers['x-request-id']) };
}

const ids = (body: { data: { id: string }[] }) => body.data.map((c) => c.id);

describe('list', () => {
  it('sorts by id, filters by category, pages, and leaves out unlisted documents', async () => {
    const all = await get('/api/v1/commodities?per_page=100');
    expect(ids(all.body)).toEqual([
      'CORN_A',
      'CORN_B',
      'CORN_C',
      'CORN_D',
      'CORN_E',
      'CRUDE_OIL_WTI',
      'GOLD',
      'REGEX_TEST',
    ]);
    const page = await get('/api/v1/commodities?category=agriculture&sort_order=desc&per_page=2&page=3');
    expect(ids(page.body)).toEqual(['CORN_A']);
    expect(page.body.meta).toMatchObject({ page: 3, per_page: 2, total: 5, total_pages: 3 });
    const past = await get('/api/v1/commodities?category=agriculture&per_page=2&page=4');
    expect(past.status).toBe(200);
    expect(past.body).toMatchObject({ data: [], meta: { total: 5, total_pages: 3 } });
  });
  it('takes search literally: regex characters and $ operators are plain text', async () => {
    expect(ids((await get('/api/v1/commodities?search=.*')).body)).toEqual(['REGEX_TEST']);
    expect(ids((await get('/api/v1/commodities?search=(a%7Cb)')).body)).toEqual(['REGEX_TEST']);
    expect(ids((await get('/api/v1/commodities?search=%24ne')).body)).toEqual(['REGEX_TEST']);
    expect(ids((await get('/api/v1/commodities?search=corn%20c')).body)).toEqual(['CORN_C']);
    expect(ids((await get('/api/v1/commodities?search=cl')).body)).toEqual(['CRUDE_OIL_WTI']);
    expect((await get('/api/v1/commodities?search=%5E')).body.meta.total).toBe(0);
    const operator = await get('/api/v1/commodities?search[$ne]=');
    expect(operator.status).toBe(400);
    expect(operator.body.error).toMatchObject({ code: 'invalid_parameter', param: 'search[$ne]' });
  });
});

describe('detail', () => {
  it('returns every available series with its dates, sorted by type', async () => {
    const res = await get('/api/v1/commodities/CRUDE_OIL_WTI');
    expect(res.body.data.available_series.map((s: { type: string }) => s.type)).toEqual([
      'cot_disaggregated',
      'cot_legacy',
      'price',
      'stocks',
    ]);
    expect(res.body.data.available_series[2]).toEqual({
      type: 'price',
      frequency: 'daily',
      first_date: '2023-01-02',
      last_date: '2025-06-13',
    });
    expect(res.body.meta.request_id).toBe(res.id);
    expect((await get('/api/v1/commodities/UNLISTED')).body.error).toMatchObject({ code: 'not_found', param: 'slug' });
  });
});

describe('series', () => {
  it('serves one year of daily prices by default, across two yearly buckets', async () => {
    const res = await get('/api/v1/commodities/CRUDE_OIL_WTI/series?type=price');
    const expected = prices.filter((p) => p.d >= '2024-06-15' && p.d <= TODAY);
    expect(res.body.data).toHaveLength(expected.length);
    expect(res.body.data[0]).toEqual({
      date: expected[0]!.d,
      value: expected[0]!.v,
      open: 70,
      high: 90,
      low: 60,
      close: expected[0]!.c,
      volume: expected[0]!.vol,
    });
    expect(res.body.meta).toMatchObject({ frequency: 'daily', unit: 'USD/bbl', count: expected.length });
  });
  it('resamples monthly with OHLC and volume sums', async () => {
    const res = await get(
      '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&frequency=monthly&start_date=2024-02-01&end_date=2024-02-29',
    );
    const feb = prices.filter((p) => p.d.startsWith('2024-02'));
    expect(res.body.data).toEqual([
      {
        date: '2024-02-29',
        value: feb.at(-1)!.v,
        open: 70,
        high: 90,
        low: 60,
        close: feb.at(-1)!.c,
        volume: feb.reduce((s, p) => s + p.vol, 0),
      },
    ]);
  });
  it('finds the predecessor of a change in an earlier bucket across a gap of years', async () => {
    const res = await get(
      '/api/v1/commodities/CRUDE_OIL_WTI/series?type=stocks&start_date=2024-01-01&end_date=2024-12-31&transform=change',
    );
    expect(res.body.data).toEqual([
      { date: '2024-01-01', value: 8 },
      { date: '2024-02-01', value: 2 },
      { date: '2024-03-01', value: 2 },
    ]);
    expect(res.body.meta).toMatchObject({ unit: 'kbbl', frequency: 'monthly', transform: 'change', count: 3 });
    const cumulative = await get(
      '/api/v1/commodities/CRUDE_OIL_WTI/series?type=stocks&start_date=2021-11-01&end_date=2024-02-01&transform=cumulative&sort_order=desc&limit=2',
    );
    expect(cumulative.body.data).toEqual([
      { date: '2024-02-01', value: 11 + 12 + 20 + 22 },
      { date: '2024-01-01', value: 11 + 12 + 20 },
    ]);
  });
  it('names the parameter of every 400 and 404', async () => {
    const base = '/api/v1/commodities/CRUDE_OIL_WTI/series';
    expect((await get(`${base}?type=volume`)).body.error).toMatchObject({ code: 'not_found', param: 'type' });
    expect((await get(`${base}?type=stocks&frequency=daily`)).body.error).toMatchObject({
      code: 'invalid_parameter',
      param: 'frequency',
    });
    expect((await get(`${base}?type=price&end_date=2025-13-01`)).body.error).toMatchObject({ param: 'end_date' });
    expect((await get('/api/v1/commodities/NICKEL/series?type=price')).body.error).toMatchObject({
      code: 'not_found',
      param: 'slug',
    });
  });
});

describe('read memo (as main.ts builds the repository)', () => {
  it('gives the same answers as reading the database every time, and reads nothing the second time', async () => {
    const memoRepository = createMongoRepository({ db, maxTimeMs: 2000, readMemo: { maxBuckets: 64, ttlMs: 60_000 } });
    const memoApp = buildApp({
      repository: memoRepository,
      // no response cache: every answer is computed, from the memo
      cache: createResponseCache({ maxEntries: 1, maxBytes: 1, ttlMs: 1 }),
      publicBaseUrl: 'http://localhost:8080',
      checkResponses: true,
      clock,
    });
    const series = '/api/v1/commodities/CRUDE_OIL_WTI/series';
    const urls = [
      '/api/v1/commodities?per_page=100',
      '/api/v1/commodities/CRUDE_OIL_WTI',
      `${series}?type=price`,
      `${series}?type=price&frequency=monthly&start_date=2024-02-01&end_date=2024-02-29`,
      `${series}?type=stocks&start_date=2024-01-01&end_date=2024-12-31&transform=change`,
      `${series}?type=stocks&start_date=2021-11-01&end_date=2024-02-01&transform=cumulative&sort_order=desc&limit=2`,
      `${series}?type=price&start_date=0001-01-01&end_date=9999-12-31&transform=pct_change`,
      '/api/v1/commodities/NICKEL/series?type=price',
    ];
    const withoutId = (raw: string, id: string) => raw.replace(id, '');
    for (const url of urls) {
      const direct = await get(url);
      const first = await get(url, memoApp);
      const again = await get(url, memoApp);
      expect({ url, status: first.status, body: withoutId(first.raw, first.id) }).toEqual({
        url,
        status: direct.status,
        body: withoutId(direct.raw, direct.id),
      });
      expect(withoutId(again.raw, again.id)).toBe(withoutId(first.raw, first.id));
    }
    expect(memoRepository.memo!.size).toBeGreaterThan(0);
    await memoApp.close();
  });
});

describe('cot', () => {
  it('pages reports newest first and renders each format with net = long - short', async () => {
    const res = await get('/api/v1/commodities/CRUDE_OIL_WTI/cot?per_page=10&page=2');
    expect(res.body.data.map((r: { report_date: string }) => r.report_date)).toEqual(
      [...cotDates].reverse().slice(10, 20),
    );
    expect(res.body.meta).toMatchObject({ total: cotDates.length, total_pages: Math.ceil(cotDates.length / 10) });
    for (const r of res.body.data) {
      expect(Object.keys(r).sort()).toEqual([
        'commercial',
        'commodity',
        'exchange',
        'format',
        'non_commercial',
        'non_reportable',
        'open_interest',
        'report_date',
        'scope',
      ]);
      expect(r.scope).toBe('futures_only');
      expect(r.non_commercial.net).toBe(r.non_commercial.long - r.non_commercial.short);
    }
    const dis = await get(
      '/api/v1/commodities/CRUDE_OIL_WTI/cot?format=disaggregated&start_date=2024-01-09&end_date=2024-01-23&sort_order=asc',
    );
    expect(dis.body.data.map((r: { report_date: string }) => r.report_date)).toEqual([
      '2024-01-09',
      '2024-01-16',
      '2024-01-23',
    ]);
    expect(dis.body.data[0].managed_money).toMatchObject({ spreading: 150 });
    expect(
      (await get('/api/v1/commodities/CRUDE_OIL_WTI/cot?start_date=2010-01-01&end_date=2010-02-01')).body,
    ).toMatchObject({ data: [], meta: { total: 0, total_pages: 0 } });
    expect((await get('/api/v1/commodities/GOLD/cot')).body.error).toMatchObject({
      code: 'not_found',
      param: 'format',
    });
  });
});

describe('hot cache', () => {
  it('a hit returns identical bytes except the request id; a projected event invalidates over NATS', async () => {
    const url = '/api/v1/commodities/GOLD';
    const first = await get(url);
    await db.collection<CatalogDoc>(COLLECTIONS.catalog).updateOne({ _id: 'GOLD' }, { $set: { name: 'Gold Spot' } });
    const second = await get(url);
    expect(second.id).not.toBe(first.id);
    expect(second.raw.replace(second.id, '')).toBe(first.raw.replace(first.id, ''));
    expect(second.body.data.name).toBe('Gold');

    nc.publish(projectedSubject('catalog', 'GOLD'));
    await waitUntil(
      'the cache invalidation',
      async () => {
        const res = await get(url);
        if (res.body.data.name !== 'Gold Spot') throw new Error(`still ${res.body.data.name}`);
      },
      10_000,
    );
  });
});

describe('MongoDB unavailable', () => {
  let mongo: MongoHandle | undefined;
  afterAll(async () => {
    await mongo?.stop();
  });

  it('answers 503 in the contract shape when the server stops, and recovers when it is back', async () => {
    mongo = await startMongo();
    const own = new MongoClient(mongo.url, { serverSelectionTimeoutMS: 500, connectTimeoutMS: 500 });
    const ownDb = own.db(uniqueName('query_down'));
    await ownDb.collection(COLLECTIONS.catalog).insertOne(catalogDoc('GOLD', { name: 'Gold' }) as never);
    const target = buildApp({
      repository: createMongoRepository({ db: ownDb, maxTimeMs: 1000 }),
      cache: createResponseCache({ maxEntries: 10, maxBytes: 1_000_000, ttlMs: 60_000 }),
      publicBaseUrl: 'http://localhost:8080',
      checkResponses: true,
      clock,
    });
    try {
      expect((await get('/api/v1/commodities', target)).status).toBe(200);
      await mongo.kill();
      for (const url of [
        '/api/v1/commodities/GOLD',
        '/api/v1/commodities/GOLD/series?type=price',
        '/api/v1/commodities?page=2',
      ]) {
        const res = await get(url, target);
        expect(res.status).toBe(503);
        expect(res.body.error).toMatchObject({ code: 'service_unavailable', request_id: res.id });
        expect(res.raw).not.toContain('127.0.0.1');
      }
      expect((await target.inject('/readyz')).statusCode).toBe(503);
      await mongo.restart();
      await waitUntil(
        'recovery',
        async () => {
          if ((await target.inject('/api/v1/commodities/GOLD')).statusCode !== 200) throw new Error('not yet');
        },
        20_000,
      );
    } finally {
      await target.close();
      await own.close();
    }
  });

  it('answers 503 when nothing listens on the configured address', async () => {
    const port = await findFreePort();
    const nobody = new MongoClient(`mongodb://127.0.0.1:${port}`, { serverSelectionTimeoutMS: 300 });
    const target = buildApp({
      repository: createMongoRepository({ db: nobody.db('cds'), maxTimeMs: 1000 }),
      cache: createResponseCache({ maxEntries: 10, maxBytes: 1_000_000, ttlMs: 60_000 }),
      publicBaseUrl: 'http://localhost:8080',
      checkResponses: true,
      clock,
    });
    try {
      const res = await get('/api/v1/commodities/GOLD/cot', target);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('service_unavailable');
    } finally {
      await target.close();
      await nobody.close();
    }
  });
});
