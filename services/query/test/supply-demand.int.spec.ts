import { COLLECTIONS, type SupplyDemandBucketDoc } from '@cds/read-models';
import { createReadModelStore } from '@cds/store';
import { getTestInfra, uniqueName } from '@cds/testkit';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, createMongoRepository, createResponseCache } from '../src/index.ts';
import {
  catalogDoc,
  createQueryResponseValidator,
  supplyDemandSheet,
  type SheetRelease,
} from '../src/testing/index.ts';

// GET /commodities/{id}/supply-demand against a real MongoDB API server (FerretDB in the testkit),
// the balance sheets written through the store (its supply_demand collection) and read back by
// the query's repository with its read memo. The figures are the June 2026 WASDE's (sr12, U.S.
// corn: 2026/27 as projected in May and in June, 2025/26 estimated) and a world-table row; a
// corrected re-post of May the next day. Every answer is checked against the OpenAPI document.

const validate = createQueryResponseValidator();
const clock = () => new Date('2026-07-01T12:00:00Z');
const MAY = '2026-05-12T16:00:00.000Z';
const MAY_V2 = '2026-05-13T18:30:00.000Z';
const JUNE = '2026-06-11T16:00:00.000Z';
const MB = 'Million Bushels';
const MMT = 'Million Metric Tons';
const BASE = '/api/v1/commodities/CORN/supply-demand';

const may2026: SheetRelease['figures'] = [
  ['area_planted', 'Million Acres', 95.3],
  ['area_harvested', 'Million Acres', 87.4],
  ['yield', 'Bushels', 183],
  ['beginning_stocks', MB, 2142],
  ['production', MB, 15995],
  ['imports', MB, 25],
  ['supply_total', MB, 18162],
  ['feed_and_residual', MB, 6100],
  ['food_seed_industrial', MB, 6955],
  ['ethanol_and_by_products', MB, 5600],
  ['domestic_total', MB, 13055],
  ['exports', MB, 3150],
  ['use_total', MB, 16205],
  ['ending_stocks', MB, 1957],
  ['avg_farm_price', 'Dollars per Bushel', 4.4],
];
const JUNE_CHANGES: Record<string, number> = { beginning_stocks: 2145, supply_total: 18165, ending_stocks: 1960 };
const june2026 = may2026.map(([a, u, v]) => [a, u, JUNE_CHANGES[a] ?? v] as const);

function sheets(): SupplyDemandBucketDoc[] {
  return [
    supplyDemandSheet('CORN', 'united_states', '2026/27', [
      { p: MAY, figures: may2026 },
      // The re-post corrected nothing of corn: it confirms May's figures.
      { p: MAY_V2, figures: may2026 },
      { p: JUNE, figures: june2026 },
    ]),
    supplyDemandSheet('CORN', 'united_states', '2025/26', [
      {
        p: JUNE,
        status: 'estimate',
        figures: [
          ['beginning_stocks', MB, 1551],
          ['production', MB, 17021],
          ['imports', MB, 28],
          ['supply_total', MB, 18600],
          ['use_total', MB, 16455],
          ['ending_stocks', MB, 2145],
        ],
      },
    ]),
    supplyDemandSheet('CORN', 'world', '2026/27', [
      {
        p: JUNE,
        figures: [
          ['production', MMT, 1296.2],
          ['domestic_total', MMT, 1309.6],
          ['exports', MMT, 202.3],
          ['ending_stocks', MMT, 281.4],
        ],
      },
    ]),
  ];
}

let client: MongoClient;
let db: Db;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  client = new MongoClient(getTestInfra().mongoUrl, { serverSelectionTimeoutMS: 2000 });
  db = client.db(uniqueName('query_supply_demand'));
  await db.collection(COLLECTIONS.catalog).insertMany([
    catalogDoc('CORN', {
      name: 'Corn',
      symbol: 'ZC',
      category: 'agriculture',
      series: [
        {
          type: 'supply_demand',
          frequency: 'monthly',
          first_date: '2026-05-12',
          last_date: '2026-06-11',
          source: 'wasde:wasde0626.xml',
          last_updated: JUNE,
          first_published_at: MAY,
          regions: ['united_states', 'world'],
        },
      ],
    }),
    catalogDoc('GOLD', { name: 'Gold', symbol: 'GC', category: 'metals' }),
  ] as never[]);
  const store = createReadModelStore(db, { timeoutMs: 2000 });
  const coll = await store.collection<SupplyDemandBucketDoc>('supply_demand', COLLECTIONS.supply_demand);
  const docs = sheets();
  expect(await coll.compareAndSet(docs.map((doc) => ({ doc, rev: null })))).toEqual({
    written: docs.length,
    conflicts: 0,
  });
  app = buildApp({
    repository: createMongoRepository({ db, maxTimeMs: 2000, readMemo: { maxBuckets: 100, ttlMs: 60_000 } }),
    cache: createResponseCache({ maxEntries: 1000, maxBytes: 50_000_000, ttlMs: 60_000 }),
    publicBaseUrl: 'http://localhost:8080',
    checkResponses: true,
    clock,
  });
});

