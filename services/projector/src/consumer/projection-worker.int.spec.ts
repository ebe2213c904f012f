import { DATA_STREAM, type DataEvent } from '@cds/contracts';
import { DEADLETTER_STREAM, encodeJson, type Messaging } from '@cds/messaging';
import { COLLECTIONS, projectedSubject } from '@cds/read-models';
import { startMongo, uniqueName, type MongoHandle } from '@cds/testkit';
import { MongoClient, type Db } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectorMetrics, type ProjectorMetrics } from '../metrics.ts';
import { catalogProjection, cotProjection, seriesProjection } from '../projections/index.ts';
import { commodityUpserted, cotRecorded, foldEvents, seriesRecorded } from '../testing/events.ts';
import { eventually, hashCollection, publishEvents, startSpecServers } from '../testing/harness.ts';
import { readCotBuckets, readSeriesBucket, readSeriesBuckets } from '../testing/stored.ts';
import type { ParkedEventDoc } from './park.ts';
import { startProjectionWorker, type ProjectionWorker } from './projection-worker.ts';

// A private NATS server: the projections' subjects (cds.data.>) must not collide with other spec
// files' streams on the shared server.
let servers: Awaited<ReturnType<typeof startSpecServers>>;
let messaging: Messaging;
let mongo: MongoClient;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  servers = await startSpecServers('projector-worker-spec');
  ({ messaging, mongo } = servers);
});

afterAll(async () => {
  await servers?.stop();
});

function depsFor(db: Db, metrics: ProjectorMetrics = createProjectorMetrics()) {
  return { messaging, db, logger, metrics, clock: () => new Date('2024-06-01T00:00:00Z') };
}

function yearPoints(commodity: string, year: number, from: number, n: number, value: number): [string, number][] {
  const pts: [string, number][] = [];
  for (let i = 0; i < n; i++) {
    const d = new Date(Date.UTC(year, 0, 1 + from + i)).toISOString().slice(0, 10);
    pts.push([d, value + i]);
  }
  return pts;
}

