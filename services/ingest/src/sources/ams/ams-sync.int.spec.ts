import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { startNats, type NatsHandle } from '@cds/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ownFixturePath } from '../../../test/helpers/source-fixtures.ts';
import { COMMODITIES } from '../registry.ts';
import { CATALOG_WITH_LM_CT150 } from '../../../test/helpers/ams-catalog.ts';
import { createKvLedger } from '../../publish/ledger.ts';
import { createPublisher } from '../../publish/publisher.ts';
import { ensureEventStreams } from '../../publish/streams.ts';
import { runSync, type SyncOptions } from '../../sync/run-sync.ts';
import { createKvSyncStore, type SyncStore } from '../../sync/state.ts';
import { createDataEventReader, type StoredDataEvent } from '../../../test/helpers/data-events.ts';

type Row = Record<string, unknown>;

// `ingest sync --source ams` against real NATS and a local stand-in for the LMR datamart on
// 127.0.0.1. The LM_HG201 rows are the real recorded rows of the fixture; the LM_CT150 and FMMO
// rows are the hand-written ones (test/fixtures/README.md). The server wraps the rows of a query
// in the `allSections=true` shape (an array of report sections) and filters them on the query.
class DatamartServer {
  server: Server | undefined;
  baseUrl = '';
  readonly requests: URL[] = [];
  rows = new Map<string, { section: string; rows: Row[] }>();
  /** Next answers replaced: a truncated body, a 503. */
  faults: { slug: string; times: number; kind: 'truncate' | '503' }[] = [];

