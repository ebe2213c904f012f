import { DeliverPolicy, type OrderedConsumerOptions, type StreamState } from '@nats-io/jetstream';
import { MessagingSetupError } from '../errors.ts';
import { startLoop } from './loop.ts';
import type { ConsumeClients, ConsumeMode, ConsumeOptions, RunningConsumer } from './types.ts';
import type { Backlog } from './watchdog.ts';

/**
 * The ordered follower: follows a stream from a sequence on with an ephemeral ordered consumer and
 * no acks. The position (the last handled sequence) lives here: a reopened pull is a new consumer
 * that starts after it, and a delivery at or below it is skipped. The watchdog compares the
 * position with the stream's last sequence and, while stuck, recreates the consumer every `stallMs`.
 */
export async function consumeOrdered<T>(
  clients: ConsumeClients,
  opts: ConsumeOptions<T>,
  mode: Extract<ConsumeMode, { kind: 'ordered' }>,
): Promise<RunningConsumer> {
  if (mode.filterSubject !== undefined && opts.watchdog !== undefined) {
    throw new MessagingSetupError('the ordered watchdog compares with the whole stream: no filterSubject with it');
  }
  const name = `ordered:${opts.stream}`;
  let position = mode.after ?? 0;
  return startLoop(opts, {
    name,
    ackWaitMs: 0,
    open: async () => {
      const consumer = await clients.js.consumers.get(opts.stream, orderedStart(position, mode.filterSubject));
      return consumer.consume({ max_messages: opts.batchSize ?? 256 });
    },
    traced: false,
    handledUpTo: () => position,
    backlog: async () => {
      const info = await clients.jsm.streams.info(opts.stream).catch(() => undefined);
      return info === undefined ? undefined : orderedBacklog(name, info.state, position);
    },
    reopenWhileStuck: true,
    settled: (batch) => (position = batch.at(-1)!.seq),
    position: () => position,
  });
}

/** The ordered consumer that resumes after `position` (0: from the first message). */
export function orderedStart(position: number, filterSubject: string | undefined): Partial<OrderedConsumerOptions> {
  return {
    ...(position === 0
      ? { deliver_policy: DeliverPolicy.All }
      : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: position + 1 }),
    ...(filterSubject !== undefined ? { filter_subjects: filterSubject } : {}),
  };
}

/** What the stream holds past the position: pending is its last sequence minus the position. */
export function orderedBacklog(
  name: string,
  state: Pick<StreamState, 'messages' | 'last_seq'>,
  position: number,
): Backlog {
  if (state.messages === 0 || state.last_seq <= position) return { empty: true };
  return {
    empty: false,
    key: `${position}/${state.last_seq}`,
    onlyUnacked: false,
    report: {
      phase: 'waiting',
      durable: name,
      quietMs: 0,
      pending: state.last_seq - position,
      ackPending: 0,
      waitingPulls: 0,
      deliveredSeq: position,
      ackFloorSeq: position,
    },
  };
}
