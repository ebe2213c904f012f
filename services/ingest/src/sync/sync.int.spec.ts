import { SYNC_BUCKET, SourceErrorDay, sourceErrorKey } from '@cds/contracts';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { Kvm } from '@nats-io/kv';
import { startNats, type NatsHandle } from '@cds/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SourceServer } from '../../test/helpers/source-server.ts';
import { COMMODITIES } from '../sources/registry.ts';
import { createKvLedger } from '../publish/ledger.ts';
import { createPublisher } from '../publish/publisher.ts';
import { ensureEventStreams } from '../publish/streams.ts';
import { runSync, type SyncOptions } from './run-sync.ts';
import { createKvSyncStore, type SyncStore } from './state.ts';
import { createDataEventReader, type StoredDataEvent } from '../../test/helpers/data-events.ts';

// Real NATS (libs/testkit) and a local HTTP server replaying the recorded source answers.
let nats: NatsHandle;
let messaging: Messaging;
const sources = new SourceServer();
let store: SyncStore;

/** The data events stored since the last call (catalog entries left out); a new reader per test. */
let newEvents: () => Promise<StoredDataEvent[]>;

/** Recorded sleeps, not waited: backoff and Retry-After stay visible and the spec stays fast. */
const sleeps: number[] = [];
let fakeNow = 1_000_000;

async function sync(over: Partial<SyncOptions> = {}) {
  const ledger = await createKvLedger(messaging.js, { replicas: 1 });
  return runSync({
    sources: ['cftc', 'eia', 'nass'],
    publisher: () => createPublisher({ js: messaging.js, ledger }),
    store,
    catalogEntries: COMMODITIES.map((c) => c.entry),
    commodities: ['CRUDE_OIL_WTI', 'CORN'],
    keys: { EIA_API_KEY: 'eia-test-key', NASS_API_KEY: 'nass-test-key' },
    baseUrls: { cftc: sources.baseUrl, eia: sources.baseUrl, nass: sources.baseUrl },
    clock: () => new Date('2025-02-10T16:00:00Z'),
    http: fastHttp,
    ...over,
  });
}

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

// Each test owns a NATS server: the stream's duplicate window and the ledger would otherwise hide
// a test's publishes behind an earlier test's identical events.
beforeAll(async () => {
  await sources.start();
});
afterAll(async () => {
  await sources.stop();
});
beforeEach(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'sync-int-spec' });
  await ensureEventStreams(messaging, { replicas: 1, duplicateWindowMs: 120_000 });
  store = await createKvSyncStore(messaging.js, { replicas: 1 });
  sources.reset();
  sleeps.length = 0;
  newEvents = createDataEventReader(messaging);
});
afterEach(async () => {
  await messaging?.close().catch(() => undefined);
  await nats?.stop();
});

const points = (e: { data: Record<string, unknown> }) => e.data.points as { date: string; value: number }[];

