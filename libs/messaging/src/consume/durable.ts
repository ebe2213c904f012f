import type { ConsumerInfo, JsMsg } from '@nats-io/jetstream';
import { millis, nanos } from '@nats-io/transport-node';
import type { Acks } from './attempts.ts';
import { startLoop } from './loop.ts';
import { tell } from './message.ts';
import type { ConsumeClients, ConsumeOptions, RunningConsumer } from './types.ts';
import type { Backlog } from './watchdog.ts';

/**
 * The durable work-queue consumer: a durable pull consumer (`ensureConsumer` creates it) whose
 * position the server keeps. Messages are acked after the handler, poison termed, the deadlines of
 * a batch in hand extended every third of the ack wait; each batch is traced. The pull is reopened
 * when the server shows no pull request of ours (after a NATS restart); the watchdog compares the
 * consumer's own sequences. Its position is the highest sequence it settled.
 */
export async function consumeDurable<T>(
  clients: ConsumeClients,
  opts: ConsumeOptions<T>,
  durable: string,
): Promise<RunningConsumer> {
  const consumer = await clients.js.consumers.get(opts.stream, durable);
  const ackWaitMs = opts.ackWaitMs ?? millis((await consumer.info(true)).config.ack_wait ?? nanos(30_000));
  let position = 0;
  return startLoop(opts, {
    name: durable,
    ackWaitMs,
    // Pulled ahead by count (batchSize messages). A pull bounded by bytes instead (NATS takes one or
    // the other) held 30 MB less of a COT backfill, but the client then handed the events over one
    // at a time: a batch of one, series projection 1,832 -> 646 events/s (npm run bench:projection).
    open: () => consumer.consume({ max_messages: opts.batchSize ?? 256 }),
    acks: durableAcks(ackWaitMs),
    traced: true,
    waitingPulls: () =>
      consumer
        .info()
        .then((i) => i.num_waiting)
        .catch(() => undefined),
    backlog: async () => {
      const info = await consumer.info().catch(() => undefined);
      return info === undefined ? undefined : durableBacklog(durable, info);
    },
    reopenWhileStuck: false,
    settled: (batch) => (position = Math.max(position, batch.at(-1)!.seq)),
    position: () => position,
    afterStop: async () => {
      // Acks are fire-and-forget publishes; flush so they reach the server before a close.
      if (!clients.nc.isClosed()) await clients.nc.flush().catch(() => undefined);
    },
  });
}

/** Acks that never throw (a closed connection has no one to tell; the server redelivers). */
export function durableAcks(ackWaitMs: number): Acks {
  return {
    ack: (m: JsMsg) => tell(() => m.ack()),
    term: (m: JsMsg) => tell(() => m.term()),
    nak: (m: JsMsg) => tell(() => m.nak()),
    working: (m: JsMsg) => tell(() => m.working()),
    heartbeatMs: Math.max(100, Math.floor(ackWaitMs / 3)),
  };
}

/**
 * What the server holds for a durable consumer. It moves (`key`) when its delivered or acknowledged
 * sequence or its pending count changes; `onlyUnacked` when all that is left awaits redelivery.
 */
export function durableBacklog(
  name: string,
  info: Pick<ConsumerInfo, 'num_pending' | 'num_ack_pending' | 'num_waiting' | 'delivered' | 'ack_floor'>,
): Backlog {
  if (info.num_pending + info.num_ack_pending === 0) return { empty: true };
  return {
    empty: false,
    key: `${info.delivered.stream_seq}/${info.ack_floor.stream_seq}/${info.num_pending}`,
    onlyUnacked: info.num_pending === 0,
    report: {
      phase: 'waiting',
      durable: name,
      quietMs: 0,
      pending: info.num_pending,
      ackPending: info.num_ack_pending,
      waitingPulls: info.num_waiting,
      deliveredSeq: info.delivered.stream_seq,
      ackFloorSeq: info.ack_floor.stream_seq,
    },
  };
}