  reset(): void {
    const load = (name: string) => JSON.parse(readFileSync(ownFixturePath(name), 'utf8')) as unknown;
    const hg = (load('ams_lm_hg201_barrows_gilts_2019-02_excerpt.json') as { results: Row[] }).results;
    const ct = (load('ams_lm_ct150_handwritten.json') as { reportSection: string; results: Row[] }[]).find(
      (s) => s.reportSection === 'Detail',
    )!.results;
    const fmmo = (load('ams_fmmo_class_prices_handwritten.json') as { results: Row[] }).results;
    this.rows = new Map([
      ['2511', { section: 'Barrows/Gilts', rows: hg }],
      ['2477', { section: 'Detail', rows: ct }],
      ['3355', { section: 'Final Class Prices by Order', rows: fmmo }],
    ]);
    this.faults = [];
    this.requests.length = 0;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', this.baseUrl);
      this.requests.push(url);
      const slug = /^\/services\/v1\.1\/reports\/(\d+)$/.exec(url.pathname)?.[1] ?? '';
      const fault = this.faults.find((f) => f.slug === slug && f.times > 0);
      if (fault) fault.times--;
      if (fault?.kind === '503') {
        res.writeHead(503).end();
        return;
      }
      const { status, body } = this.answer(slug, url);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(fault?.kind === 'truncate' ? body.slice(0, body.length - 7) : body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The `q` of each request to a report, e.g. `report_date=01/21/2019:02/22/2019`. */
  queries(slug: string): string[] {
    return this.requests
      .filter((u) => u.pathname.endsWith(`/${slug}`))
      .map((u) => decodeURIComponent(/[?&]q=([^&]*)/.exec(u.search)?.[1] ?? ''));
  }

  private answer(slug: string, url: URL): { status: number; body: string } {
    const recorded = this.rows.get(slug);
    if (!recorded) return { status: 404, body: '{"message":"not found"}' };
    const q = decodeURIComponent(/[?&]q=([^&]*)/.exec(url.search)?.[1] ?? '');
    const iso = (us: string) => `${us.slice(6, 10)}-${us.slice(0, 2)}-${us.slice(3, 5)}`;
    let rows: Row[];
    const range = /^report_date=(\d\d\/\d\d\/\d{4}):(\d\d\/\d\d\/\d{4})$/.exec(q);
    const year = /^report_year=(\d{4})$/.exec(q);
    if (range) {
      const [from, to] = [iso(range[1]!), iso(range[2]!)];
      rows = recorded.rows.filter((r) => iso(String(r.report_date)) >= from && iso(String(r.report_date)) <= to);
    } else if (year) rows = recorded.rows.filter((r) => r.report_year === year[1]);
    else return { status: 400, body: '{"message":"bad query"}' };
    if (rows.length === 0) return { status: 200, body: JSON.stringify({ message: 'No Results Found' }) };
    const sections = ['Summary', recorded.section];
    return {
      status: 200,
      body: JSON.stringify([
        { reportSection: 'Summary', reportSections: sections, stats: {}, results: [] },
        { reportSection: recorded.section, reportSections: sections, stats: {}, results: rows },
      ]),
    };
  }
}

let nats: NatsHandle;
let messaging: Messaging;
let store: SyncStore;
const datamart = new DatamartServer();

/** The data events stored since the last call (catalog entries left out); a new reader per test. */
let newEvents: () => Promise<StoredDataEvent[]>;

let fakeNow = 1_000_000;
const sleeps: number[] = [];
const fastHttp: SyncOptions['http'] = {
  minIntervalMs: 0,
  baseDelayMs: 100,
  random: () => 0.5,
  now: () => fakeNow,
  sleep: (ms) => {
    sleeps.push(ms);
    fakeNow += ms;
    return Promise.resolve();
  },
};

async function sync(today: string, commodities: string[], over: Partial<SyncOptions> = {}) {
  const ledger = await createKvLedger(messaging.js, { replicas: 1 });
  return runSync({
    sources: ['ams'],
    publisher: () => createPublisher({ js: messaging.js, ledger }),
    store,
    catalogEntries: COMMODITIES.map((c) => c.entry),
    commodities,
    // LIVE_CATTLE on LM_CT150 (its NASS price in the curated catalog), so the weekly report is synced too
    catalog: CATALOG_WITH_LM_CT150,
    baseUrls: { ams: datamart.baseUrl },
    clock: () => new Date(`${today}T18:00:00Z`),
    http: fastHttp,
    ...over,
  });
}

const summary = (e: { data: Record<string, unknown> }) => ({
  commodity_id: e.data.commodity_id,
  frequency: e.data.frequency,
  unit: e.data.unit,
  source: e.data.source,
  price_basis: e.data.price_basis,
  points: e.data.points,
});

/**
 * The summaries of the events with the points of one series together: a series event carries the
 * points of one release (`published_at`), so the daily reports of LMR come one event per report.
 */
function bySeries(events: { data: Record<string, unknown> }[]) {
  const out = new Map<string, ReturnType<typeof summary> & { points: { date: string }[] }>();
  for (const e of events) {
    const { points, ...key } = summary(e);
    const held = out.get(JSON.stringify(key)) ?? { ...key, points: [] };
    held.points.push(...(points as { date: string }[]));
    out.set(JSON.stringify(key), held);
  }
  return [...out.values()].map((s) => ({ ...s, points: s.points.sort((a, b) => (a.date < b.date ? -1 : 1)) }));
}

/** Each event's points' dates with its publication. */
const stamps = (events: { data: Record<string, unknown> }[]) =>
  events.map((e) => [
    (e.data.points as { date: string }[]).map((p) => p.date).join(' '),
    e.data.published_at,
    e.data.published_at_estimated,
  ]);

beforeAll(async () => {
  await datamart.start();
});
afterAll(async () => {
  await datamart.stop();
});
beforeEach(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'ams-sync-int-spec' });
  await ensureEventStreams(messaging, { replicas: 1, duplicateWindowMs: 120_000 });
  store = await createKvSyncStore(messaging.js, { replicas: 1 });
  datamart.reset();
  sleeps.length = 0;
  newEvents = createDataEventReader(messaging);
});
afterEach(async () => {
  await messaging?.close().catch(() => undefined);
  await nats?.stop();
});

