import { describe, expect, it } from 'vitest';
import { createResponseCache } from '@cds/response-cache';
import { buildApp } from './app.ts';
import {
  catalogDoc,
  cotDoc,
  createFakeRepository,
  createQueryResponseValidator,
  dateRange,
  descriptorOf,
  seriesBuckets,
} from './testing/index.ts';

// Provenance (issue #12): `source` and `last_updated` beside the spec's fields on each series
// descriptor, on series meta and on each COT report, and the commodity's official identifiers,
// all optional: documents written before provenance are served exactly as before.

const TODAY = '2026-11-24';
const T1 = '2026-11-20T21:00:05.123Z';
const T2 = '2026-11-24T03:00:00Z';
const validate = createQueryResponseValidator();

const days = dateRange('2026-10-01', '2026-11-20', true);
const prices = days.map((d, i) => ({ d, v: 70 + i }));
const cotDates = ['2026-11-03', '2026-11-10', '2026-11-17'];

function setup() {
  const repo = createFakeRepository({
    catalog: [
      catalogDoc('CRUDE_OIL_WTI', {
        name: 'Crude Oil (WTI)',
        category: 'energy',
        identifiers: {
          cftc_contract_codes: ['067651'],
          eia_series: ['RWTC', 'WCESTUS1'],
          nass_items: [],
        },
        series: [
          {
            ...descriptorOf('price', prices, 'daily', 'USD/bbl'),
            source: 'eia:RWTC',
            price_basis: 'spot',
            last_updated: T1,
          },
          {
            ...descriptorOf(
              'cot_legacy',
              cotDates.map((d) => ({ d })),
              'weekly',
            ),
            source: 'cftc:legacy:067651',
            last_updated: T1,
          },
        ],
      }),
      catalogDoc('GOLD', {
        name: 'Gold',
        series: [
          descriptorOf('price', prices, 'daily', 'USD/ozt'),
          descriptorOf('cot_legacy', [{ d: '2026-11-17' }], 'weekly'),
        ],
      }),
    ],
    series: [...seriesBuckets('CRUDE_OIL_WTI', 'price', prices), ...seriesBuckets('GOLD', 'price', prices)],
    cot: [
      ...cotDates.map((d, i) => ({
        ...cotDoc('CRUDE_OIL_WTI', 'legacy', d, i + 1),
        source: 'cftc:legacy:067651',
        last_updated: T1,
      })),
      cotDoc('GOLD', 'legacy', '2026-11-17'),
    ],
  });
  const cache = createResponseCache({ maxEntries: 100, maxBytes: 10_000_000, ttlMs: 60_000 });
  const app = buildApp({
    repository: repo,
    cache,
    publicBaseUrl: 'https://api.example.com',
    checkResponses: true,
    clock: () => new Date(`${TODAY}T12:00:00Z`),
  });
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url });
    validate(url, res);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  return { repo, cache, get };
}

describe('provenance in the answers', () => {
  it('the detail: source and last_updated on each descriptor, and the official identifiers', async () => {
    const { get } = setup();
    const body = await get('/api/v1/commodities/CRUDE_OIL_WTI');
    expect(body.data.available_series).toEqual([
      {
        type: 'cot_legacy',
        frequency: 'weekly',
        first_date: '2026-11-03',
        last_date: '2026-11-17',
        source: 'cftc:legacy:067651',
        last_updated: T1,
        attribution: 'U.S. Commodity Futures Trading Commission: Commitments of Traders (public domain)',
      },
      {
        type: 'price',
        frequency: 'daily',
        first_date: days[0],
        last_date: days.at(-1),
        price_basis: 'spot',
        source: 'eia:RWTC',
        last_updated: T1,
        attribution: 'Source: U.S. Energy Information Administration (public domain)',
      },
    ]);
    expect(body.data.identifiers).toEqual({
      cftc_contract_codes: ['067651'],
      eia_series: ['RWTC', 'WCESTUS1'],
      nass_items: [],
    });
  });

  it("series meta carries the series' source and last_updated, whatever range or transform is asked", async () => {
    const { get } = setup();
    const plain = await get('/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2026-11-01');
    expect(plain.meta).toMatchObject({
      source: 'eia:RWTC',
      price_basis: 'spot',
      attribution: 'Source: U.S. Energy Information Administration (public domain)',
      last_updated: T1,
      count: 15,
    });
    const empty = await get(
      '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2020-01-01&end_date=2020-02-01&transform=pct_change',
    );
    expect(empty.meta).toMatchObject({ source: 'eia:RWTC', last_updated: T1, count: 0 });
  });

  it('each COT report carries its own source and last_updated', async () => {
    const { get } = setup();
    const body = await get('/api/v1/commodities/CRUDE_OIL_WTI/cot');
    expect(body.data.map((r: { report_date: string; source: string; last_updated: string }) => r.source)).toEqual([
      'cftc:legacy:067651',
      'cftc:legacy:067651',
      'cftc:legacy:067651',
    ]);
    expect(body.data[0]).toMatchObject({ report_date: '2026-11-17', last_updated: T1 });
  });

  it('documents without provenance are served without the optional fields', async () => {
    const { get } = setup();
    const detail = await get('/api/v1/commodities/GOLD');
    expect(detail.data).not.toHaveProperty('identifiers');
    for (const d of detail.data.available_series) {
      expect(d).not.toHaveProperty('source');
      expect(d).not.toHaveProperty('last_updated');
    }
    const series = await get('/api/v1/commodities/GOLD/series?type=price');
    expect(series.meta).not.toHaveProperty('source');
    const cot = await get('/api/v1/commodities/GOLD/cot');
    expect(cot.data[0]).not.toHaveProperty('source');
    expect(cot.data[0]).not.toHaveProperty('last_updated');
  });

  it("after the projector's announcement (cache invalidation) the new last_updated is served, not a cached one", async () => {
    const { repo, cache, get } = setup();
    const url = '/api/v1/commodities/CRUDE_OIL_WTI/series?type=price';
    expect((await get(url)).meta.last_updated).toBe(T1);
    const doc = repo.data.catalog[0]!;
    doc.series.price = { ...doc.series.price!, last_updated: T2 };
    expect((await get(url)).meta.last_updated).toBe(T1); // cached until the announcement
    cache.invalidate('CRUDE_OIL_WTI');
    expect((await get(url)).meta.last_updated).toBe(T2);
    expect((await get('/api/v1/commodities/CRUDE_OIL_WTI')).data.available_series[1].last_updated).toBe(T2);
  });
});
