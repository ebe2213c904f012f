// The series semantics through the real read side: events on NATS JetStream -> projector ->
// MongoDB API (FerretDB) -> query -> gateway. The data is small and hand-made so every expected
// value below is worked out by hand from the rules of docs/decisions.md, not recomputed by code.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { subjectFor, type DataEvent } from '@cds/contracts';
import { CATALOG, createPublisher, generateDemoItems, getCommodity, runIngest } from '@cds/ingest';
import { parseCftcSocrataJson } from '@cds/ingest/sources/cftc';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { REPO_ROOT } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startE2E, type E2E } from './support/harness.ts';
import { withoutPublication } from './support/publication.ts';
import { waitForProjections } from './support/projections.ts';

let e2e: E2E;
let messaging: Messaging;
let key: string;

// date, open, high, low, close, volume: a Friday before the range, two full weeks, a February week.
const PRICES: [string, number, number, number, number, number][] = [
  ['2023-12-29', 10, 12, 9, 11, 100],
  ['2024-01-01', 11, 13, 10, 12, 110],
  ['2024-01-02', 12, 15, 11, 14, 120],
  ['2024-01-03', 14, 16, 12, 13, 130],
  ['2024-01-04', 13, 14, 10, 11, 140],
  ['2024-01-05', 11, 13, 10, 12.5, 150],
  ['2024-01-08', 12.5, 14, 12, 13, 160],
  ['2024-01-09', 13, 17, 13, 16, 170],
  ['2024-01-10', 16, 16.5, 14, 15, 180],
  ['2024-02-01', 15, 15.5, 14.5, 15.2, 190],
  ['2024-02-02', 15.2, 15.3, 14.1, 14.4, 200],
];

/** A PRICES row as a series point: value = close. */
const pricePoint = ([date, o, h, l, c, vol]: (typeof PRICES)[number]) => ({
  date,
  value: c,
  open: o,
  high: h,
  low: l,
  close: c,
  volume: vol,
});

let n = 0;
function event<T extends DataEvent['type']>(type: T, data: Extract<DataEvent, { type: T }>['data']): DataEvent {
  n += 1;
  return {
    id: `read-side-${n}`,
    type,
    version: 1,
    occurred_at: new Date().toISOString(),
    source: 'e2e',
    data,
  } as DataEvent;
}

function series(type: 'price' | 'volume' | 'stocks', frequency: 'daily' | 'weekly', period: string, points: object[]) {
  return event('series.points.recorded', {
    commodity_id: 'GOLD',
    series_type: type,
    frequency,
    unit: type === 'price' ? 'USD/troy oz' : type === 'stocks' ? 'troy oz' : 'contracts',
    period,
    points: points as never,
  });
}

const SERIES = '/api/v1/commodities/GOLD/series';
/** A series answer; its points without their publication fields (asserted once, below). */
const get = async (query: string) => {
  const res = await e2e.get(`${SERIES}?${query}`, { key });
  expect(res.status, `${query}: ${res.text}`).toBe(200);
  const body = res.json as { data: Record<string, number | string>[]; meta: Record<string, unknown> };
  for (const p of body.data) expect(p.published_at, `${query}: published_at`).toEqual(expect.any(String));
  return { ...body, data: body.data.map(withoutPublication) };
};
const values = async (query: string) => (await get(query)).data.map((p) => [p.date, p.value]);

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  messaging = await connectMessaging({ servers: e2e.infra.natsUrl, name: 'read-side-e2e' });
  key = (await e2e.account('enterprise')).key;
  const events = [
    event('catalog.commodity.upserted', {
      id: 'GOLD',
      name: 'Gold',
      symbol: 'GC',
      category: 'metals',
      unit: 'USD/troy oz',
    }),
    series('price', 'daily', '2023', PRICES.filter(([d]) => d < '2024').map(pricePoint)),
    series('price', 'daily', '2024', PRICES.filter(([d]) => d >= '2024').map(pricePoint)),
    series(
      'volume',
      'daily',
      '2024',
      PRICES.filter(([d]) => d >= '2024').map(([date, , , , , vol]) => ({ date, value: vol })),
    ),
    series('stocks', 'weekly', '2024', [
      { date: '2024-01-05', value: 0 },
      { date: '2024-01-12', value: 5 },
      { date: '2024-01-19', value: 10 },
    ]),
  ];
  for (const e of events) await messaging.publish(subjectFor(e), e, { msgID: e.id });
  await eventually(
    'projections',
    async () => {
      const detail = await e2e.get('/api/v1/commodities/GOLD', { key, validate: false });
      const types = (detail.json?.data?.available_series ?? []).map((s: { type: string }) => s.type);
      if (!['price', 'volume', 'stocks'].every((t) => types.includes(t))) return false;
      const px = await e2e.get(`${SERIES}?type=price&start_date=2023-01-01&end_date=2024-12-31`, {
        key,
        validate: false,
      });
      return px.json?.data?.length === PRICES.length;
    },
    120_000,
  );
  // The checks above read the catalog and the prices; the volume and stocks series are asserted too.
  await waitForProjections(messaging, 60_000);
}, 240_000);

