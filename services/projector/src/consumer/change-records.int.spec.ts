import { CHANGES_STREAM, type ChangeRecord, type DataEvent } from '@cds/contracts';
import type { Messaging } from '@cds/messaging';
import { COLLECTIONS, type ReadModelName } from '@cds/read-models';
import { createReadModelStore } from '@cds/store';
import { uniqueName } from '@cds/testkit';
import { DiscardPolicy } from '@nats-io/jetstream';
import type { Db, MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProjectorMetrics, type ProjectorMetrics } from '../metrics.ts';
import { catalogProjection, cotProjection, seriesProjection, type ProjectedDoc } from '../projections/index.ts';
import type { Projection } from '../projections/types.ts';
import { rebuildProjection } from '../rebuild/rebuild.ts';
import { applyEvents } from '../runner/apply-event.ts';
import { commodityUpserted, cotRecorded, seriesRecorded } from '../testing/events.ts';
import { eventually, publishEvents, readChanges, startSpecServers } from '../testing/harness.ts';
import { readCotBuckets, readSeriesBucket } from '../testing/stored.ts';
import { changeRecordId } from './change-records.ts';
import { startProjectionWorker, type ProjectionWorker, type ProjectionWorkerOptions } from './projection-worker.ts';

// A NATS server of each test's own: its data stream holds only that test's events, so a worker
// on a fresh durable (reading from sequence 1) and its counters see nothing of the other tests.
let servers: Awaited<ReturnType<typeof startSpecServers>>;
let messaging: Messaging;
let mongo: MongoClient;
const logger = pino({ level: process.env.SPEC_LOG ?? 'silent' });
const LANDED = new Date('2026-11-24T09:00:00.000Z');

beforeEach(async () => {
  servers = await startSpecServers('projector-changes-spec');
  ({ messaging, mongo } = servers);
});

afterEach(async () => {
  await servers?.stop();
});

let durables = 0;

/** Starts a worker on a fresh durable (so it reads the data stream from sequence 1). */
async function start<D extends ProjectedDoc>(
  db: Db,
  projection: Projection<D>,
  metrics: ProjectorMetrics,
  opts: ProjectionWorkerOptions & { clock?: () => Date } = {},
): Promise<ProjectionWorker> {
  const { clock = () => LANDED, ...options } = opts;
  return startProjectionWorker({ messaging, db, logger, metrics, clock }, projection, {
    durable: `${projection.name}_${++durables}`,
    retry: { initialDelayMs: 50, maxDelayMs: 250 },
    ...options,
  });
}

/** Waits until the worker handled the last event of its subjects (each test publishes before it waits). */
async function caughtUp(metrics: ProjectorMetrics, name: ReadModelName): Promise<void> {
  const prefix = {
    catalog: 'cds.data.',
    series: 'cds.data.series.',
    cot: 'cds.data.cot.',
    supply_demand: 'cds.data.supply_demand.',
  }[name];
  const { state } = await messaging.jsm.streams.info('CDS_DATA');
  let last = 0;
  for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
    const m = await messaging.jsm.streams.getMessage('CDS_DATA', { seq });
    if (m!.subject.startsWith(prefix)) last = seq;
  }
  await eventually(() => metrics.of(name).lastPosition >= last && metrics.of(name).pending === 0, 20_000, name);
}

function seriesRecord(event: DataEvent & { type: 'series.points.recorded' }, first: string, newest: string) {
  const { commodity_id: commodity, series_type: type } = event.data;
  return {
    id: changeRecordId('series', event.id, type, commodity),
    type: 'series.updated',
    commodity,
    topic: type,
    series_type: type,
    first_date: first,
    newest_date: newest,
    landed_at: LANDED.toISOString(),
    path: `/api/v1/commodities/${commodity}/series?type=${type}&start_date=${first}&end_date=${newest}`,
  } satisfies ChangeRecord;
}

function cotRecord(event: DataEvent & { type: 'cot.reports.recorded' }, first: string, newest: string) {
  const { commodity_id: commodity, format } = event.data;
  return {
    id: changeRecordId('cot', event.id, `cot_${format}`, commodity),
    type: 'cot.updated',
    commodity,
    topic: `cot_${format}`,
    format,
    first_date: first,
    newest_date: newest,
    landed_at: LANDED.toISOString(),
    path: `/api/v1/commodities/${commodity}/cot?format=${format}&start_date=${first}&end_date=${newest}`,
  } satisfies ChangeRecord;
}

const stored = (m: ProjectorMetrics, p: 'series' | 'cot', topic: string) =>
  m.of(p).changeRecords.stored.get(topic) ?? 0;
const duplicates = (m: ProjectorMetrics, p: 'series' | 'cot') =>
  [...m.of(p).changeRecords.duplicate.values()].reduce((a, b) => a + b, 0);