afterAll(async () => {
  await app?.close();
  await db?.dropDatabase();
  await client?.close();
});

async function get(url: string) {
  const res = await app.inject({ method: 'GET', url });
  validate(url, res);
  return { status: res.statusCode, body: res.json() };
}

type Figure = { marketing_year: string; attribute: string; value: number; edition: string; change?: number | null };

describe('GET /commodities/{id}/supply-demand on FerretDB', () => {
  it('answers the U.S. figures in force: newest marketing year first, balance-sheet order, stocks_to_use derived', async () => {
    const { status, body } = await get(`${BASE}?per_page=100`);
    expect(status).toBe(200);
    const rows = body.data.map((f: Figure) => `${f.marketing_year} ${f.attribute} ${f.value} ${f.edition}`);
    expect(rows.slice(0, 4)).toEqual([
      '2026/27 area_planted 95.3 2026-05',
      '2026/27 area_harvested 87.4 2026-05',
      '2026/27 yield 183 2026-05',
      '2026/27 beginning_stocks 2145 2026-06',
    ]);
    expect(rows).toContain('2026/27 ending_stocks 1960 2026-06');
    expect(rows).toContain('2026/27 stocks_to_use 0.121 2026-06');
    expect(rows.at(-2)).toBe('2025/26 ending_stocks 2145 2026-06');
    expect(rows.at(-1)).toBe('2025/26 stocks_to_use 0.1304 2026-06');
    expect(body.meta).toMatchObject({ commodity_id: 'CORN', region: 'united_states', view: 'figures', total: 23 });
    expect(body.meta.attribution).toContain('USDA World Agricultural Outlook Board');
  });

  it('answers as of an instant, first releases and revisions of the editions', async () => {
    const q = 'marketing_year=2026/27&attribute=ending_stocks';
    const asOf = await get(`${BASE}?${q}&as_of=2026-06-11T15:59:59Z`);
    expect(asOf.body.data.map((f: Figure) => [f.value, f.edition])).toEqual([[1957, '2026-05']]);
    const first = await get(`${BASE}?${q}&first_release=true`);
    expect(first.body.data[0]).toMatchObject({ value: 1957, published_at: MAY });
    expect(first.body.meta.first_release).toBe(true);
    const revisions = await get(`${BASE}?${q}&include=revisions`);
    expect(revisions.body.data[0]).toMatchObject({
      value: 1960,
      revisions: [{ value: 1957, edition: '2026-05', published_at: MAY, status: 'projection' }],
    });
    const world = await get(`${BASE}?region=world&attribute=stocks_to_use`);
    expect(world.body.data).toEqual([
      expect.objectContaining({ region: 'world', value: 0.2149, unit: 'ratio', derived: true }),
    ]);
  });

  it('shows one figure across every release of its sheet, the re-post included, with its change', async () => {
    const { body } = await get(`${BASE}?view=editions&marketing_year=2026/27&attribute=ending_stocks`);
    expect(
      body.data.map((f: Figure & { published_at: string }) => [f.edition, f.published_at, f.value, f.change]),
    ).toEqual([
      ['2026-05', MAY, 1957, null],
      ['2026-05', MAY_V2, 1957, 0],
      ['2026-06', JUNE, 1960, 3],
    ]);
    const asOf = await get(`${BASE}?view=editions&marketing_year=2026/27&attribute=ending_stocks&as_of=2026-06-01`);
    expect(asOf.body.data).toHaveLength(2);
  });

  it('refuses what the data does not have with 400s naming it, and a commodity without sheets with a 404', async () => {
    const refusal = async (query: string, param: string) => {
      const { status, body } = await get(`${BASE}?${query}`);
      expect(status).toBe(400);
      expect(body.error.param).toBe(param);
      return body.error.message as string;
    };
    expect(await refusal('region=brazil', 'region')).toContain('united_states, world');
    expect(await refusal('marketing_year=2019/20', 'marketing_year')).toContain('2026/27, 2025/26');
    expect(await refusal('region=world&attribute=yield', 'attribute')).toContain(
      'production, domestic_total, exports, ending_stocks, stocks_to_use',
    );
    await refusal('as_of=2026-05-12T15:59:59Z', 'as_of');
    const gold = await get('/api/v1/commodities/GOLD/supply-demand');
    expect(gold.status).toBe(404);
    expect(gold.body.error.message).toContain('the commodities with them (available_series: supply_demand) are CORN.');
  });
});
