// The release ledger on a real NATS server (the testkit's, with the chart's users: the ledger runs as
// `projector`), and a projector applying real events into the shared MongoDB API server.
import { DatasetLedger, datasetOfSeries, type DataEvent, RELEASES_BUCKET } from '@cds/contracts';
import { connectMessaging, streamSpec, type Messaging } from '@cds/messaging';
import { getTestInfra, startNats, uniqueName, type NatsHandle } from '@cds/testkit';
import { Kvm } from '@nats-io/kv';
import { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppliedBatch } from '../consumer/after-apply.ts';
import { ensureDeadletterStream } from '../consumer/park.ts';
import { startProjectionWorker } from '../consumer/projection-worker.ts';
import { createProjectorMetrics } from '../metrics.ts';
import { catalogProjection, seriesProjection } from '../projections/index.ts';
import { seriesRecorded } from '../testing/events.ts';
import { eventually, publishEvents } from '../testing/harness.ts';
import { createReleaseLedger, type ReleaseLedger } from './recorder.ts';

const logger = pino({ level: process.env.SPEC_LOG ?? 'silent' });
const SPOT = datasetOfSeries({ source: 'eia:RWTC', frequency: 'daily', series_type: 'price' })!.id;
let nats: NatsHandle;
let system: Messaging;
let mongo: MongoClient;
const opened: Messaging[] = [];

beforeAll(async () => {
  nats = await startNats();
  system = await connectMessaging({ servers: nats.url, name: 'ledger-spec-system' });
  await system.ensureStream(streamSpec('data', { replicas: 1 }));
  await ensureDeadletterStream(system);
  mongo = await new MongoClient(getTestInfra().mongoUrl).connect();
});

afterAll(async () => {
  for (const m of opened) await m.close().catch(() => undefined);
  await system?.close();
  await mongo?.close();
  await nats?.stop();
});

async function asProjector(name: string): Promise<Messaging> {
  const m = await connectMessaging({ servers: nats.identities.projector, name });
  opened.push(m);
  return m;
}

const batchOf = (events: readonly DataEvent[]): AppliedBatch => ({
  events: events.map((event, i) => ({ event, position: i + 1, storedAtMs: 0 })),
  result: { changedBy: new Set(), reflected: new Set() },
});
const attempt = { signal: new AbortController().signal, progress: () => undefined };

async function storedLedger(messaging: Messaging, dataset: string): Promise<DatasetLedger | undefined> {
  const kv = await new Kvm(messaging.js).open(RELEASES_BUCKET);
  const entry = await kv.get(dataset).catch(() => null); // no bucket yet
  return entry === null || entry.operation !== 'PUT' ? undefined : DatasetLedger.parse(entry.json());
}

/** A WTI spot batch of one day, released (stated) at `published`. */
const spotDay = (date: string, published: string) =>
  seriesRecorded('CRUDE_OIL_WTI', [[date, 70]], { source: 'eia:RWTC', publishedAt: published });