afterAll(async () => {
  await messaging?.close();
  await e2e?.stop();
}, 60_000);

const RANGE = 'start_date=2024-01-01&end_date=2024-02-29';

describe('resampling', () => {
  it('weekly price: open first, high max, low min, close = value last, volume sum, dated at the last observation', async () => {
    const res = await get(`type=price&frequency=weekly&${RANGE}`);
    expect(res.meta).toMatchObject({ frequency: 'weekly', transform: 'none', count: 3, unit: 'USD/troy oz' });
    expect(res.data).toEqual([
      { date: '2024-01-05', value: 12.5, open: 11, high: 16, low: 10, close: 12.5, volume: 650 },
      { date: '2024-01-10', value: 15, open: 12.5, high: 17, low: 12, close: 15, volume: 510 },
      { date: '2024-02-02', value: 14.4, open: 15, high: 15.5, low: 14.1, close: 14.4, volume: 390 },
    ]);
  });

  it('monthly price by calendar month', async () => {
    const res = await get(`type=price&frequency=monthly&${RANGE}`);
    expect(res.data).toEqual([
      { date: '2024-01-10', value: 15, open: 11, high: 17, low: 10, close: 15, volume: 1160 },
      { date: '2024-02-02', value: 14.4, open: 15, high: 15.5, low: 14.1, close: 14.4, volume: 390 },
    ]);
  });

  it('a volume series sums; any other type takes the last value; finer than native is a 400', async () => {
    expect(await values(`type=volume&frequency=weekly&${RANGE}`)).toEqual([
      ['2024-01-05', 650],
      ['2024-01-10', 510],
      ['2024-02-02', 390],
    ]);
    expect(await values(`type=stocks&frequency=monthly&${RANGE}`)).toEqual([['2024-01-19', 10]]);
    const finer = await e2e.get(`${SERIES}?type=stocks&frequency=daily&${RANGE}`, { key });
    expect(finer.status).toBe(400);
    expect(finer.json.error.param).toBe('frequency');
  });
});

