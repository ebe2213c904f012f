import { DATA_STREAM, type DataEvent } from '@cds/contracts';
import type { Messaging } from '@cds/messaging';
import { ALIAS_CACHE_MS, COLLECTIONS, type ReadModelAliasDoc } from '@cds/read-models';
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
import { setTimeout as sleep } from 'node:timers/promises';

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

  it('replays every matching message when the first ones reach it late, rather than taking the quiet for an end', async () => {
    const db = mongo.db(uniqueName('rebuild_late'));
    const seqs = await publishEvents(messaging, [
      commodityUpserted('LATE_SUGAR'),
      ...Array.from({ length: 5 }, (_, i) =>
        seriesRecorded('LATE_SUGAR', [[`2020-01-0${i + 1}`, i]], { period: '2020' }),
      ),
    ]);
    const matching = Object.values(
      (await messaging.jsm.streams.info(DATA_STREAM, { subjects_filter: seriesProjection.filterSubject })).state
        .subjects ?? {},
    ).reduce((a, b) => a + b, 0);
    // The replay's first batch reaches the rebuild late, as on a NATS cluster just healed or a busy
    // machine (a rebuild of the cluster e2e once swapped in an empty COT read model so): the real
    // messaging, with the delay put in front of the rebuild's handler. The delay outlasts both waits
    // of the swap (before it, and the catch-up after the readers' alias caches expired), so a rule
    // of "quiet for a while means done" would swap in an empty collection.
    const delayMs = 2 * ALIAS_CACHE_MS + 4_000;
    let late = true;
    const consume: Messaging['consume'] = (opts) =>
      messaging.consume({
        ...opts,
        handler: async (batch, attempt) => {
          if (late) {
            late = false;
            await sleep(delayMs);
          }
          return opts.handler(batch, attempt);
        },
      });
    const report = await rebuildProjection(
      { messaging: { ...messaging, consume }, db, logger, clock: () => new Date() },
      seriesProjection,
      { keepPrevious: true },
    );
    expect(late).toBe(false);
    // the read model swapped in held every matching message (that rule swapped at sequence 0)
    expect(report.swappedAt).toBeGreaterThanOrEqual(seqs.at(-1)!);
    expect(report.events).toBeGreaterThanOrEqual(matching);
    expect(report.lastSeq).toBeGreaterThanOrEqual(seqs.at(-1)!);
    const bucket = await readSeriesBucket(db, report.collection, 'LATE_SUGAR:price:2020');
    expect(bucket?.points.map((p) => p.d)).toEqual([
      '2020-01-01',
      '2020-01-02',
      '2020-01-03',
      '2020-01-04',
      '2020-01-05',
    ]);
  });

  it('fails, leaving the live read model in place, when the replay receives nothing for its stall time', async () => {
    const db = mongo.db(uniqueName('rebuild_stalled'));
    await publishEvents(messaging, [seriesRecorded('STALL_SUGAR', [['2021-01-04', 1]], { period: '2021' })]);
    // a replay that never hands its messages on
    const consume: Messaging['consume'] = (opts) =>
      messaging.consume({ ...opts, handler: () => new Promise(() => undefined) });
    await expect(
      rebuildProjection(
        { messaging: { ...messaging, consume }, db, logger, clock: () => new Date() },
        seriesProjection,
        { stallMs: 1_000 },
      ),
    ).rejects.toThrow(/received nothing for 1000 ms, \d+ of \d+ messages still to come/);
    expect(await readActiveCollection(db, 'series')).toBe('series');
  });
});
