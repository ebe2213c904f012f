import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { consumeDurable } from './consume/durable.ts';
import { consumeOrdered } from './consume/ordered.ts';
import type { ConsumeOptions, RunningConsumer } from './consume/types.ts';

// The one consume loop, in parts: `consume/durable.ts` (the work queue with acks),
// `consume/ordered.ts` (the follower), both run by `consume/loop.ts` over `consume/pull.ts` (the
// pull and its reopening), `consume/attempts.ts` (a batch through the handler until settled) and
// `consume/watchdog.ts`; `consume/message.ts` decodes, validates and traces messages.
export { schemaDecoder, type SafeParser } from './consume/message.ts';
export type {
  AttemptContext,
  ConsumeMode,
  ConsumeOptions,
  PulledMessage,
  RunningConsumer,
  StallReport,
  WatchdogOptions,
} from './consume/types.ts';
export { StalledAttemptError } from './consume/watchdog.ts';

/**
 * The one way the services consume a JetStream stream: in delivery order, in micro-batches of what
 * is already buffered (so a busy stream costs one read and one write per touched document per
 * batch, not per event). Each message is parsed once (`decode`): poison is handed to `onPoison`
 * (park it) and, in durable mode, termed; the rest is acked after the handler. Transient errors are
 * retried in place with backoff while `working()` holds every ack deadline. It does not skip
 * redeliveries below the highest sequence it has handled: after a restart mid-batch, or with a
 * competing replica, such a redelivery may be a message nobody applied yet; handlers must
 * therefore be idempotent. In ordered mode the position is this process's: a message at or below
 * it is skipped, and a reopened consumer starts after it.
 *
 * The pull is reopened when its iterator ends, and (durable) when the loop has been idle
 * `stallCheckMs` and the server shows no pull request of ours waiting on two checks in a row: after
 * NATS is killed and restarted the client may wait forever on a request the new server never saw.
 *
 * The watchdog (`opts.watchdog`) checks every `stallMs / 4` (at most every 5 s) that the loop is
 * making progress: a message received, a batch settled, or the handler reporting an operation that
 * answered. It finds a stall in two places. Handling: a batch went `stallMs` without any of that
 * (its attempts hang or keep failing); the watchdog aborts the attempt (its signal; the loop stops
 * waiting for it) and the batch is retried in place. Waiting: the loop got nothing for `stallMs`
 * while there are messages for it: durable, the server shows messages for the consumer and the
 * consumer itself did not move between two checks (its delivered and acknowledged sequences; a
 * competing replica that is working moves them), counting messages only acknowledged-pending after
 * a further ack wait (their redelivery legitimately waits that long); ordered, the stream's last
 * sequence is past the position. The watchdog reopens the pull (ordered: again every `stallMs`
 * while it stays stuck, as a follower has no liveness probe to restart it). Each stall is reported
 * once (`onStall`); if there is still no progress `stallMs` later, `onRecoveryFailed` (once), and
 * `stall()` says so until progress resumes (`onRecovered`). It never closes a pull while a batch is
 * being handled, and an idle consumer (nothing pending) is never a stall.
 */
export async function consumeStream<T = unknown>(
  clients: { nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager },
  opts: ConsumeOptions<T>,
): Promise<RunningConsumer> {
  const mode = opts.mode;
  return mode.kind === 'durable' ? consumeDurable(clients, opts, mode.durable) : consumeOrdered(clients, opts, mode);
}

/**
 * The options of a follower: an ordered consume from the first message that must keep up (the
 * gateway's key table and sync state, the admin API's key model) and has no liveness probe to
 * restart it. When the stream is ahead of it and nothing arrives for `stallMs`, the watchdog
 * recreates its consumer after the position, again every `stallMs` while that does not help (a
 * stalled key follower would stop applying revocations). A message `decode` rejects is logged and
 * skipped: the follower never applies what it cannot parse.
 */
export function followOptions(
  logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void },
  stream: string,
  stallMs = 3_000,
): Pick<ConsumeOptions, 'stream' | 'mode' | 'onPoison' | 'onReopen' | 'watchdog'> {
  return {
    stream,
    mode: { kind: 'ordered' },
    onPoison: (err, m) =>
      logger.error(
        { stream, seq: m.seq, subject: m.subject, reason: err.message },
        'message failed its schema; skipped',
      ),
    onReopen: (reason) => logger.warn({ stream, reason }, 'stream follower reopening its consumer'),
    watchdog: {
      stallMs,
      onStall: (stuck) =>
        logger.warn({ stream, stuck }, 'stream follower stalled behind the stream; recreating its consumer'),
      onRecovered: (_stuck, stalledForMs) => logger.warn({ stream, stalledForMs }, 'stream follower moving again'),
    },
  };
}

/** A stream followed from its first message and kept live (`followStream`). */
export interface StreamFollower extends RunningConsumer {
  /** Resolves once every message present at start has been handled. */
  readonly caughtUp: Promise<void>;
  isCaughtUp(): boolean;
}

/**
 * Follows a whole stream with an ordered consume (`followOptions`: skip what `decode` rejects,
 * reopen, watchdog) from its first message, handing each decoded value to `apply` in stream order,
 * and tells when it has caught up: when it has handled everything up to the stream's last sequence
 * as it was at start (an empty stream, never written or purged, has nothing to wait for). The one
 * way the gateway's key table, its change notifications and the notifier's account plans follow
 * their streams. Throws when the stream does not exist.
 */
export async function followStream<T>(
  clients: { nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager },
  opts: {
    stream: string;
    decode: (payload: unknown) => { value: T } | { reason: string };
    apply: (value: T, seq: number) => void;
    logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
    /** Called once, when caught up, with the sequence reached. */
    onCaughtUp?: (seq: number) => void;
    /** Messages before this sequence are gone (retention), read from the stream at start. */
    onFirstSeq?: (firstSeq: number) => void;
    /** The watchdog's `stallMs` (followOptions; default 3 s): how long the stream may be ahead unnoticed. */
    stallMs?: number;
  },
): Promise<StreamFollower> {
  const { state } = await clients.jsm.streams.info(opts.stream);
  opts.onFirstSeq?.(state.messages === 0 ? state.last_seq + 1 : state.first_seq);
  const target = state.messages === 0 ? 0 : state.last_seq;
  let caught = target === 0;
  let resolveCaughtUp: () => void = () => undefined;
  const caughtUp = new Promise<void>((resolve) => {
    resolveCaughtUp = resolve;
    if (caught) resolve();
  });
  if (caught) opts.onCaughtUp?.(0);
  const consumer = await consumeStream<T>(clients, {
    ...followOptions(opts.logger, opts.stream, opts.stallMs),
    decode: opts.decode,
    handler: (batch) => {
      for (const m of batch) {
        if (m.value !== undefined) opts.apply(m.value, m.seq);
        if (!caught && (m.seq >= target || m.pending === 0)) {
          caught = true;
          resolveCaughtUp();
          opts.onCaughtUp?.(m.seq);
        }
      }
    },
  });
  return {
    caughtUp,
    isCaughtUp: () => caught,
    stop: () => consumer.stop(),
    done: consumer.done,
    position: () => consumer.position(),
    reopens: () => consumer.reopens(),
    stall: () => consumer.stall(),
  };
}
