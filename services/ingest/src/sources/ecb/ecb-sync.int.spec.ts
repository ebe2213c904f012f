import { connectMessaging, type Messaging } from '@cds/messaging';
import { startNats, type NatsHandle } from '@cds/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SourceServer } from '../../../test/helpers/source-server.ts';
import { createDataEventReader, type StoredDataEvent } from '../../../test/helpers/data-events.ts';
import { createKvLedger } from '../../publish/ledger.ts';
import { createPublisher } from '../../publish/publisher.ts';
import { ensureEventStreams } from '../../publish/streams.ts';
import { runSync, type SyncOptions } from '../../sync/run-sync.ts';
import { createKvSyncStore, type SyncStore } from '../../sync/state.ts';

// Real NATS (libs/testkit) and the recording server on 127.0.0.1 standing in for the ECB: the
// 90-day XML written in the ECB's shape (rates of 2026-04-02 and 04-07 .. 04-13) and the whole
// history zipped from the real excerpt (test/fixtures/README.md).
const sources = new SourceServer();
let nats: NatsHandle;
let messaging: Messaging;
let store: SyncStore;
let newEvents: () => Promise<StoredDataEvent[]>;

/** A sync run at `now` (default: 16:35 Frankfurt on Monday 2026-04-13, after that day's rates). */
async function sync(over: Partial<SyncOptions> = {}, now = '2026-04-13T14:35:00Z') {
  const ledger = await createKvLedger(messaging.js, { replicas: 1 });
  const [result] = await runSync({
    sources: ['ecb'],
    publisher: () => createPublisher({ js: messaging.js, ledger }),
    store,
    baseUrls: { ecb: sources.ecbRatesUrl },
    clock: () => new Date(now),
    http: { minIntervalMs: 0, baseDelayMs: 1, maxRetries: 1 },
    ...over,
  });
  return result!;
}

type Points = { date: string; value: number }[];
const points = (events: StoredDataEvent[]) =>
  events.flatMap((e) => (e.data.points as Points).map((p) => `${String(e.data.commodity_id)} ${p.date} ${p.value}`));

beforeAll(async () => {
  await sources.start();
});
afterAll(async () => {
  await sources.stop();
});
beforeEach(async () => {
  sources.reset();
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'ecb-sync-int-spec' });
  await ensureEventStreams(messaging, { replicas: 1, duplicateWindowMs: 120_000 });
  store = await createKvSyncStore(messaging.js, { replicas: 1 });
  newEvents = createDataEventReader(messaging);
});
afterEach(async () => {
  await messaging?.close().catch(() => undefined);
  await nats?.stop();
});