describe('change records on CDS_CHANGES (real NATS and MongoDB API)', () => {
  it('records one change per series and COT event that changed a read model, none for the catalog', async () => {
    const db = mongo.db(uniqueName('changes_fields'));
    const c = 'CHANGES_GOLD';
    const price1 = seriesRecorded(c, [
      ['2024-01-03', 3],
      ['2024-01-02', 2],
    ]);
    const price2 = seriesRecorded(c, [
      ['2024-01-03', 30],
      ['2024-01-04', 4],
    ]);
    const volume = seriesRecorded(c, [['2023-12-29', 100]], { type: 'volume' });
    const legacy = cotRecorded(c, [
      ['2024-01-09', 11],
      ['2024-01-02', 10],
    ]);
    const disaggregated = cotRecorded(c, [['2024-01-02', 7]], { format: 'disaggregated' });
    await publishEvents(messaging, [commodityUpserted(c), price1, price2, volume, legacy, disaggregated]);

    const metrics = createProjectorMetrics();
    const workers = [
      await start(db, catalogProjection, metrics),
      await start(db, seriesProjection, metrics),
      await start(db, cotProjection, metrics),
    ];
    for (const name of ['catalog', 'series', 'cot'] as const) await caughtUp(metrics, name);
    await Promise.all(workers.map((w) => w.stop()));

    const changes = await readChanges(messaging, c);
    expect(changes).toHaveLength(5);
    // Each projection's in stream order (the two workers publish side by side).
    expect(changes.filter((s) => s.record.type === 'series.updated').map((s) => s.record)).toEqual([
      seriesRecord(price1, '2024-01-02', '2024-01-03'),
      seriesRecord(price2, '2024-01-03', '2024-01-04'),
      seriesRecord(volume, '2023-12-29', '2023-12-29'),
    ]);
    expect(changes.filter((s) => s.record.type === 'cot.updated').map((s) => s.record)).toEqual([
      cotRecord(legacy, '2024-01-02', '2024-01-09'),
      cotRecord(disaggregated, '2024-01-02', '2024-01-02'),
    ]);
    for (const s of changes) {
      expect(s.subject).toBe(`cds.changes.${s.record.topic}.${c}`);
      expect(s.msgId).toBe(s.record.id);
    }
    // The catalog projection applied the same events and recorded nothing.
    expect(metrics.of('catalog').events.applied).toBe(6);
    expect(metrics.of('catalog').changeRecords.stored.size).toBe(0);
    expect([stored(metrics, 'series', 'price'), stored(metrics, 'series', 'volume')]).toEqual([2, 1]);
    expect([stored(metrics, 'cot', 'cot_legacy'), stored(metrics, 'cot', 'cot_disaggregated')]).toEqual([1, 1]);
    expect(metrics.of('series').changeFailures + metrics.of('cot').changeFailures).toBe(0);
    // Each record reads data that is there: what it names was written before it was published.
    const bucket = await readSeriesBucket(db, COLLECTIONS.series, `${c}:price:2024`);
    expect(bucket!.points.map((p) => [p.d, p.v])).toEqual([
      ['2024-01-02', 2],
      ['2024-01-03', 30],
      ['2024-01-04', 4],
    ]);
  });

  it('a publish failing after the write fails the attempt; the retry stores every record exactly once', async () => {
    const db = mongo.db(uniqueName('changes_fail'));
    const c = 'CHANGES_CORN';
    const metrics = createProjectorMetrics();
    const durable = 'series_fail';
    const worker = await start(db, seriesProjection, metrics, { durable });
    await caughtUp(metrics, 'series');

    // 1. The stream is gone when the batch is written: the retry creates it again and publishes.
    expect(await messaging.jsm.streams.delete(CHANGES_STREAM)).toBe(true);
    const gone = seriesRecorded(c, [['2024-02-01', 1]]);
    await publishEvents(messaging, [gone]);
    await caughtUp(metrics, 'series');
    expect(metrics.of('series').changeFailures).toBeGreaterThanOrEqual(1);
    expect(metrics.of('series').retries).toBeGreaterThanOrEqual(1);
    // Written once (by the first attempt), recorded by a later one: reflected.
    expect(metrics.of('series').events.applied).toBe(1);
    expect((await readChanges(messaging, c)).map((s) => s.record)).toEqual([
      seriesRecord(gone, '2024-02-01', '2024-02-01'),
    ]);

    // 2. The stream takes the first record of a batch and refuses the second (its limit, discard
    // new): the retry publishes both again, the first is a duplicate, and each is there once. The
    // worker stops while both are published, so its durable delivers them in one batch.
    const info = await messaging.jsm.streams.info(CHANGES_STREAM);
    await messaging.jsm.streams.update(CHANGES_STREAM, {
      ...info.config,
      max_msgs: info.state.messages + 1,
      discard: DiscardPolicy.New,
    });
    const failuresBefore = metrics.of('series').changeFailures;
    const a = seriesRecorded(c, [['2024-02-02', 2]]);
    const b = seriesRecorded(c, [['2024-02-02', 3]], { type: 'volume' });
    await worker.stop();
    await publishEvents(messaging, [a, b]);
    const again = await start(db, seriesProjection, metrics, { durable });
    await eventually(() => metrics.of('series').changeFailures > failuresBefore, 20_000, 'a refused record');
    expect((await readChanges(messaging, c)).map((s) => s.record.id)).toEqual([
      seriesRecord(gone, '2024-02-01', '2024-02-01').id,
      seriesRecord(a, '2024-02-02', '2024-02-02').id,
    ]);
    await messaging.jsm.streams.update(CHANGES_STREAM, { ...info.config, max_msgs: -1, discard: DiscardPolicy.Old });
    await caughtUp(metrics, 'series');
    await again.stop();
    const changes = await readChanges(messaging, c);
    expect(changes.map((s) => s.record)).toEqual([
      seriesRecord(gone, '2024-02-01', '2024-02-01'),
      seriesRecord(a, '2024-02-02', '2024-02-02'),
      seriesRecord(b, '2024-02-02', '2024-02-02'),
    ]);
    expect(duplicates(metrics, 'series')).toBeGreaterThanOrEqual(1);
  });

  it('records an event applied before a crash (never published), then nothing new on a replay; the rebuild records nothing', async () => {
    const db = mongo.db(uniqueName('changes_crash'));
    const c = 'CHANGES_WHEAT';
    // `older` (the earlier stream position) repeats what `newer` says under the same release (the
    // same values and publication time, another event): with versions kept, it changes nothing.
    const older = seriesRecorded(
      c,
      [
        ['2022-03-01', 10],
        ['2022-03-02', 20],
      ],
      { publishedAt: '2024-06-01T00:00:00Z', publishedAtEstimated: true },
    );
    const newer = seriesRecorded(c, [
      ['2022-03-01', 10],
      ['2022-03-02', 20],
    ]);
    const report = cotRecorded(c, [['2022-03-01', 5]]);
    const [, newerSeq, reportSeq] = await publishEvents(messaging, [older, newer, report]);

    // The crash: `newer` and `report` written through the runner as a worker would, never
    // published nor acked. `older` never got that far.
    const store = createReadModelStore(db, { owner: 'crashed-worker' });
    await applyEvents(await store.active('series'), seriesProjection, [{ event: newer, position: newerSeq! }]);
    await applyEvents(await store.active('cot'), cotProjection, [{ event: report, position: reportSeq! }]);

    // The restarted worker: `newer` and `report` fold to nothing but are reflected, so recorded;
    // `older` changes nothing (`newer` holds all its dates) and was never applied: no record.
    const metrics = createProjectorMetrics();
    for (const p of [seriesProjection, cotProjection] as Projection<ProjectedDoc>[]) {
      const w = await start(db, p, metrics);
      await caughtUp(metrics, p.name);
      await w.stop();
    }
    const expected = [seriesRecord(newer, '2022-03-01', '2022-03-02'), cotRecord(report, '2022-03-01', '2022-03-01')];
    expect((await readChanges(messaging, c)).map((s) => s.record)).toEqual(expected);
    expect(metrics.of('series').events).toEqual({ applied: 0, ignored: 2 });
    expect(metrics.of('cot').events).toEqual({ applied: 0, ignored: 1 });
    expect([stored(metrics, 'series', 'price'), stored(metrics, 'cot', 'cot_legacy')]).toEqual([1, 1]);

    // The same events replayed (a fresh durable): published again with the same ids, stored once.
    const replay = createProjectorMetrics();
    for (const p of [seriesProjection, cotProjection] as Projection<ProjectedDoc>[]) {
      const w = await start(db, p, replay);
      await caughtUp(replay, p.name);
      await w.stop();
    }
    expect(duplicates(replay, 'series') + duplicates(replay, 'cot')).toBe(2);
    expect(replay.of('series').changeRecords.stored.size + replay.of('cot').changeRecords.stored.size).toBe(0);
    expect((await readChanges(messaging, c)).map((s) => s.record)).toEqual(expected);

    // Past the duplicate window of the events' storage, a reflected event is not published again:
    // the stream would no longer recognize its id, and an old change would be notified as new.
    const late = createProjectorMetrics();
    const w = await start(db, seriesProjection, late, { clock: () => new Date(Date.now() + 25 * 3_600_000) });
    await caughtUp(late, 'series');
    await w.stop();
    expect(late.of('series').changeRecords.stored.size + late.of('series').changeRecords.duplicate.size).toBe(0);

    // The rebuild replays everything into a fresh collection and records nothing.
    const before = (await messaging.jsm.streams.info(CHANGES_STREAM)).state.last_seq;
    const rebuilt = await rebuildProjection({ messaging, db, logger, clock: () => new Date() }, cotProjection, {
      graceMs: 0,
    });
    expect(rebuilt.applied).toBeGreaterThanOrEqual(1);
    expect((await readCotBuckets(db, rebuilt.collection, { commodity_id: c })).map((b) => b.count)).toEqual([1]);
    expect((await messaging.jsm.streams.info(CHANGES_STREAM)).state.last_seq).toBe(before);
  });
});