describe('transforms at the edges of the range', () => {
  const DAYS = 'start_date=2024-01-01&end_date=2024-01-10';

  it('change: the first point in range takes the last observation before start_date as predecessor', async () => {
    expect(await values(`type=price&transform=change&${DAYS}`)).toEqual([
      ['2024-01-01', 1],
      ['2024-01-02', 2],
      ['2024-01-03', -1],
      ['2024-01-04', -2],
      ['2024-01-05', 1.5],
      ['2024-01-08', 0.5],
      ['2024-01-09', 3],
      ['2024-01-10', -1],
    ]);
  });

  it('the first point of the series has no predecessor and is left out', async () => {
    const res = await values('type=price&transform=change&start_date=2023-12-29&end_date=2024-01-02');
    expect(res).toEqual([
      ['2024-01-01', 1],
      ['2024-01-02', 2],
    ]);
  });

  it('pct_change is a percent rounded to 6 decimals; price points carry value only', async () => {
    const res = await get(`type=price&transform=pct_change&${DAYS}`);
    expect(res.meta.unit).toBe('percent');
    expect(res.data.slice(0, 3)).toEqual([
      { date: '2024-01-01', value: 9.090909 },
      { date: '2024-01-02', value: 16.666667 },
      { date: '2024-01-03', value: -7.142857 },
    ]);
  });

  it('pct_change leaves out a point whose predecessor is 0', async () => {
    expect(await values('type=stocks&transform=change&start_date=2024-01-01&end_date=2024-01-31')).toEqual([
      ['2024-01-12', 5],
      ['2024-01-19', 5],
    ]);
    expect(await values('type=stocks&transform=pct_change&start_date=2024-01-01&end_date=2024-01-31')).toEqual([
      ['2024-01-19', 100],
    ]);
  });

  it('cumulative is a running sum from the first point in range', async () => {
    expect((await values(`type=price&transform=cumulative&${DAYS}`)).map(([, v]) => v)).toEqual([
      12, 26, 39, 50, 62.5, 75.5, 91.5, 106.5,
    ]);
  });

  it("weekly change: the predecessor is the week before; inside a week, that week's earlier days", async () => {
    expect(await values(`type=price&frequency=weekly&transform=change&${RANGE}`)).toEqual([
      ['2024-01-05', 1.5],
      ['2024-01-10', 2.5],
      ['2024-02-02', -0.6],
    ]);
    // start_date on a Wednesday: Jan 1-2 form the predecessor period (close 14) of Jan 3-5 (close 12.5).
    expect(
      await values('type=price&frequency=weekly&transform=change&start_date=2024-01-03&end_date=2024-01-05'),
    ).toEqual([['2024-01-05', -1.5]]);
  });
});

describe('ordering and limits', () => {
  it('limit applies after sorting: desc + limit 3 are the three latest', async () => {
    expect((await values(`type=price&sort_order=desc&limit=3&${RANGE}`)).map(([d]) => d)).toEqual([
      '2024-02-02',
      '2024-02-01',
      '2024-01-10',
    ]);
    expect((await values(`type=price&limit=2&${RANGE}`)).map(([d]) => d)).toEqual(['2024-01-01', '2024-01-02']);
  });

  it('a range with no data is 200 with no points; a page past the last is 200 with no items', async () => {
    const empty = await get('type=price&start_date=2010-01-01&end_date=2010-12-31');
    expect(empty.data).toEqual([]);
    expect(empty.meta.count).toBe(0);
    const past = await e2e.get('/api/v1/commodities?page=50&per_page=100', { key });
    expect(past.status).toBe(200);
    expect(past.json.data).toEqual([]);
    expect(past.json.meta.page).toBe(50);
  });
});

describe('idempotency', () => {
  it('publishing the same facts again under new message ids changes no answer', async () => {
    const before = await get(`type=price&frequency=weekly&${RANGE}`);
    const again = series('price', 'daily', '2024', PRICES.filter(([d]) => d >= '2024').map(pricePoint));
    const ack = await messaging.publish(subjectFor(again), again, { msgID: `${again.id}-republished` });
    expect(ack.duplicate).toBe(false);
    // Wait until the series projection has handled the new event (its announcement drops the caches).
    await eventually('series projection passed the republished event', async () => {
      const metrics = await (await fetch(`${e2e.system.projector.url}/metrics`)).text();
      const m = /cds_projector_last_position\{[^}]*projection="series"[^}]*\} (\d+)/.exec(metrics);
      return m !== null && Number(m[1]) >= ack.seq;
    });
    const after = await get(`type=price&frequency=weekly&${RANGE}`);
    expect(after.data).toEqual(before.data);
  });
});