describe('ingest sync --source ams against a recorded datamart', () => {
  it('publishes LM_HG201 from the initial lookback in 180-day windows, then asks from cursor - overlap', async () => {
    const [first] = await sync('2019-02-22', ['LEAN_HOGS']);
    expect([first!.ok, first!.error]).toEqual([true, undefined]);
    const events = (await newEvents()).filter((e) => e.type === 'series.points.recorded');
    // each slaughter day published with the report of the next day (report_date), by 11:00 ET
    expect(stamps(events).sort()).toEqual([
      ['2019-02-19', '2019-02-20T16:00:00.000Z', true],
      ['2019-02-20', '2019-02-21T16:00:00.000Z', true],
    ]);
    expect(bySeries(events)).toEqual([
      {
        commodity_id: 'LEAN_HOGS',
        frequency: 'daily',
        unit: 'USD/cwt',
        source: 'ams:LM_HG201',
        price_basis: 'cash',
        points: [
          { date: '2019-02-19', value: 49.51 },
          { date: '2019-02-20', value: 50.66 },
        ],
      },
    ]);
    // three years back from 2019-02-22, no window longer than 180 days, no key anywhere
    const asked = datamart.queries('2511');
    expect(asked[0]).toBe('report_date=02/23/2016:08/20/2016');
    expect(asked.at(-1)).toMatch(/:02\/22\/2019$/);
    expect(asked).toHaveLength(7);
    expect(datamart.requests.every((u) => u.search.endsWith('&allSections=true') && !/key/i.test(u.search))).toBe(true);
    expect(first!.status).toMatchObject({ source: 'ams', newest_data_date: '2019-02-20' });

    datamart.requests.length = 0;
    const [second] = await sync('2019-02-22', ['LEAN_HOGS']);
    expect(second!.ok).toBe(true);
    expect(datamart.queries('2511')).toEqual(['report_date=01/21/2019:02/22/2019']);
    expect(await newEvents()).toEqual([]);
  });

  it('a revised price travels in a new event with just that day; a truncated body is fetched again', async () => {
    await sync('2019-02-22', ['LEAN_HOGS']);
    await newEvents();
    const negotiated = datamart.rows
      .get('2511')!
      .rows.find((r) => r.purchase_type === 'Prod. Sold Negotiated' && r.for_date_begin === '02/20/2019')!;
    negotiated.avg_net_price = '50.70';
    datamart.faults.push({ slug: '2511', times: 1, kind: 'truncate' });
    const [r] = await sync('2019-02-22', ['LEAN_HOGS']);
    expect([r!.ok, r!.series[0]!.revised]).toEqual([true, 1]);
    expect((await newEvents()).map((e) => e.data.points)).toEqual([[{ date: '2019-02-20', value: 50.7 }]]);
    expect(sleeps.length).toBeGreaterThan(0);
  });

  it('a renamed field fails the series, naming it; nothing is published and the cursor stays', async () => {
    await sync('2019-02-22', ['LEAN_HOGS']);
    await newEvents();
    const before = await store.getCursor('ams', 'LM_HG201');
    for (const row of datamart.rows.get('2511')!.rows) {
      if ('avg_net_price' in row) {
        row.net_price_avg = '99.99';
        delete row.avg_net_price;
      }
    }
    const [r] = await sync('2019-02-22', ['LEAN_HOGS']);
    expect(r!.ok).toBe(false);
    expect(r!.error).toMatch(/LM_HG201: .*has no "avg_net_price" field \(fields: .*net_price_avg/);
    expect(await newEvents()).toEqual([]);
    expect((await store.getCursor('ams', 'LM_HG201'))?.newest_date).toBe(before?.newest_date);
    expect((await store.getStatus('ams'))?.last_error).toMatch(/1 of 1 series failed/);
  });

  it('syncs LM_CT150 weekly and the FMMO Class III price by year; "No Results Found" is an empty answer', async () => {
    const results = await sync('2025-02-10', ['LIVE_CATTLE', 'MILK_CLASS_III']);
    expect(results.map((r) => [r.source, r.ok, r.series.map((s) => [s.series, s.ok, s.fresh])])).toEqual([
      [
        'ams',
        true,
        [
          ['LM_CT150', true, 3],
          ['FMMO_CLASS', true, 2], // two points; the "Febtober" row is rejected
        ],
      ],
    ]);
    const stored = (await newEvents()).filter((e) => e.type === 'series.points.recorded');
    const events = bySeries(stored);
    // LM_CT150 rows date their report: one event per report. FMMO rows do not: AMS's last
    // scheduled release before the sync (Monday 2025-02-10, 11:00 EST), estimated
    expect(stamps(stored).sort()).toEqual([
      ['2024-01-31 2024-02-29', '2025-02-10T16:00:00.000Z', true],
      ['2025-01-06', '2025-01-07T04:59:00.000Z', true],
      ['2025-01-13', '2025-01-14T04:59:00.000Z', true],
      ['2025-01-27', '2025-01-28T04:59:00.000Z', true],
    ]);
    expect(events).toContainEqual({
      commodity_id: 'LIVE_CATTLE',
      frequency: 'weekly',
      unit: 'USD/cwt',
      source: 'ams:LM_CT150',
      price_basis: 'cash',
      points: [
        { date: '2025-01-06', value: 201.5 },
        { date: '2025-01-13', value: 203 },
        { date: '2025-01-27', value: 205.1 },
      ],
    });
    expect(events).toContainEqual({
      commodity_id: 'MILK_CLASS_III',
      frequency: 'monthly',
      unit: 'USD/cwt',
      source: 'ams:FMMO_CLASS',
      price_basis: 'cash',
      points: [
        { date: '2024-01-31', value: 15.1 },
        { date: '2024-02-29', value: 15.8 },
      ],
    });
    expect(datamart.queries('3355')).toEqual([
      'report_year=2022',
      'report_year=2023',
      'report_year=2024',
      'report_year=2025',
    ]);
    expect(results[0]!.summary?.rejected ?? results[0]!.stats.rejected).toBe(1);
  });
});