describe('the release ledger on real NATS', () => {
  it('two writers racing compare-and-set on one key lose nothing, and the earliest f of a shared stretch wins', async () => {
    const stats = [{ ledgerStoreFailures: 0 }, { ledgerStoreFailures: 0 }];
    const clocks = ['2026-12-01T12:00:00.000Z', '2026-12-01T12:05:00.000Z'];
    const writers: ReleaseLedger[] = [];
    for (const i of [0, 1]) {
      writers.push(
        createReleaseLedger({
          messaging: await asProjector(`ledger-writer-${i}`),
          stats: stats[i]!,
          clock: () => new Date(clocks[i]!),
          log: logger,
          replicas: 1,
          timeoutMs: 5_000,
          flushMs: 60_000, // written by the explicit flushes below only
        }),
      );
    }
    // Each round, both record a release of their own (weeks apart: never merged) and the shared
    // one, then flush at the same moment: every round one of them meets a conflict.
    const rounds = 12;
    for (let r = 0; r < rounds; r += 1) {
      const day = (offset: number) => new Date(Date.UTC(2020, 0, 1 + 70 * r + offset)).toISOString().slice(0, 10);
      for (const i of [0, 1]) {
        await writers[i]!.record(
          batchOf([
            spotDay(day(30 * i), `${day(30 * i + 1)}T15:30:00.000Z`),
            spotDay(day(60), `${day(61)}T15:30:00.000Z`),
          ]),
          attempt,
        );
      }
      await Promise.all(writers.map((w) => w.flush()));
    }
    const ledger = await storedLedger(system, SPOT);
    expect(ledger?.entries).toHaveLength(3 * rounds);
    const shared = ledger!.entries.filter((_, i) => i % 3 === 2);
    expect(new Set(shared.map((e) => e.f))).toEqual(new Set([clocks[0]]));
    expect(new Set(ledger!.entries.filter((_, i) => i % 3 === 1).map((e) => e.f))).toEqual(new Set([clocks[1]]));
    expect(stats).toEqual([{ ledgerStoreFailures: 0 }, { ledgerStoreFailures: 0 }]);
    await Promise.all(writers.map((w) => w.close()));
  });

  it('a projector applying real events fills the bucket; a replay from the start later moves no f', async () => {
    const db = mongo.db(uniqueName('ledger'));
    const messaging = await asProjector('ledger-projector');
    // the key the first case wrote: this one starts from none
    await (await new Kvm(system.js).create(RELEASES_BUCKET)).purge(SPOT);
    const wti = (date: string, value: number) =>
      seriesRecorded('CRUDE_OIL_WTI', [[date, value]], {
        source: 'eia:RWTC',
        publishedAt: '2026-11-25T15:30:00Z',
        period: date.slice(0, 7),
      });
    const demo = seriesRecorded('CORN', [['2026-11-20', 4]], { source: 'demo' });
    await publishEvents(system, [wti('2026-11-17', 70), wti('2026-11-18', 71), demo, wti('2026-11-21', 72)]);
    const start = (now: string) =>
      startProjectionWorker(
        { messaging, db, logger, metrics: createProjectorMetrics(), clock: () => new Date(now) },
        seriesProjection,
        { ledger: { flushMs: 50, timeoutMs: 5_000 } },
      );
    // The catalog sees the same events but serves none of their data: it records nothing.
    const catalogMetrics = createProjectorMetrics();
    const catalog = await startProjectionWorker(
      { messaging, db, logger, metrics: catalogMetrics, clock: () => new Date('2026-11-25T15:30:30.000Z') },
      catalogProjection,
      { ledger: { flushMs: 50, timeoutMs: 5_000 } },
    );
    await eventually(() => catalogMetrics.of('catalog').lastPosition >= 4, 20_000, 'the catalog');
    await catalog.stop();
    expect(await storedLedger(system, SPOT)).toBeUndefined();
    const first = await start('2026-11-25T15:31:00.000Z');
    const expected = [
      { lo: '2026-11-17', hi: '2026-11-21', f: '2026-11-25T15:31:00.000Z', p: '2026-11-25T15:30:00.000Z' },
    ];
    await eventually(
      async () => JSON.stringify((await storedLedger(system, SPOT))?.entries) === JSON.stringify(expected),
      20_000,
      'the ledger key',
    );
    const { revision } = (await (await new Kvm(system.js).open(RELEASES_BUCKET)).get(SPOT))!;
    await first.stop();

    // The durable deleted: a new one replays the stream from its start, a week later. It has another
    // name: a consumer created under the name of one deleted a moment before can fail in nats-server's
    // file store (a rehearsal's "rename .../obs/projector-series/o.dat.tmp: no such file or directory",
    // the old consumer's folder removed under the new one).
    await system.jsm.consumers.delete('CDS_DATA', 'projector-series');
    const metrics = createProjectorMetrics();
    const again = await startProjectionWorker(
      { messaging, db, logger, metrics, clock: () => new Date('2026-12-02T09:00:00.000Z') },
      seriesProjection,
      { durable: 'projector-series-replay', ledger: { flushMs: 50, timeoutMs: 5_000 } },
    );
    await eventually(() => metrics.of('series').lastPosition >= 4, 20_000, 'the replay');
    await again.stop();
    expect((await storedLedger(system, SPOT))?.entries).toEqual(expected);
    // nothing changed: nothing written
    expect((await (await new Kvm(system.js).open(RELEASES_BUCKET)).get(SPOT))!.revision).toBe(revision);
  });

  it('a bucket out of reach fails no batch and holds none up: counted, kept, written once it answers', async () => {
    const own = await startNats();
    const stats = { ledgerStoreFailures: 0 };
    try {
      const messaging = await connectMessaging({ servers: own.url, name: 'ledger-outage' });
      opened.push(messaging);
      const ledger = createReleaseLedger({
        messaging,
        stats,
        clock: () => new Date('2026-12-01T12:00:00.000Z'),
        log: logger,
        replicas: 1,
        bucket: 'LEDGER_OUTAGE',
        timeoutMs: 300,
        flushMs: 60_000,
      });
      // The stream of a bucket cannot be a subset of another's subjects: a stream on `$KV.LEDGER_OUTAGE.>`
      // (not a KV bucket) makes every creation of the bucket fail, as an unreachable server would.
      await messaging.jsm.streams.add({ name: 'BLOCKER', subjects: ['$KV.LEDGER_OUTAGE.>'] });
      await ledger.record(batchOf([spotDay('2026-11-30', '2026-12-01T15:30:00Z')]), attempt);
      await ledger.flush();
      expect(stats.ledgerStoreFailures).toBe(1);
      await messaging.jsm.streams.delete('BLOCKER');
      await ledger.flush();
      expect(stats.ledgerStoreFailures).toBe(1);
      const kv = await new Kvm(messaging.js).open('LEDGER_OUTAGE');
      expect(DatasetLedger.parse((await kv.get(SPOT))!.json()).entries).toEqual([
        { lo: '2026-11-30', hi: '2026-11-30', f: '2026-12-01T12:00:00.000Z', p: '2026-12-01T15:30:00.000Z' },
      ]);
      await ledger.close();
    } finally {
      await own.stop();
    }
  });
});
