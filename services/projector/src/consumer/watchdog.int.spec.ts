import { DATA_STREAM, type DataEvent } from '@cds/contracts';
import type { StallReport } from '@cds/messaging';
import { startMongo, uniqueName, type MongoHandle } from '@cds/testkit';
import { MongoClient } from 'mongodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { createProjectorMetrics } from '../metrics.ts';
import { seriesProjection } from '../projections/index.ts';
import { seriesRecorded } from '../testing/events.ts';
import { eventually, publishEvents, startSpecServers } from '../testing/harness.ts';
import { startProjectionWorker, type ProjectionWorker } from './projection-worker.ts';

// The projector's watchdog (issue #16): a stalled loop is found, reported once and recovered; a
// healthy multi-batch run never trips it; a stall that recovery cannot fix fails /healthz.
let servers: Awaited<ReturnType<typeof startSpecServers>>;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  servers = await startSpecServers('projector-watchdog-spec');
});

afterAll(async () => {
  await servers?.stop();
});

const COMMODITIES = Array.from({ length: 20 }, (_, i) => `WD_C${i}`);

/** Series events shaped like the projection bench's: 8 years of 20 commodities (160 buckets). */
function spreadEvent(tag: string, i: number): DataEvent {
  const commodity = `${tag}_${COMMODITIES[i % COMMODITIES.length]!}`;
  const year = 2015 + (Math.floor(i / COMMODITIES.length) % 8);
  const start = (i * 37) % 300;
  const points = Array.from({ length: 3 }, (_, k): [string, number] => [
    new Date(Date.UTC(year, 0, 1 + start + k)).toISOString().slice(0, 10),
    i + k,
  ]);
  return seriesRecorded(commodity, points, { period: String(year) });
}

function appFor(worker: ProjectionWorker, metrics = createProjectorMetrics()) {
  return buildApp({
    logger,
    metrics,
    projections: ['series'],
    workers: () => [worker],
    natsConnected: () => true,
    mongoPing: () => Promise.resolve(true),
  });
}

describe('pull loop watchdog', () => {
  it('recovers a batch whose handler never settles: reports it once, aborts the attempt, retries in place', async () => {
    const { messaging } = servers;
    const stream = 'WD_LOOP';
    await messaging.ensureStream({ name: stream, subjects: ['wd.loop.>'], replicas: 1, duplicateWindowMs: 60_000 });
    await messaging.ensureConsumer({
      stream,
      durable: 'wd',
      filterSubject: 'wd.loop.>',
      ackWaitMs: 5_000,
      maxAckPending: 1_000,
    });
    for (let i = 0; i < 30; i++) await messaging.js.publish(`wd.loop.${i % 3}`, new TextEncoder().encode(String(i)));
    const handled = new Set<number>();
    const stalls: StallReport[] = [];
    const recovered: StallReport[] = [];
    const failed: StallReport[] = [];
    let attempts = 0;
    let abortedWith: unknown;
    const loop = await messaging.consume({
      stream,
      mode: { kind: 'durable', durable: 'wd' },
      ackWaitMs: 5_000,
      batchSize: 8,
      maxBatch: 8,
      onPoison: async () => {},
      retry: { initialDelayMs: 20, maxDelayMs: 100 },
      watchdog: {
        stallMs: 800,
        onStall: (r) => stalls.push(r),
        onRecovered: (r) => recovered.push(r),
        onRecoveryFailed: (r) => failed.push(r),
      },
      handler: async (batch, { signal }) => {
        attempts++;
        if (attempts === 2) {
          // The second batch's first attempt waits on something that never answers.
          signal.addEventListener('abort', () => (abortedWith = signal.reason));
          await new Promise<never>(() => undefined);
        }
        for (const m of batch) handled.add(Number(new TextDecoder().decode(m.data)));
      },
    });
    try {
      await eventually(() => handled.size === 30, 20_000, 'all 30 handled');
      expect(stalls).toHaveLength(1);
      expect(stalls[0]).toMatchObject({ phase: 'handling', durable: 'wd', attempt: 1 });
      expect((abortedWith as Error).name).toBe('StalledAttemptError');
      expect(recovered).toHaveLength(1);
      expect(failed).toEqual([]);
      expect(loop.stall()).toBeUndefined();
      await eventually(
        async () => (await messaging.jsm.consumers.info(stream, 'wd')).num_ack_pending === 0,
        10_000,
        'everything acked',
      );
    } finally {
      await loop.stop();
    }
  });

  it('does not fire on a healthy multi-batch run with idle gaps longer than the stall time', async () => {
    const { messaging, mongo } = servers;
    const db = mongo.db(uniqueName('proj_wd_healthy'));
    const metrics = createProjectorMetrics();
    const durable = `wd_healthy_${db.databaseName}`.slice(0, 60);
    const stallMs = 4_000;
    const events = Array.from({ length: 600 }, (_, i) => spreadEvent('HEALTHY', i));
    await publishEvents(messaging, events.slice(0, 400));
    const worker = await startProjectionWorker(
      { messaging, db, logger, metrics, clock: () => new Date() },
      seriesProjection,
      { durable, batchSize: 64, stallMs, operationTimeoutMs: 3_000 },
    );
    const app = appFor(worker, metrics);
    try {
      const s = metrics.of('series');
      const handled = () => s.events.applied + s.events.ignored;
      await eventually(() => handled() >= 400, 45_000, 'first 400 handled');
      // Idle (nothing pending) for longer than the stall time: not a stall.
      await sleep(stallMs * 1.5);
      await publishEvents(messaging, events.slice(400));
      await eventually(() => handled() >= 600, 45_000, 'all 600 handled');
      expect(s.stalls).toBe(0);
      expect(s.stallRecoveryFailures).toBe(0);
      expect(worker.stall()).toBeUndefined();
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
      // The handled counter moves when a message's write is done; its ack reaches the server just
      // after, so the server's count of unacked messages is awaited, not read at once.
      await eventually(
        async () => (await messaging.jsm.consumers.info(DATA_STREAM, durable)).num_ack_pending === 0,
        10_000,
        'every handled message acked',
      );
    } finally {
      await worker.stop();
      await app.close();
    }
  }, 120_000);
});