describe('ingest sync --source ecb', () => {
  it('a first sync takes the whole history (the zip); the next one the 90-day XML, publishing only the new days', async () => {
    const first = await sync({}, '2026-04-10T14:35:00Z');
    expect(first.error).toBeUndefined();
    expect(first.series).toEqual([expect.objectContaining({ series: 'rates', from: '1999-01-04', ok: true })]);
    expect(sources.requested('/stats/eurofxref/').map((u) => u.pathname)).toEqual([
      '/stats/eurofxref/eurofxref-hist.zip',
    ]);
    const history = await newEvents();
    // one event per currency and year: the excerpt's 41 currencies over its years
    expect(history.every((e) => e.type === 'series.points.recorded')).toBe(true);
    const usd2026 = history.find((e) => e.data.commodity_id === 'FX_EUR_USD' && e.data.period === '2026')!;
    expect(usd2026.data).toMatchObject({
      series_type: 'price',
      frequency: 'daily',
      unit: 'USD/EUR',
      source: 'ecb:USD',
      published_at: '2026-04-13T14:00:00.000Z',
      published_at_estimated: true,
    });
    expect(usd2026.data).not.toHaveProperty('price_basis');
    expect(points([usd2026])).toContain('FX_EUR_USD 2026-04-13 1.1684');
    expect(history.some((e) => e.data.commodity_id === 'FX_EUR_CYP' && e.data.period === '2007')).toBe(true);
    expect(first.status.newest_data_date).toBe('2026-04-13');

    // the next day: the cursor reaches back 10 days (from 2026-04-03), so the 90-day file; its days
    // are the same rates as the history's: nothing is published again
    sources.requests.length = 0;
    const second = await sync({}, '2026-04-14T14:35:00Z');
    expect(second.error).toBeUndefined();
    expect(second.series[0]!.from).toBe('2026-04-03');
    expect(sources.requested('/stats/eurofxref/').map((u) => u.pathname)).toEqual([
      '/stats/eurofxref/eurofxref-hist-90d.xml',
    ]);
    expect(await newEvents()).toEqual([]);
    expect((await sync({}, '2026-04-14T15:00:00Z')).series[0]!.fresh).toBe(0);
  });

  it('a revised rate in the 90-day file is published again; a page that is not the rates fails the run, publishing nothing', async () => {
    await store.putCursor('ecb', 'rates', { newest_date: '2026-04-01', seen: {}, updated_at: '2026-04-01T15:00:00Z' });
    const first = await sync();
    expect(first.series[0]!.from).toBe('2026-03-22');
    const events = await newEvents();
    // 29 currencies quoted in 2026, each one event for its days in the file
    expect(events).toHaveLength(29);
    expect(points(events).filter((p) => p.startsWith('FX_EUR_USD '))).toEqual([
      'FX_EUR_USD 2026-04-02 1.1525',
      'FX_EUR_USD 2026-04-07 1.1557',
      'FX_EUR_USD 2026-04-08 1.1706',
      'FX_EUR_USD 2026-04-09 1.1685',
      'FX_EUR_USD 2026-04-10 1.1711',
      'FX_EUR_USD 2026-04-13 1.1684',
    ]);

    sources.faults.push({
      match: (u) => u.pathname.endsWith('eurofxref-hist-90d.xml'),
      times: 1,
      respond: (res, normal) => {
        res.writeHead(200, { 'content-type': 'application/xml' });
        res.end(normal().replace("currency='USD' rate='1.1684'", "currency='USD' rate='1.1690'"));
      },
    });
    const revised = await sync();
    expect(revised.series[0]).toMatchObject({ ok: true, revised: 1, fresh: 1 });
    expect(points(await newEvents())).toEqual(['FX_EUR_USD 2026-04-13 1.169']);

    sources.faults.push({
      match: (u) => u.pathname.endsWith('eurofxref-hist-90d.xml'),
      times: 2,
      respond: (res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!DOCTYPE html><html><body>Maintenance</body></html>');
      },
    });
    const broken = await sync();
    expect(broken.ok).toBe(false);
    expect(broken.error).toMatch(/ecb:eurofxref-hist-90d.xml: an HTML page/);
    expect(await newEvents()).toEqual([]);
  });

  it('a server error is retried by the client; one that stays fails the source and keeps its cursor', async () => {
    await store.putCursor('ecb', 'rates', { newest_date: '2026-04-10', seen: {}, updated_at: '2026-04-10T15:00:00Z' });
    sources.faults.push({
      match: (u) => u.pathname.endsWith('eurofxref-hist-90d.xml'),
      times: 1,
      respond: (res) => {
        res.writeHead(503);
        res.end('busy');
      },
    });
    const retried = await sync();
    expect(retried.error).toBeUndefined();
    expect(sources.requested('/stats/eurofxref/eurofxref-hist-90d.xml')).toHaveLength(2);

    sources.faults.push({
      match: (u) => u.pathname.endsWith('eurofxref-hist-90d.xml'),
      times: 5,
      respond: (res) => {
        res.writeHead(503);
        res.end('busy');
      },
    });
    const failed = await sync({}, '2026-04-14T14:35:00Z');
    expect(failed.ok).toBe(false);
    expect(failed.error).toMatch(/503/);
    expect((await store.getCursor('ecb', 'rates'))?.newest_date).toBe('2026-04-13');
  });
});
