import { DATA_STREAM, type DataEvent } from '@cds/contracts';
import { uniqueName } from '@cds/testkit';
import { COLLECTIONS } from '@cds/read-models';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProjectorMetrics } from '../metrics.ts';
import { catalogProjection } from '../projections/index.ts';
import { commodityUpserted } from '../testing/events.ts';
import { eventually, publishEvents, startSpecServers } from '../testing/harness.ts';
import { createGapDetector } from './gap-detector.ts';
import { startProjectionWorker } from './projection-worker.ts';

// Issue #28: a projector killed mid-batch left messages delivered but unacknowledged; after the
// restart JetStream delivers the messages after them first and redelivers them once their ack wait
// runs out. The catalog consumer reads the whole stream, and the detector counted that first jump as
// lost messages (230 "gaps" in a fault run whose read models were exact). A gap is a message the
// stream no longer holds, whatever the consumer's filter.
// Each test runs on its own NATS server: the deletions of one must not reach the other's consumers.
let servers: Awaited<ReturnType<typeof startSpecServers>> | undefined;
const logger = pino({ level: 'silent' });
// Long enough for a restarted worker to pull before it runs out (so the first delivery jumps past
// the unacknowledged messages, as after a real kill), short enough to keep the spec quick.
const ACK_WAIT_MS = 4_000;

beforeEach(async () => {
  servers = await startSpecServers('projector-gap-spec');
});

afterEach(async () => {
  await servers?.stop();
  servers = undefined;
});

const events = (tag: string, n: number): DataEvent[] =>
  Array.from({ length: n }, (_, i) => commodityUpserted(`${tag}_${i}`));

/** Delivers `deliver` messages of the durable and acks the first `ack`: a consumer killed mid-batch. */
async function deliverAndDie(durable: string, deliver: number, ack: number): Promise<number[]> {
  const consumer = await servers!.messaging.js.consumers.get(DATA_STREAM, durable);
  const seen: number[] = [];
  const batch = await consumer.fetch({ max_messages: deliver, expires: 5_000 });
  for await (const m of batch) {
    if (seen.length < ack) m.ack();
    seen.push(m.seq);
    if (seen.length === deliver) break;
  }
  await servers!.messaging.nc.flush();
  return seen;
}

describe('stream gap detection', () => {
  it('a durable restarted with unacknowledged messages: the jump past them is no gap; deleted messages are', async () => {
    const { messaging } = servers!;
    const durable = uniqueName('gap_raw');
    await messaging.ensureConsumer({
      stream: DATA_STREAM,
      durable,
      filterSubject: 'cds.data.>',
      ackWaitMs: ACK_WAIT_MS,
      maxAckPending: 1_000,
    });
    const seqs = await publishEvents(messaging, events('GAP_RAW', 12));
    const delivered = await deliverAndDie(durable, 8, 2);
    expect(delivered).toEqual(seqs.slice(0, 8));
    const info = await messaging.jsm.consumers.info(DATA_STREAM, durable);
    expect(info.ack_floor.stream_seq).toBe(seqs[1]);

    // The restart: the next delivery is the first message never delivered, not the first unacked.
    const [next] = await deliverAndDie(durable, 1, 1);
    expect(next).toBe(seqs[8]);
    const detector = createGapDetector({ jsm: messaging.jsm, stream: DATA_STREAM, refreshMs: 0 });
    expect(await detector.check(info.ack_floor.stream_seq, next!)).toBe(0);

    // Messages deleted from the stream before delivery are gaps: two of the last three.
    await messaging.jsm.streams.deleteMessage(DATA_STREAM, seqs[9]!);
    await messaging.jsm.streams.deleteMessage(DATA_STREAM, seqs[10]!);
    expect(await detector.check(seqs[8]!, seqs[11]!)).toBe(2);
    // A redelivery (a sequence at or below the last one seen) is never a gap.
    expect(await detector.check(seqs[8]!, seqs[3]!)).toBe(0);
  });

  it('the catalog worker (whole stream) restarted after a kill mid-batch counts no gap and projects everything', async () => {
    const { messaging, mongo } = servers!;
    const db = mongo.db(uniqueName('proj_gap'));
    const durable = uniqueName('gap_catalog');
    const metrics = createProjectorMetrics();
    const start = () =>
      startProjectionWorker({ messaging, db, logger, metrics, clock: () => new Date() }, catalogProjection as never, {
        durable,
        ackWaitMs: ACK_WAIT_MS,
        batchSize: 4,
      });
    const caughtUp = async () => {
      const info = await messaging.jsm.consumers.info(DATA_STREAM, durable);
      return info.num_pending === 0 && info.num_ack_pending === 0;
    };
    // A projector that ran, acknowledged what it had, and was killed with 10 of the next 20 messages
    // delivered and none of them acknowledged.
    const first = await start();
    const old = await publishEvents(messaging, events('GAP_OLD', 5));
    await eventually(caughtUp, 20_000, 'catalog worker caught up before the kill');
    await first.stop();
    const seqs = await publishEvents(messaging, events('GAP_CAT', 20));
    await deliverAndDie(durable, 10, 0);
    const atKill = await messaging.jsm.consumers.info(DATA_STREAM, durable);
    expect([atKill.ack_floor.stream_seq, atKill.num_ack_pending]).toEqual([old.at(-1), 10]);

    const worker = await start();
    await eventually(caughtUp, 20_000, 'catalog worker caught up with the redeliveries');
    await worker.stop();
    expect(metrics.of('catalog').gaps).toBe(0);
    expect(metrics.of('catalog').lastPosition).toBe(seqs.at(-1));
    expect(
      await db.collection<{ _id: string }>(COLLECTIONS.catalog).countDocuments({ _id: { $regex: '^GAP_CAT_' } }),
    ).toBe(20);

    // Two messages deleted before the worker sees them: counted, once each.
    const more = await publishEvents(messaging, events('GAP_DEL', 5));
    await messaging.jsm.streams.deleteMessage(DATA_STREAM, more[1]!);
    await messaging.jsm.streams.deleteMessage(DATA_STREAM, more[2]!);
    const again = await start();
    await eventually(caughtUp, 20_000, 'catalog worker caught up after the deletions');
    await again.stop();
    expect(metrics.of('catalog').gaps).toBe(2);
  });
});
