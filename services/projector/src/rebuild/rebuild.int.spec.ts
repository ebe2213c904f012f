import { DATA_STREAM, type DataEvent } from '@cds/contracts';
import type { Messaging } from '@cds/messaging';
import { COLLECTIONS, type ReadModelAliasDoc } from '@cds/read-models';
import { uniqueName } from '@cds/testkit';
import type { MongoClient } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProjectionWorker } from '../consumer/projection-worker.ts';
import { createProjectorMetrics } from '../metrics.ts';
import { seriesProjection } from '../projections/index.ts';
import { readActiveCollection } from '@cds/store';
import { commodityUpserted, seriesRecorded } from '../testing/events.ts';
import { eventually, hashCollection, publishEvents, startSpecServers } from '../testing/harness.ts';
import { readSeriesBucket } from '../testing/stored.ts';
import { rebuildProjection } from './rebuild.ts';

let servers: Awaited<ReturnType<typeof startSpecServers>>;
let messaging: Messaging;
let mongo: MongoClient;
const logger = pino({ level: process.env.SPEC_LOG ?? 'silent' });

beforeAll(async () => {
  servers = await startSpecServers('projector-rebuild-spec');
  ({ messaging, mongo } = servers);
});

afterAll(async () => {
  await servers?.stop();
});

function batch(i: number): DataEvent {
  const pts: [string, number][] = [0, 1, 2, 3].map((k) => [
    new Date(Date.UTC(2015 + (i % 4), 0, 1 + ((i * 3) % 300) + k)).toISOString().slice(0, 10),
    i + k,
  ]);
  return seriesRecorded('REBUILD_SUGAR', pts, { period: String(2015 + (i % 4)) });
}

describe('rebuild', () => {
  it('replays the stream into a fresh collection, swaps the alias while the live projector runs, and matches it', async () => {
    const db = mongo.db(uniqueName('rebuild'));
    const metrics = createProjectorMetrics();
    const deps = { messaging, db, logger, metrics, clock: () => new Date() };
    const seqs = await publishEvents(messaging, [
      commodityUpserted('REBUILD_SUGAR'),
      ...Array.from({ length: 40 }, (_, i) => batch(i)),
    ]);
    const worker = await startProjectionWorker(deps, seriesProjection, { durable: 'series_live', ackWaitMs: 5_000 });
    await eventually(() => metrics.of('series').lastPosition >= seqs.at(-1)!, 20_000, 'live caught up');
    const live = await hashCollection(db, COLLECTIONS.series);

    // Keep publishing while the rebuild runs: the live projector keeps writing throughout.
    let publishing = true;
    let n = 40;
    const more = (async () => {
      // A bounded trickle (the machine is small): enough to land before, during and after the swap.
      while (publishing && n < 70) {
        await publishEvents(messaging, [batch(n++)]);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const report = await rebuildProjection(deps, seriesProjection, { graceMs: 200 });
    publishing = false;
    await more;
    const last = (await messaging.jsm.streams.info(DATA_STREAM)).state.last_seq;
    await eventually(() => metrics.of('series').lastPosition >= last, 20_000, 'live caught up after rebuild');
    await worker.stop();

    expect(report).toMatchObject({ projection: 'series', previous: 'series', dropped: true });
    expect(report.collection).toMatch(/^series_rebuild_\d+$/);
    expect(report.events).toBeGreaterThanOrEqual(40);
    expect(report.parked).toBe(0);
    expect(await readActiveCollection(db, 'series')).toBe(report.collection);
    const alias = await db.collection<ReadModelAliasDoc>(COLLECTIONS.aliases).findOne({ _id: 'series' });
    expect(alias).toMatchObject({ collection: report.collection, position: report.swappedAt });
    expect((await db.listCollections({ name: 'series' }).toArray()).length).toBe(0);

    // The rebuilt collection equals a from-scratch projection of the whole stream.
    const fresh = mongo.db(uniqueName('rebuild_ref'));
    const refMetrics = createProjectorMetrics();
    const ref = await startProjectionWorker({ ...deps, db: fresh, metrics: refMetrics }, seriesProjection, {
      durable: 'series_ref',
    });
    await eventually(() => refMetrics.of('series').lastPosition >= last, 20_000, 'reference caught up');
    await ref.stop();
    const rebuilt = await hashCollection(db, report.collection);
    expect(rebuilt).toEqual(await hashCollection(fresh, COLLECTIONS.series));
    expect(rebuilt.count).toBeGreaterThanOrEqual(live.count);
    const bucket = await readSeriesBucket(db, report.collection, 'REBUILD_SUGAR:price:2015');
    expect(bucket!.count).toBe(new Set(bucket!.points.map((p) => p.d)).size);
  });
});