describe('projection worker on real NATS and MongoDB API', () => {
  it('projects, is idempotent under redelivery and replay from sequence 1, and notifies', async () => {
    const db = mongo.db(uniqueName('proj_replay'));
    const commodity = 'REPLAY_GOLD';
    const events: DataEvent[] = [
      commodityUpserted(commodity, 'Gold'),
      seriesRecorded(commodity, yearPoints(commodity, 2023, 0, 30, 1)),
      seriesRecorded(commodity, yearPoints(commodity, 2023, 20, 30, 100)),
      seriesRecorded(commodity, yearPoints(commodity, 2024, 0, 10, 7), { period: '2024' }),
      cotRecorded(commodity, [
        ['2024-01-02', 10],
        ['2024-01-09', 11],
      ]),
      cotRecorded(commodity, [['2024-01-09', 12]]),
    ];
    const notified: string[] = [];
    const sub = messaging.nc.subscribe(`cds.projected.*.${commodity}`, {
      callback: (_e, m) => {
        notified.push(m.subject);
      },
    });
    const seqs = await publishEvents(messaging, events);
    const durable = (p: string, n: number) => `${p}_${db.databaseName}_${n}`.slice(0, 60);
    const startAll = async (round: number): Promise<{ workers: ProjectionWorker[]; metrics: ProjectorMetrics }> => {
      const metrics = createProjectorMetrics();
      const workers = await Promise.all(
        [catalogProjection, seriesProjection, cotProjection].map((p) =>
          startProjectionWorker(depsFor(db, metrics), p as never, { durable: durable(p.name, round), batchSize: 8 }),
        ),
      );
      // Each consumer has caught up once it handled the last event of its own subjects.
      const lastOf = { catalog: seqs[5]!, series: seqs[3]!, cot: seqs[5]! };
      await eventually(
        () => (['catalog', 'series', 'cot'] as const).every((p) => metrics.of(p).lastPosition >= lastOf[p]),
        20_000,
        'workers caught up',
      );
      return { workers, metrics };
    };

    const first = await startAll(1);
    await Promise.all(first.workers.map((w) => w.stop()));
    const expectedSeries = foldEvents(
      seriesProjection,
      events.map((e, i) => [e, seqs[i]!] as [DataEvent, number]),
    );
    const bucket = await readSeriesBucket(db, COLLECTIONS.series, `${commodity}:price:2023`);
    const { rev: _rev, ...meta } = bucket!._meta;
    expect({ ...bucket, _meta: meta }).toEqual(expectedSeries.get(`${commodity}:price:2023`));
    expect(bucket!.count).toBe(50);
    const [cotBucket] = await readCotBuckets(db, COLLECTIONS.cot, { _id: `${commodity}:legacy:2024` });
    expect(cotBucket!.reports.map((r) => [r.report_date, r.open_interest])).toEqual([
      ['2024-01-02', 10],
      ['2024-01-09', 12],
    ]);
    expect(await db.collection<{ _id: string }>(COLLECTIONS.catalog).findOne({ _id: commodity })).toMatchObject({
      listed: true,
      name: 'Gold',
      series: {
        price: { first_date: '2023-01-01', last_date: '2024-01-10' },
        cot_legacy: { first_date: '2024-01-02', last_date: '2024-01-09' },
      },
    });
    expect(first.metrics.of('series').events.applied).toBe(3);
    await messaging.nc.flush();
    await eventually(() => notified.includes(projectedSubject('series', commodity)), 5_000, 'projected notification');

    const before = await Promise.all(['catalog', 'series', 'cot'].map((c) => hashCollection(db, c)));
    const revsBefore = await db
      .collection(COLLECTIONS.series)
      .find({}, { projection: { '_meta.rev': 1 } })
      .toArray();
    // Replay from sequence 1 on fresh durables: every event is redelivered and changes nothing.
    const second = await startAll(2);
    await Promise.all(second.workers.map((w) => w.stop()));
    const after = await Promise.all(['catalog', 'series', 'cot'].map((c) => hashCollection(db, c)));
    expect(after).toEqual(before);
    expect(
      await db
        .collection(COLLECTIONS.series)
        .find({}, { projection: { '_meta.rev': 1 } })
        .toArray(),
    ).toEqual(revsBefore);
    expect(second.metrics.of('series').events).toEqual({ applied: 0, ignored: 3 });
    expect(second.metrics.of('cot').documents).toBe(0);
    sub.unsubscribe();
  });

  it('parks a poison event (schema failure, unknown version, bad JSON), counts it and moves on', async () => {
    const db = mongo.db(uniqueName('proj_poison'));
    const commodity = 'POISON_CORN';
    const bad = { ...seriesRecorded(commodity, [['2023-01-02', 1]]), version: 2 };
    const badSchema = seriesRecorded(commodity, [['2023-01-03', 1]]);
    (badSchema.data.points[0] as { value: unknown }).value = 'NaN';
    await messaging.js.publish(`cds.data.series.${commodity}.price`, encodeJson(bad), { msgID: 'poison-v2' });
    await messaging.js.publish(`cds.data.series.${commodity}.price`, encodeJson(badSchema), { msgID: 'poison-schema' });
    await messaging.js.publish(`cds.data.series.${commodity}.price`, new TextEncoder().encode('{not json'), {
      msgID: 'poison-json',
    });
    const [goodSeq] = await publishEvents(messaging, [seriesRecorded(commodity, [['2023-01-04', 4]])]);
    const metrics = createProjectorMetrics();
    const worker = await startProjectionWorker(depsFor(db, metrics), seriesProjection, {
      durable: `series_${db.databaseName}`.slice(0, 60),
    });
    await eventually(() => metrics.of('series').lastPosition >= goodSeq!, 20_000, 'caught up past poison');
    await worker.stop();
    const parked = await db.collection<ParkedEventDoc>(COLLECTIONS.parked).find({}).sort({ stream_seq: 1 }).toArray();
    const ours = parked.filter((p) => p.subject.includes(commodity));
    expect(ours.map((p) => p.reason)).toEqual([
      expect.stringContaining('version'),
      expect.stringContaining('points.0.value'),
      'payload is not valid JSON',
    ]);
    expect(ours[2]!.payload).toBe('{not json');
    expect(metrics.of('series').parked).toBeGreaterThanOrEqual(3);
    const bucket = await readSeriesBucket(db, COLLECTIONS.series, `${commodity}:price:2023`);
    expect(bucket!.points).toMatchObject([{ d: '2023-01-04', v: 4 }]);
    const dlq = await messaging.jsm.streams.info(DEADLETTER_STREAM);
    expect(dlq.state.messages).toBeGreaterThanOrEqual(3);
    const consumerInfo = await messaging.jsm.consumers.info(DATA_STREAM, `series_${db.databaseName}`.slice(0, 60));
    expect(consumerInfo.num_ack_pending).toBe(0);
  });

  it('retries a transient MongoDB outage in place without skipping, and converges after a restart mid-batch', async () => {
    let ownMongo: MongoHandle | undefined;
    let client: MongoClient | undefined;
    try {
      ownMongo = await startMongo();
      client = await new MongoClient(ownMongo.url, { serverSelectionTimeoutMS: 1_000 }).connect();
      const db = client.db(uniqueName('proj_fault'));
      const commodity = 'FAULT_WHEAT';
      const events = Array.from({ length: 60 }, (_, i) =>
        seriesRecorded(commodity, yearPoints(commodity, 2020 + (i % 3), i * 2, 5, i), {
          period: String(2020 + (i % 3)),
        }),
      );
      // The last 20 are published while MongoDB is down, so the worker has work it cannot do.
      const seqs = await publishEvents(messaging, events.slice(0, 40));
      const durable = `series_${db.databaseName}`.slice(0, 60);
      const metrics = createProjectorMetrics();
      // A short ack wait: messages pulled ahead but not handled when the worker stops come back
      // after it (libs/messaging does not nak them on stop). A short operation deadline: an
      // operation sent as the server dies may get neither an answer nor an error from the driver
      // (a find sent within a few ms of the kill, while the idle connections closed at once) until
      // its deadline, which by default (20 s) is as long as the wait for retries below.
      const opts = {
        durable,
        batchSize: 16,
        ackWaitMs: 2_000,
        operationTimeoutMs: 3_000,
        retry: { initialDelayMs: 50, maxDelayMs: 400 },
      };
      let worker = await startProjectionWorker(depsFor(db, metrics), seriesProjection, opts);
      await eventually(() => metrics.of('series').events.applied >= 10, 20_000, 'some applied');
      // Stop mid-stream, then restart: the durable resumes after the last ack.
      await worker.stop();
      worker = await startProjectionWorker(depsFor(db, metrics), seriesProjection, opts);
      await eventually(() => metrics.of('series').events.applied >= 20, 20_000, 'more applied');
      // Counted from the kill: an operation that missed its deadline before it is not an outage retry.
      const retriesBefore = metrics.of('series').retries;
      await ownMongo.kill('SIGKILL');
      seqs.push(...(await publishEvents(messaging, events.slice(40))));
      await eventually(
        () => metrics.of('series').retries >= retriesBefore + 2,
        20_000,
        'retries while MongoDB is down',
      );
      const stuckAt = metrics.of('series').lastPosition;
      expect(stuckAt).toBeLessThan(seqs.at(-1)!);
      await ownMongo.restart();
      await eventually(
        async () => {
          const info = await messaging.jsm.consumers.info(DATA_STREAM, durable);
          return (
            metrics.of('series').lastPosition >= seqs.at(-1)! && info.num_pending === 0 && info.num_ack_pending === 0
          );
        },
        30_000,
        'caught up after outage',
      );
      await worker.stop();

      const expected = foldEvents(
        seriesProjection,
        events.map((e, i) => [e, seqs[i]!] as [DataEvent, number]),
      );
      // The stream also holds other tests' events; compare this commodity's buckets.
      const stored = await readSeriesBuckets(db, COLLECTIONS.series, { commodity_id: commodity });
      expect(stored.map(({ _meta: { rev: _r, ...meta }, ...rest }) => ({ ...rest, _meta: meta }))).toEqual(
        [...expected.values()].sort((a, b) => (a._id < b._id ? -1 : 1)),
      );
      for (const b of stored) expect(new Set(b.points.map((p) => p.d)).size).toBe(b.count);
    } finally {
      await client?.close().catch(() => undefined);
      await ownMongo?.stop();
    }
  });
});