describe('provenance (issue #12)', () => {
  it('CFTC reports are served as cftc:legacy:<code> and demo data as demo, with last_updated and the identifiers', async () => {
    const publisher = createPublisher({ js: messaging.js });
    const crude = getCommodity('CRUDE_OIL_WTI')!;
    const corn = getCommodity('CORN')!;
    const before = Date.now();
    // a recorded answer of the CFTC's public reporting API, through the ingest pipeline
    const fixture = readFileSync(join(REPO_ROOT, 'services/ingest/test/fixtures/cftc_socrata_legacy_sample.json'));
    const cftc = await runIngest({
      items: parseCftcSocrataJson([fixture], {
        catalog: CATALOG,
        file: 'cftc_socrata_legacy_sample.json',
        format: 'legacy',
      }),
      publisher,
      catalog: [crude.entry],
      source: 'cftc-legacy:socrata',
    });
    expect(cftc.eventsPublished).toBeGreaterThan(0);
    const demo = await runIngest({
      items: generateDemoItems({ commodities: ['CORN'], years: 1 }),
      publisher,
      catalog: [corn.entry],
      source: 'demo',
    });
    expect(demo.eventsPublished).toBeGreaterThan(0);
    await eventually(
      'provenance projected',
      async () => {
        const wti = await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI', { key, validate: false });
        const cornDetail = await e2e.get('/api/v1/commodities/CORN', { key, validate: false });
        const has = (d: typeof wti, type: string) =>
          (d.json?.data?.available_series ?? []).some((s: { type: string; source?: string }) => s.type === type);
        return has(wti, 'cot_legacy') && has(cornDetail, 'cot_disaggregated') && has(cornDetail, 'production');
      },
      120_000,
    );
    // That is the catalog's view; the COT reports and the series below come from other projections.
    await waitForProjections(messaging, 120_000);

    // every answer below is validated against the OpenAPI document by the harness
    const wti = (await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI', { key })).json.data;
    const cot = wti.available_series.find((s: { type: string }) => s.type === 'cot_legacy');
    expect(cot).toMatchObject({ source: 'cftc:legacy:067651', first_date: '2025-01-07', last_date: '2025-01-07' });
    expect(Date.parse(cot.last_updated)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(cot.last_updated)).toBeLessThanOrEqual(Date.now());
    expect(wti.identifiers).toEqual({
      cftc_contract_codes: ['067651'],
      eia_series: crude.entry.identifiers!.eia_series,
      nass_items: [],
    });
    expect(wti.identifiers.eia_series).toContain('RWTC');
    const reports = (await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI/cot', { key })).json.data;
    expect(reports).toEqual([
      expect.objectContaining({
        report_date: '2025-01-07',
        open_interest: 1958411,
        source: 'cftc:legacy:067651',
        last_updated: cot.last_updated,
      }),
    ]);

    const cornDetail = (await e2e.get('/api/v1/commodities/CORN', { key })).json.data;
    expect(cornDetail.available_series.length).toBeGreaterThan(3);
    for (const s of cornDetail.available_series) {
      expect(s.source, s.type).toBe('demo');
      expect(Date.parse(s.last_updated)).toBeGreaterThanOrEqual(before - 1_000);
    }
    expect(cornDetail.identifiers.nass_items).toContain('CORN, GRAIN - PRODUCTION, MEASURED IN BU');
    const series = (await e2e.get('/api/v1/commodities/CORN/series?type=price&limit=1&sort_order=desc', { key })).json;
    expect(series.meta).toMatchObject({ source: 'demo', count: 1 });
    const cornCot = (await e2e.get('/api/v1/commodities/CORN/cot?format=disaggregated&per_page=1', { key })).json
      .data[0];
    expect(cornCot.source).toBe('demo');
    // dated like a real report: a Tuesday (or the Monday of a Tuesday holiday), never after the last release
    expect([1, 2]).toContain(new Date(`${cornCot.report_date}T00:00:00Z`).getUTCDay());
    expect(cornCot.report_date < new Date().toISOString().slice(0, 10)).toBe(true);
  }, 180_000);
});
