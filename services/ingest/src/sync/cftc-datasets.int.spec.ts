import { connectMessaging, type Messaging } from '@cds/messaging';
import { startNats, type NatsHandle } from '@cds/testkit';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SourceServer } from '../../test/helpers/source-server.ts';
import { createDataEventReader, type StoredDataEvent } from '../../test/helpers/data-events.ts';
import { COMMODITIES } from '../sources/registry.ts';
import { createKvLedger } from '../publish/ledger.ts';
import { createPublisher } from '../publish/publisher.ts';
import { ensureEventStreams } from '../publish/streams.ts';
import { runSync, type SyncOptions } from './run-sync.ts';
import { createKvSyncStore, type SyncStore } from './state.ts';

// The combined reports and the CIT supplement synced from the recorded Socrata answers
// (test/fixtures/sync: WHEAT-SRW rows of jun7-fc8e, kh3c-gbw2 and 4zgm-a668), on real NATS.
let nats: NatsHandle;
let messaging: Messaging;
const sources = new SourceServer();
let store: SyncStore;
let newEvents: () => Promise<StoredDataEvent[]>;

async function sync(over: Partial<SyncOptions> = {}) {
  const ledger = await createKvLedger(messaging.js, { replicas: 1 });
  return runSync({
    sources: ['cftc'],
    publisher: () => createPublisher({ js: messaging.js, ledger }),
    store,
    catalogEntries: COMMODITIES.map((c) => c.entry),
    commodities: ['WHEAT_SRW'],
    keys: {},
    baseUrls: { cftc: sources.baseUrl },
    clock: () => new Date('2026-03-10T16:00:00Z'),
    http: { minIntervalMs: 0, baseDelayMs: 1, random: () => 0.5, sleep: () => Promise.resolve() },
    ...over,
  });
}

beforeAll(async () => {
  await sources.start();
});
afterAll(async () => {
  await sources.stop();
});
beforeEach(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'cftc-datasets-int-spec' });
  await ensureEventStreams(messaging, { replicas: 1, duplicateWindowMs: 120_000 });
  store = await createKvSyncStore(messaging.js, { replicas: 1 });
  sources.reset();
  sources.loadCotDatasets();
  newEvents = createDataEventReader(messaging);
});
afterEach(async () => {
  await messaging?.close().catch(() => undefined);
  await nats?.stop();
});

type Report = { report_date: string; open_interest: number; failed_checks?: string[] } & Record<string, unknown>;
const cotEvents = (events: StoredDataEvent[]) => events.filter((e) => e.type === 'cot.reports.recorded');
const reportsOf = (e: StoredDataEvent) => e.data.reports as Report[];

describe('ingest sync of the combined COT reports and the CIT supplement', () => {
  it('publishes each dataset as its own event, combined and CIT with scope futures_and_options, from the start of each history', async () => {
    const [cftc] = await sync();
    expect(cftc!.ok).toBe(true);
    const events = await newEvents();
    const cot = cotEvents(events);
    const byDataset = new Map(cot.map((e) => [`${String(e.data.format)}/${String(e.data.scope)}`, e]));
    expect([...byDataset.keys()].sort()).toEqual([
      'cit/futures_and_options',
      'disaggregated/futures_and_options',
      'legacy/futures_and_options',
    ]);
    const legacy = byDataset.get('legacy/futures_and_options')!;
    expect(legacy.data).toMatchObject({ commodity_id: 'WHEAT_SRW', source: 'cftc:legacy_combined:001602' });
    expect(reportsOf(legacy).map((r) => [r.report_date, r.open_interest])).toEqual([
      ['2026-02-03', 612046],
      ['2026-02-10', 590543],
      ['2026-02-17', 544127],
      ['2026-02-24', 516198],
      ['2026-03-03', 515115],
    ]);
    // the real rows are within 1 contract per figure: none flagged
    expect(reportsOf(legacy).filter((r) => r.failed_checks !== undefined)).toEqual([]);
    const cit = byDataset.get('cit/futures_and_options')!;
    expect(cit.data.source).toBe('cftc:cit:001602');
    // the mixed-case field names of the CIT dataset are read
    expect(reportsOf(cit).at(-1)).toMatchObject({
      report_date: '2024-07-23',
      open_interest: 511022,
      commercial: { long: 110956, short: 98152 },
      non_commercial: { long: 58924, short: 145951, spreading: 155512 },
      index_traders: { long: 149663, short: 70739 },
      non_reportable: { long: 35966, short: 40668 },
    });
    expect(reportsOf(byDataset.get('disaggregated/futures_and_options')!)).toHaveLength(5);
    // only the futures-only legacy report feeds the weekly open interest series: none here
    expect(events.filter((e) => e.type === 'series.points.recorded')).toEqual([]);

    // first sync: every dataset from the start of its history
    const asked = (id: string) => sources.requested(`/resource/${id}`).map((u) => u.searchParams.get('$where'));
    expect(asked('jun7-fc8e')[0]).toContain(">= '1986-01-01T00:00:00.000'");
    expect(asked('6dca-aqww')[0]).toContain(">= '1986-01-01T00:00:00.000'");
    expect(asked('kh3c-gbw2')[0]).toContain(">= '2006-01-01T00:00:00.000'");
    expect(asked('4zgm-a668')[0]).toBe(
      "cftc_contract_market_code in ('001602') AND report_date_as_yyyy_mm_dd >= '2006-01-01T00:00:00.000'",
    );

    // the cursors are per dataset: a second sync asks each from its own newest date - 4 weeks
    sources.requests.length = 0;
    await sync();
    expect(await newEvents()).toEqual([]);
    expect(asked('jun7-fc8e')[0]).toContain(">= '2026-02-03T00:00:00.000'");
    expect(asked('4zgm-a668')[0]).toContain(">= '2024-06-25T00:00:00.000'");
    expect(asked('kh3c-gbw2')[0]).toContain(">= '2021-02-16T00:00:00.000'");
    const status = await store.getStatus('cftc');
    expect(status?.last_error).toBeUndefined();
  });

  it('a recorded row whose Old + Other misses All by 2 is published flagged, not refused', async () => {
    const row = sources.cftc.legacy_combined.find((r) => r.report_date_as_yyyy_mm_dd === '2026-02-17T00:00:00.000')!;
    row.open_interest_old = String(Number(row.open_interest_old) + 2);
    const [cftc] = await sync();
    expect(cftc!.ok).toBe(true);
    const legacy = cotEvents(await newEvents()).find((e) => e.data.format === 'legacy')!;
    expect(legacy.data.scope).toBe('futures_and_options');
    expect(reportsOf(legacy).map((r) => [r.report_date, r.failed_checks])).toEqual([
      ['2026-02-03', undefined],
      ['2026-02-10', undefined],
      ['2026-02-17', ['old_plus_other_equals_all']],
      ['2026-02-24', undefined],
      ['2026-03-03', undefined],
    ]);
  });

  it('a futures-only row in the combined dataset is refused, naming the scope; the other rows are published', async () => {
    sources.cftc.legacy_combined[0]!.futonly_or_combined = 'FutOnly';
    const [cftc] = await sync();
    expect(cftc!.ok).toBe(true);
    const legacy = cotEvents(await newEvents()).find((e) => e.data.format === 'legacy')!;
    expect(reportsOf(legacy).map((r) => r.report_date)).not.toContain('2026-02-03');
    expect(reportsOf(legacy)).toHaveLength(4);
  });
});