describe('ingest sync against the recorded sources', () => {
  it('first run publishes from the initial lookback; the second asks from cursor - overlap and publishes nothing', async () => {
    const first = await sync();
    expect(first.map((r) => [r.source, r.ok, r.error])).toEqual([
      ['cftc', true, undefined],
      ['eia', true, undefined],
      ['nass', true, undefined],
    ]);
    const events = await newEvents();
    const byType = (t: string) => events.filter((e) => e.type === t);
    const cot = byType('cot.reports.recorded');
    expect(cot).toHaveLength(1);
    expect((cot[0]!.data.reports as unknown[]).length).toBe(5);
    const series = byType('series.points.recorded');
    const of = (type: string) => series.filter((e) => e.data.series_type === type).flatMap(points);
    expect(of('price')).toHaveLength(20);
    expect(of('price').at(-1)).toMatchObject({ date: '2022-11-28', value: 77.1 });
    expect(of('stocks').map((p) => p.date)).toContain('2024-08-30');
    // The forecast row is skipped; the annual yields dated on Dec 31.
    expect(of('yield').map((p) => [p.date, p.value])).toEqual([
      ['2023-12-31', 177.3],
      ['2024-12-31', 179.3],
      ['2025-12-31', 186.5],
    ]);

    // Publication: each COT report on its Friday 15:30 ET (estimated), the open interest point with it
    const reports = cot[0]!.data.reports as {
      report_date: string;
      published_at: string;
      published_at_estimated: boolean;
    }[];
    expect(reports.map((r) => [r.report_date, r.published_at, r.published_at_estimated])).toEqual([
      ['2025-01-07', '2025-01-10T20:30:00.000Z', true],
      ['2025-01-14', '2025-01-17T20:30:00.000Z', true],
      ['2025-01-21', '2025-01-24T20:30:00.000Z', true],
      ['2025-01-28', '2025-01-31T20:30:00.000Z', true],
      ['2025-02-04', '2025-02-07T20:30:00.000Z', true],
    ]);
    const stamped = (type: string) =>
      series
        .filter((e) => e.data.series_type === type)
        .map((e) => [
          points(e)
            .map((p) => p.date)
            .join(' '),
          e.data.published_at,
          e.data.published_at_estimated,
        ])
        .sort();
    expect(stamped('open_interest')).toEqual(reports.map((r) => [r.report_date, r.published_at, true]));
    // EIA: the last WPSR before the sync (Wednesday 2025-02-05, 10:30 EST), estimated
    for (const type of ['price', 'stocks'])
      for (const [, at, estimated] of stamped(type))
        expect([at, estimated]).toEqual(['2025-02-05T15:30:00.000Z', true]);
    // NASS: each row's load_time (12:00 New York time, stated); the 2025 row's load_time (2026-01-12)
    // lies after the sync, so its event takes the ingest time, estimated
    expect(stamped('yield')).toEqual([
      ['2023-12-31', '2024-01-12T17:00:00.000Z', false],
      ['2024-12-31', '2025-01-12T17:00:00.000Z', false],
      ['2025-12-31', '2025-02-10T16:00:00.000Z', true],
    ]);

    // Asked ranges of the first run: three years back from 2025-02-10 (COT: its whole history), EIA sorted by period.
    const rwtc = sources.requested('/v2/petroleum/pri/spt/').map((u) => u.searchParams);
    expect(rwtc[0]!.get('start')).toBe('2022-02-11');
    expect(rwtc[0]!.get('sort[0][column]')).toBe('period');
    expect(rwtc[0]!.get('length')).toBe('5000');
    expect(sources.requested('/resource/6dca-aqww').map((u) => u.searchParams.get('$where'))).toContain(
      "cftc_contract_market_code in ('067651') AND report_date_as_yyyy_mm_dd >= '1986-01-01T00:00:00.000'",
    );
    expect(sources.requested('/api/get_counts/')[0]!.searchParams.get('year__GE')).toBe('2020');

    const eiaStatus = await store.getStatus('eia');
    expect(eiaStatus).toMatchObject({
      source: 'eia',
      newest_data_date: '2024-08-30',
      last_success_at: '2025-02-10T16:00:00.000Z',
    });
    expect(eiaStatus!.last_error).toBeUndefined();

    sources.requests.length = 0;
    const second = await sync();
    expect(second.every((r) => r.ok)).toBe(true);
    expect(second.map((r) => r.summary!.eventsPublished)).toEqual([0, 0, 0]);
    expect(await newEvents()).toEqual([]);
    // From the cursors, minus each source's overlap.
    const start = (route: string) => sources.requested(route)[0]!.searchParams.get('start');
    expect(start('/v2/petroleum/pri/spt/')).toBe('2022-10-29'); // 2022-11-28 - 30 days
    expect(start('/v2/petroleum/stoc/wstk/')).toBe('2024-07-05'); // 2024-08-30 - 8 weeks
    expect(start('/v2/petroleum/pnp/wiup/')).toBe('2022-02-11'); // nothing stored yet: the lookback again
    expect(sources.requested('/resource/6dca-aqww')[0]!.searchParams.get('$where')).toContain(
      ">= '2025-01-07T00:00:00.000'", // 2025-02-04 - 4 weeks
    );
    const nassYield = sources
      .requested('/api/get_counts/')
      .find((u) => u.searchParams.get('short_desc') === 'CORN, GRAIN - YIELD, MEASURED IN BU / ACRE')!;
    expect(nassYield.searchParams.get('year__GE')).toBe('2024'); // current and previous marketing year
  });

  it('a revised value publishes a new event carrying it; the unchanged days are not sent again', async () => {
    await sync({ sources: ['eia'] });
    await newEvents();
    const rwtc = sources.eia.get('RWTC')!;
    rwtc.find((r) => r.period === '2022-11-25')!.value = '76.52';
    const [eia] = await sync({ sources: ['eia'] });
    expect(eia!.ok).toBe(true);
    expect(eia!.series.find((s) => s.series === 'RWTC')).toMatchObject({ fresh: 1, revised: 1 });
    const events = await newEvents();
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ commodity_id: 'CRUDE_OIL_WTI', series_type: 'price' });
    expect(points(events[0]!)).toEqual([{ date: '2022-11-25', value: 76.52 }]);
    // And once more: nothing.
    await sync({ sources: ['eia'] });
    expect(await newEvents()).toEqual([]);
  });

  it('pages EIA with offset/length and survives a 429 with Retry-After, a 5xx mid-paging, a truncated body and a short page', async () => {
    const rwtcPage = (offset: number) => (u: URL) =>
      u.pathname.startsWith('/v2/petroleum/pri/spt/') && u.searchParams.get('offset') === String(offset);
    sources.faults.push(
      {
        match: rwtcPage(0),
        times: 1,
        respond: (res) => {
          res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' });
          res.end('{"error":"rate limited"}');
        },
      },
      { match: rwtcPage(5), times: 1, respond: (res, normal) => res.end(normal().slice(0, 200)) },
      {
        match: rwtcPage(10),
        times: 2,
        respond: (res) => {
          res.writeHead(503);
          res.end('Service Unavailable');
        },
      },
      {
        match: rwtcPage(15),
        times: 1,
        respond: (res, normal) => {
          const doc = JSON.parse(normal()) as { response: { data: unknown[] } };
          doc.response.data.pop();
          res.end(JSON.stringify(doc));
        },
      },
    );
    const [eia] = await sync({ sources: ['eia'], pageSize: 5 });
    expect(eia!.ok).toBe(true);
    const offsets = sources.requested('/v2/petroleum/pri/spt/').map((u) => u.searchParams.get('offset'));
    expect(offsets).toEqual(['0', '0', '5', '5', '10', '10', '10', '15', '15']);
    expect(sleeps).toContain(7_000); // Retry-After honoured
    const prices = (await newEvents()).filter((e) => e.data.series_type === 'price').flatMap(points);
    expect(prices).toHaveLength(20);
    expect(new Set(prices.map((p) => p.date)).size).toBe(20);
  });

  it('a page that stays broken fails its series (nothing of it published, cursor kept); the other series go on', async () => {
    sources.faults.push({
      match: (u) => u.pathname.startsWith('/v2/petroleum/pri/spt/') && u.searchParams.get('offset') === '5',
      times: 100,
      respond: (res, normal) => res.end(normal().slice(0, -10)),
    });
    const [eia] = await sync({ sources: ['eia'], pageSize: 5 });
    expect(eia!.ok).toBe(false);
    const failed = eia!.series.filter((s) => !s.ok);
    expect(failed.map((s) => s.series)).toEqual(['RWTC']);
    expect(failed[0]!.error).toMatch(/eia RWTC offset 5: the body is not complete JSON .*4 attempts/);
    expect(eia!.error).toMatch(/^1 of 4 series failed; first: RWTC/);
    const events = await newEvents();
    expect(events.filter((e) => e.data.series_type === 'price')).toEqual([]);
    expect(events.filter((e) => e.data.series_type === 'stocks')).toHaveLength(1);
    expect(await store.getCursor('eia', 'RWTC')).toBeUndefined();
    expect(await store.getCursor('eia', 'WCESTUS1')).toMatchObject({ newest_date: '2024-08-30' });
    expect(await store.getStatus('eia')).toMatchObject({ last_success_at: null, last_error: eia!.error });
  });

  it('a renamed column fails the source with an error naming it, and nothing of it is published', async () => {
    for (const row of sources.nass) {
      row.value_text = row.Value;
      delete row.Value;
    }
    const [cftc, nass] = await sync({ sources: ['cftc', 'nass'] });
    expect(cftc!.ok).toBe(true);
    expect(nass!.ok).toBe(false);
    expect(nass!.error).toContain(`the source's schema changed: row 1 has no "Value" field`);
    expect(nass!.summary!.eventsPublished).toBe(0);
    const events = await newEvents();
    // the CFTC's reports (and the open interest they give) are published; nothing of NASS
    expect(events.some((e) => e.type === 'cot.reports.recorded')).toBe(true);
    expect(
      events.filter((e) => e.type === 'series.points.recorded' && !String(e.data.source).startsWith('cftc:')),
    ).toEqual([]);
    expect(await store.getStatus('nass')).toMatchObject({ newest_data_date: null, last_error: nass!.error });
  });

  it('an empty answer is an empty result, not an error; a missing API key fails only its source', async () => {
    sources.eia.clear();
    const [eia] = await sync({ sources: ['eia'] });
    expect(eia!.ok).toBe(true);
    expect(eia!.summary!.recordsRead).toBe(0);
    expect(eia!.status.newest_data_date).toBeNull();
    const [cftc, nass] = await sync({
      sources: ['cftc', 'nass'],
      keys: { EIA_API_KEY: 'eia-test-key', NASS_API_KEY: '' },
    });
    expect(cftc!.ok).toBe(true);
    expect(nass).toMatchObject({ ok: false, error: expect.stringMatching(/^NASS_API_KEY is not set/) });
  });

  it('splits a NASS query above the record limit into year ranges', async () => {
    const [nass] = await sync({ sources: ['nass'], recordLimit: 2 });
    expect(nass!.ok).toBe(true);
    const asked = sources
      .requested('/api/api_GET/')
      .map((u) => `${u.searchParams.get('year__GE')}-${u.searchParams.get('year__LE')}`);
    // 4 records in 2020-2025 > 2: halved; 2020-2022 counts none (no data query), 2023-2025 halved again.
    expect(asked).toEqual(['2023-2024', '2025-2025']);
    const counted = sources
      .requested('/api/get_counts/')
      .filter((u) => u.searchParams.get('short_desc')!.includes('YIELD'))
      .map((u) => `${u.searchParams.get('year__GE')}-${u.searchParams.get('year__LE')}`);
    expect(counted).toEqual(['2020-2025', '2020-2022', '2023-2025', '2023-2024', '2025-2025']);
    expect(nass!.series.find((s) => s.series.includes('YIELD'))).toMatchObject({ ok: true, fresh: 3 });
  });

  it('a run against a source answering 500 counts on its error day: two failing runs count 2', async () => {
    sources.faults.push({
      match: (u) => u.pathname.startsWith('/v2/'),
      times: 1000,
      respond: (res) => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":"internal"}');
      },
    });
    // 16:00 UTC is 11:00 in New York, the same date
    const [first] = await sync({ sources: ['eia'] });
    expect(first!.ok).toBe(false);
    const kv = await new Kvm(messaging.js).open(SYNC_BUCKET);
    const day = async () => SourceErrorDay.parse((await kv.get(sourceErrorKey('eia', '2025-02-10')))!.json());
    expect(await day()).toEqual({
      source: 'eia',
      date: '2025-02-10',
      failed_runs: 1,
      last_error: first!.error,
      last_failed_at: '2025-02-10T16:00:00.000Z',
    });
    expect(first!.error).toMatch(/HTTP 500/);
    await sync({ sources: ['eia'], clock: () => new Date('2025-02-10T23:59:00Z') });
    expect(await day()).toMatchObject({ failed_runs: 2, last_failed_at: '2025-02-10T23:59:00.000Z' });
    // the cursors and the status are read as before, beside the error day
    expect(await store.getStatus('eia')).toMatchObject({ last_success_at: null, last_error: first!.error });
    // a run that succeeds adds nothing
    sources.faults.length = 0;
    const [third] = await sync({ sources: ['eia'] });
    expect(third!.ok).toBe(true);
    expect((await day()).failed_runs).toBe(2);
  });

  it('stops retrying at the source deadline and says so', async () => {
    sources.faults.push({
      match: (u) => u.pathname.startsWith('/v2/'),
      times: 1000,
      respond: (res) => {
        res.writeHead(503, { 'retry-after': '20' });
        res.end('busy');
      },
    });
    const [eia] = await sync({ sources: ['eia'], sourceDeadlineMs: 60_000, http: { ...fastHttp, maxRetries: 10 } });
    expect(eia!.ok).toBe(false);
    expect(eia!.series[0]!.error).toMatch(
      /eia: GET .*api_key=\*\*\*.* gave up at the deadline after \d attempts; last: HTTP 503/,
    );
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(60_000);
  });
});
