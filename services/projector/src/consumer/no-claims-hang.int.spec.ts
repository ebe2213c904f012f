import { DATA_STREAM, type DataEvent } from '@cds/contracts';
import { COLLECTIONS } from '@cds/read-models';
import { startMongo, uniqueName, type MongoHandle } from '@cds/testkit';
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectorMetrics } from '../metrics.ts';
import { seriesProjection } from '../projections/index.ts';
import { foldEvents, seriesRecorded } from '../testing/events.ts';
import { eventually, publishEvents, startSpecServers } from '../testing/harness.ts';
import { FERRETDB_UPDATES_PER_COMMAND } from '@cds/store';
import { readSeriesBuckets } from '../testing/stored.ts';
import { startProjectionWorker } from './projection-worker.ts';

// Issue #16, part 1: `BENCH_CLAIMS=off npm run bench:projection` hung in its first phase. The
// bench's default shape: series events spread over 8 years of 20 commodities (160 buckets), a
// pre-published stream, batches of 256, write claims off. Its second batch replaced ~150 stored
// buckets in one update command, and FerretDB 1.24 holds one of its 100 pooled SQLite connections
// per statement until the command ends: the command waited forever for a connection it held
// itself. Its own MongoDB API server, so a regression cannot take the shared one down with it.
let servers: Awaited<ReturnType<typeof startSpecServers>>;
let ownMongo: MongoHandle;
let client: MongoClient;
const updates: number[] = [];
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  servers = await startSpecServers('projector-no-claims-spec');
  ownMongo = await startMongo();
  client = await new MongoClient(ownMongo.url, { monitorCommands: true }).connect();
  client.on('commandStarted', (e: CommandStartedEvent) => {
    if (e.commandName === 'update') updates.push((e.command.updates as unknown[]).length);
  });
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await ownMongo?.stop();
  await servers?.stop();
});

const COMMODITIES = Array.from({ length: 20 }, (_, i) => `NOCLAIM_C${i}`);

/** The bench's throughput events, test-sized: 5 points instead of 20. */
function benchShapeEvent(i: number): DataEvent {
  const commodity = COMMODITIES[i % COMMODITIES.length]!;
  const year = 2015 + (Math.floor(i / COMMODITIES.length) % 8);
  const start = (i * 37) % 300;
  const points = Array.from({ length: 5 }, (_, k): [string, number] => [
    new Date(Date.UTC(year, 0, 1 + start + k)).toISOString().slice(0, 10),
    50 + ((i + k) % 10),
  ]);
  return seriesRecorded(commodity, points, { period: String(year) });
}

describe('the bench default shape with write claims off (issue #16)', () => {
  it('projects 400 events over 160 buckets in batches of 256 without hanging', async () => {
    const db = client.db(uniqueName('proj_noclaims'));
    const events = Array.from({ length: 400 }, (_, i) => benchShapeEvent(i));
    const seqs = await publishEvents(servers.messaging, events);
    const metrics = createProjectorMetrics();
    const durable = `noclaims_${db.databaseName}`.slice(0, 60);
    const worker = await startProjectionWorker(
      { messaging: servers.messaging, db, logger, metrics, clock: () => new Date() },
      seriesProjection,
      { durable, batchSize: 256, writeClaims: false },
    );
    try {
      const s = metrics.of('series');
      await eventually(
        () => s.events.applied + s.events.ignored >= events.length,
        45_000,
        `all ${events.length} events handled (handled ${s.events.applied + s.events.ignored}, retries ${s.retries})`,
      );
      // A batch is counted handled inside the handler, and its messages are acked after it
      // returns: every one of them must be acknowledged soon after, none left pending.
      await eventually(
        async () => (await servers.messaging.jsm.consumers.info(DATA_STREAM, durable)).num_ack_pending === 0,
        10_000,
        'every message acknowledged',
      );
    } finally {
      await worker.stop();
    }
    const expected = foldEvents(
      seriesProjection,
      events.map((e, i) => [e, seqs[i]!] as [DataEvent, number]),
    );
    // The second batch replaced ~150 stored buckets, in commands of at most 16 statements.
    expect(updates.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...updates)).toBeLessThanOrEqual(FERRETDB_UPDATES_PER_COMMAND);
    const stored = await readSeriesBuckets(db, COLLECTIONS.series, {});
    expect(stored).toHaveLength(160);
    expect(stored.map(({ _meta: { rev: _r, ...meta }, ...rest }) => ({ ...rest, _meta: meta }))).toEqual(
      [...expected.values()].sort((a, b) => (a._id < b._id ? -1 : 1)),
    );
  }, 90_000);
});