describe('/healthz when the watchdog cannot recover', () => {
  let ownMongo: MongoHandle | undefined;
  let client: MongoClient | undefined;
  afterAll(async () => {
    await client?.close(true).catch(() => undefined);
    await ownMongo?.kill('SIGKILL');
    await ownMongo?.stop();
  });

  it('fails /healthz when FerretDB is deadlocked (update commands of 100+ statements, the root cause)', async () => {
    ownMongo = await startMongo();
    // skip on a real mongod: the deadlock is FerretDB's
    if (ownMongo.flavor !== 'ferretdb') return;
    client = await new MongoClient(ownMongo.url).connect();
    const { messaging } = servers;
    const db = client.db(uniqueName('proj_wd_deadlock'));
    const metrics = createProjectorMetrics();
    const durable = `wd_deadlock_${db.databaseName}`.slice(0, 60);
    // Two full batches over 160 buckets: the second replaces ~100+ stored buckets at once.
    await publishEvents(
      messaging,
      Array.from({ length: 400 }, (_, i) => spreadEvent('DEADLOCK', i)),
    );
    const stallMs = 2_500;
    const worker = await startProjectionWorker(
      { messaging, db, logger, metrics, clock: () => new Date() },
      seriesProjection,
      {
        durable,
        batchSize: 256,
        writeClaims: false,
        // The command shape that deadlocked FerretDB before the fix.
        maxUpdatesPerCommand: 10_000,
        operationTimeoutMs: 1_000,
        stallMs,
        retry: { initialDelayMs: 50, maxDelayMs: 200 },
      },
    );
    const app = appFor(worker, metrics);
    try {
      const s = metrics.of('series');
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
      await eventually(() => s.stalls === 1, 30_000, 'the stall found');
      // Recovering (the attempt was aborted), not yet failed: still alive.
      expect(worker.stall()?.recoveryFailed).toBe(false);
      await eventually(() => s.stallRecoveryFailures === 1, 30_000, 'recovery failed');
      const res = await app.inject({ url: '/healthz' });
      expect(res.statusCode).toBe(503);
      const body = res.json<{ status: string; stalled: { projection: string; stuck: StallReport }[] }>();
      expect(body.status).toBe('stalled');
      expect(body.stalled).toHaveLength(1);
      expect(body.stalled[0]!.projection).toBe('series');
      expect(body.stalled[0]!.stuck).toMatchObject({ phase: 'handling', durable });
      // A read's maxTimeMS and the client's deadline are the same length (libs/store deadline.ts): the
      // last error is the deadline's (the hung update, or a read) or FerretDB's own time limit on a read.
      expect((body.stalled[0]!.stuck as { lastError?: string }).lastError).toMatch(
        /no answer from the database|operation exceeded time limit/,
      );
      expect(s.retries).toBeGreaterThan(0);
      const rendered = await metrics.render();
      expect(rendered).toMatch(/^cds_projector_stalls_total\{projection="series"[^}]*\} 1$/m);
      expect(rendered).toMatch(/^cds_projector_stall_recovery_failures_total\{projection="series"[^}]*\} 1$/m);
    } finally {
      await worker.stop();
      await app.close();
    }
  }, 120_000);
});
