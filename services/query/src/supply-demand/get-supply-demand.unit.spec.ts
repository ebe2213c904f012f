import { createResponseCache } from '@cds/response-cache';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import {
  catalogDoc,
  createFakeRepository,
  createQueryResponseValidator,
  supplyDemandSheet,
  type FakeRepository,
} from '../testing/index.ts';

// The May and June 2026 WASDE releases (12:00 New York).
const MAY = '2026-05-12T16:00:00.000Z';
const JUNE = '2026-06-11T16:00:00.000Z';
const MB = 'Million Bushels';
const validate = createQueryResponseValidator();

const sheets = () => [
  supplyDemandSheet('CORN', 'united_states', '2026/27', [
    {
      p: MAY,
      figures: [
        ['ending_stocks', MB, 1957],
        ['use_total', MB, 16205],
        ['production', MB, 15995],
      ],
    },
    {
      p: JUNE,
      figures: [
        ['ending_stocks', MB, 1960],
        ['use_total', MB, 16205],
        ['production', MB, 15995],
      ],
    },
  ]),
  supplyDemandSheet('CORN', 'united_states', '2025/26', [
    { p: JUNE, status: 'estimate', failed: ['supply_equals_use_plus_ending_stocks'], figures: [['exports', MB, 3325]] },
  ]),
  supplyDemandSheet('CORN', 'world', '2026/27', [{ p: JUNE, figures: [['production', 'Million Metric Tons', 1300]] }]),
];

let repo: FakeRepository;
let app: ReturnType<typeof buildApp>;

beforeEach(() => {
  repo = createFakeRepository({
    catalog: [
      catalogDoc('CORN', {
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
      catalogDoc('GOLD'),
    ],
    supplyDemand: sheets(),
  });
  app = buildApp({
    repository: repo,
    cache: createResponseCache({ maxEntries: 100, maxBytes: 10_000_000, ttlMs: 60_000 }),
    publicBaseUrl: 'https://api.example.com',
    checkResponses: true,
    clock: () => new Date('2026-07-01T12:00:00Z'),
  });
});

async function get(url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  if (res.headers['content-type']?.toString().startsWith('application/json')) validate(url, res);
  return { status: res.statusCode, body: headers.accept === 'text/csv' ? undefined : res.json(), res };
}

const base = '/api/v1/commodities/CORN/supply-demand';

describe('GET /commodities/{slug}/supply-demand', () => {
  it('answers the figures in force of the United States, newest marketing year first, with the attribution', async () => {
    const { status, body } = await get(base);
    expect(status).toBe(200);
    expect(
      body.data.map((f: { marketing_year: string; attribute: string }) => `${f.marketing_year} ${f.attribute}`),
    ).toEqual([
      '2026/27 production',
      '2026/27 use_total',
      '2026/27 ending_stocks',
      '2026/27 stocks_to_use',
      '2025/26 exports',
    ]);
    expect(body.data[4]).toMatchObject({ status: 'estimate', failed_checks: ['supply_equals_use_plus_ending_stocks'] });
    expect(body.meta).toMatchObject({
      commodity_id: 'CORN',
      region: 'united_states',
      view: 'figures',
      page: 1,
      total: 5,
      total_pages: 1,
      source: 'wasde:wasde0626.xml',
      attribution: expect.stringContaining('USDA World Agricultural Outlook Board'),
    });
  });

  it('pages, filters by marketing year and attribute, and answers as of an instant', async () => {
    const page = await get(`${base}?per_page=2&page=2`);
    expect(page.body.meta).toMatchObject({ page: 2, per_page: 2, total: 5, total_pages: 3 });
    expect(page.body.data.map((f: { attribute: string }) => f.attribute)).toEqual(['ending_stocks', 'stocks_to_use']);
    const asOf = await get(`${base}?marketing_year=2026/27&attribute=ending_stocks&as_of=2026-06-01`);
    expect(asOf.body.data).toEqual([expect.objectContaining({ value: 1957, edition: '2026-05' })]);
    expect(asOf.body.meta.as_of).toBe('2026-06-01T23:59:59.999Z');
    const world = await get(`${base}?region=world`);
    expect(world.body.data).toEqual([expect.objectContaining({ region: 'world', attribute: 'production' })]);
  });

  it('shows one figure across its editions with the change', async () => {
    const { body } = await get(`${base}?view=editions&marketing_year=2026/27&attribute=ending_stocks`);
    expect(
      body.data.map((f: { edition: string; value: number; change: number | null }) => [f.edition, f.value, f.change]),
    ).toEqual([
      ['2026-05', 1957, null],
      ['2026-06', 1960, 3],
    ]);
    expect(body.meta.view).toBe('editions');
  });

  it('refuses unknown regions, marketing years, attributes and as_of outside the data with 400s naming them', async () => {
    const refusal = async (query: string) => {
      const { status, body } = await get(`${base}?${query}`);
      expect(status).toBe(400);
      return body.error;
    };
    expect(await refusal('region=china')).toMatchObject({
      param: 'region',
      message: expect.stringContaining('united_states, world'),
    });
    expect(await refusal('marketing_year=1999/00')).toMatchObject({
      param: 'marketing_year',
      message: expect.stringContaining('2026/27, 2025/26'),
    });
    expect(await refusal('attribute=stocks')).toMatchObject({
      param: 'attribute',
      message: expect.stringContaining('production, exports, use_total, ending_stocks, stocks_to_use'),
    });
    expect(await refusal('as_of=2026-05-01')).toMatchObject({ param: 'as_of' });
    expect(await refusal('as_of=2026-08-01')).toMatchObject({ param: 'as_of' });
    expect(await refusal('view=editions&attribute=ending_stocks')).toMatchObject({ param: 'marketing_year' });
  });

  it('is a 404 for an unknown commodity and for one without balance sheets, naming those with them', async () => {
    expect((await get('/api/v1/commodities/NOPE/supply-demand')).status).toBe(404);
    const gold = await get('/api/v1/commodities/GOLD/supply-demand');
    expect(gold.status).toBe(404);
    expect(gold.body.error).toMatchObject({ param: 'slug', message: expect.stringContaining('are CORN') });
  });

  it('answers CSV with its columns and file name, and caches (a second request does not read)', async () => {
    const { res } = await get(`${base}?view=editions&marketing_year=2026/27&attribute=stocks_to_use`, {
      accept: 'text/csv',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="CORN-supply-demand-united_states-2026-27-stocks_to_use.csv"',
    );
    expect(res.body.split('\r\n')).toEqual([
      'marketing_year,region,attribute,value,unit,edition,status,derived,change',
      '2026/27,united_states,stocks_to_use,0.1208,ratio,2026-05,projection,true,',
      '2026/27,united_states,stocks_to_use,0.121,ratio,2026-06,projection,true,0.0002',
      '',
    ]);
    const reads = repo.calls.supplyDemandSheets;
    await get(`${base}?view=editions&marketing_year=2026/27&attribute=stocks_to_use`, { accept: 'text/csv' });
    expect(repo.calls.supplyDemandSheets).toBe(reads);
  });
});
