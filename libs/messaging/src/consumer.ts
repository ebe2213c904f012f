import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  type ConsumerConfig,
  type ConsumerInfo,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { millis, nanos, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { context, type Context } from '@opentelemetry/api';
import { setTimeout as sleep } from 'node:timers/promises';
import { MessagingSetupError, PoisonMessageError } from './errors.ts';
import { isJetStreamApiError } from './streams.ts';
import { extractTraceContext } from './trace-context.ts';

export interface ConsumerSpec {
  stream: string;
  /** Durable name: the server keeps this consumer's position across restarts. */
  durable: string;
  /** One subject filter (nats-server 2.9 has no `filter_subjects` list). */
  filterSubject?: string;
  /** Time the server waits for an ack before redelivering. Default 30 s. */
  ackWaitMs?: number;
  /**
   * Cap on delivered-but-unacked messages. Default 1, which is what strict order needs: the
   * server redelivers an unacked message only after the ack wait, so with a higher cap a
   * restart (or a crash) lets newer messages overtake the ones that were in flight. Raise it
   * only for order-free work.
   */
  maxAckPending?: number;
  /** Where a new consumer starts. Default `all` (replay the whole stream). */
  deliverPolicy?: 'all' | 'new';
}

/**
 * Creates the durable pull consumer, or updates its ack wait, filter and pending cap when they
 * differ. Its start position cannot change after creation; delete the consumer to replay.
 */
export async function ensureConsumer(jsm: JetStreamManager, spec: ConsumerSpec): Promise<ConsumerInfo> {
  const ackWait = nanos(spec.ackWaitMs ?? 30_000);
  const maxAckPending = spec.maxAckPending ?? 1;
  let existing: ConsumerInfo | undefined;
  try {
    existing = await jsm.consumers.info(spec.stream, spec.durable);
  } catch (err) {
    if (!isJetStreamApiError(err, JetStreamApiCodes.ConsumerNotFound)) {
      throw new MessagingSetupError(`could not read consumer ${spec.stream}/${spec.durable}: ${String(err)}`, {
        cause: err,
      });
    }
  }
  try {
    if (existing === undefined) {
      const config: Partial<ConsumerConfig> = {
        durable_name: spec.durable,
        ack_policy: AckPolicy.Explicit,
        ack_wait: ackWait,
        max_ack_pending: maxAckPending,
        deliver_policy: spec.deliverPolicy === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
        ...(spec.filterSubject !== undefined ? { filter_subject: spec.filterSubject } : {}),
      };
      return await jsm.consumers.add(spec.stream, config);
    }
    const current = existing.config;
    if (
      current.ack_wait === ackWait &&
      current.max_ack_pending === maxAckPending &&
      (current.filter_subject ?? undefined) === spec.filterSubject
    ) {
      return existing;
    }
    return await jsm.consumers.update(spec.stream, spec.durable, {
      ack_wait: ackWait,
      max_ack_pending: maxAckPending,
      ...(spec.filterSubject !== undefined ? { filter_subject: spec.filterSubject } : {}),
    });
  } catch (err) {
    throw new MessagingSetupError(`could not create consumer ${spec.stream}/${spec.durable}: ${String(err)}`, {
      cause: err,
    });
  }
}

/** A delivered message as the handler sees it: the payload is parsed JSON, still `unknown`. */
export interface IncomingMessage {
  subject: string;
  /** Stream sequence: the position a projection stores to make replays no-ops. */
  seq: number;
  deliveryCount: number;
  redelivered: boolean;
  /** Parsed JSON; validate it with the contract schema and throw PoisonMessageError if it fails. */
  data: unknown;
  headers: MsgHdrs | undefined;
  /** Time the stream stored the message (RFC 3339). */
  timestamp: string;
  /** Trace context the publisher sent; also the active context while the handler runs. */
  traceContext: Context;
  /** Extends the ack deadline; call it during long work. */
  working(): void;
}

export type MessageHandler = (msg: IncomingMessage) => Promise<void> | void;

export interface ConsumeOptions {
  stream: string;
  durable: string;
  handler: MessageHandler;
  /** Messages the client pulls ahead of the handler. Default 64; 1 keeps redeliveries minimal. */
  batchSize?: number;
  /** Ack wait of the consumer, used to pace `working()` during retries. Default 30 s. */
  ackWaitMs?: number;
  /** Backoff for transient handler errors: first pause, doubling up to `maxDelayMs`. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
  /** Called on each transient failure before the retry (log it; the message is retried in place). */
  onError?: (err: unknown, msg: IncomingMessage, attempt: number) => void;
  /** Called before a poison message is termed: park it somewhere for inspection. */
  onPoison?: (err: PoisonMessageError, msg: IncomingMessage) => Promise<void> | void;
}

export interface RunningConsumer {
  /** Finishes the message in hand (ack, or nak if it was still failing), then stops pulling. */
  stop(): Promise<void>;
  /** Settles when the consumer stops; rejects if pulling failed (consumer deleted, connection closed). */
  readonly done: Promise<void>;
}

const decoder = new TextDecoder();

function toIncoming(m: JsMsg, data: unknown): IncomingMessage {
  return {
    traceContext: extractTraceContext(m.headers),
    subject: m.subject,
    seq: m.info.streamSequence,
    deliveryCount: m.info.deliveryCount,
    redelivered: m.redelivered,
    data,
    headers: m.headers,
    timestamp: m.timestamp,
    working: () => m.working(),
  };
}

/**
 * Runs `handler` over a durable pull consumer strictly in stream order, one message at a time.
 * Success: ack. PoisonMessageError (or a payload that is not JSON): `onPoison`, then `term()`,
 * so the server never redelivers it (the handler's zod check decides what is poison). Any other error is transient: the same message is retried
 * in place with backoff while `working()` holds its ack deadline, so no later message overtakes
 * it. Messages already pulled but overtaken by a long retry may be redelivered by the server;
 * they are recognised by their stream sequence and acked without calling the handler again.
 * Strict order also needs one running instance per durable and `maxAckPending: 1` on the
 * consumer (the `ensureConsumer` default).
 */
export async function startConsumer(
  clients: { nc: NatsConnection; js: JetStreamClient },
  opts: ConsumeOptions,
): Promise<RunningConsumer> {
  const consumer = await clients.js.consumers.get(opts.stream, opts.durable);
  const ackWaitMs = opts.ackWaitMs ?? millis((await consumer.info(true)).config.ack_wait ?? nanos(30_000));
  const messages = await consumer.consume({ max_messages: opts.batchSize ?? 64 });
  const heartbeatMs = Math.max(100, Math.floor(ackWaitMs / 3));
  const initialDelayMs = opts.retry?.initialDelayMs ?? 100;
  const maxDelayMs = opts.retry?.maxDelayMs ?? 5_000;
  const stopping = new AbortController();
  // Sequences this process handled and acked: a redelivery of one of them (its ack was lost) is
  // acked again without running the handler twice. Any other sequence is handled, even one below
  // the highest seen: with several replicas, or after another process died mid-batch, earlier
  // messages arrive late and must not be skipped. Bounded, oldest forgotten first.
  const handled = new Set<number>();
  const remember = (seq: number) => {
    handled.add(seq);
    if (handled.size > 10_000) handled.delete(handled.values().next().value as number);
  };

  // Sleeps `ms` in slices shorter than the ack wait, extending the deadline after each slice.
  const holdFor = async (m: JsMsg, ms: number): Promise<void> => {
    let left = ms;
    while (left > 0 && !stopping.signal.aborted) {
      const slice = Math.min(left, heartbeatMs);
      await sleep(slice, undefined, { signal: stopping.signal }).catch(() => undefined);
      left -= slice;
      m.working();
    }
  };

  const poison = async (m: JsMsg, incoming: IncomingMessage, err: PoisonMessageError): Promise<void> => {
    try {
      await opts.onPoison?.(err, incoming);
    } finally {
      // No reason text: nats-server 2.9 only understands a bare `+TERM` and silently ignores
      // `+TERM <reason>`, leaving the message pending for redelivery. The reason goes to onPoison.
      m.term();
    }
  };

  // Returns false when the consumer was stopped before the message was settled.
  const handle = async (m: JsMsg): Promise<boolean> => {
    let data: unknown;
    try {
      data = JSON.parse(decoder.decode(m.data));
    } catch (err) {
      await poison(m, toIncoming(m, undefined), new PoisonMessageError('payload is not valid JSON', { cause: err }));
      return true;
    }
    const incoming = toIncoming(m, data);
    for (let attempt = 1; ; attempt++) {
      try {
        await context.with(incoming.traceContext, () => opts.handler(incoming));
        m.ack();
        return true;
      } catch (err) {
        if (err instanceof PoisonMessageError) {
          await poison(m, incoming, err);
          return true;
        }
        if (stopping.signal.aborted) {
          m.nak();
          return false;
        }
        opts.onError?.(err, incoming, attempt);
        m.working();
        await holdFor(m, Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1)));
        if (stopping.signal.aborted) {
          m.nak();
          return false;
        }
      }
    }
  };

  const done = (async () => {
    for await (const m of messages) {
      // Messages pulled ahead stay unacked: the server redelivers them after the ack wait. A
      // nak would not be faster on nats-server 2.9, which hands a nak'd message to the stopped
      // consumer's still-open pull request, where it also waits out the ack wait.
      if (stopping.signal.aborted) break;
      const seq = m.info.streamSequence;
      if (handled.has(seq)) {
        m.ack();
        continue;
      }
      if (!(await handle(m))) break;
      remember(seq);
    }
  })();
  // Keep an unobserved failure from crashing the process; callers see it through `done`.
  done.catch(() => undefined);

  return {
    done,
    stop: async () => {
      stopping.abort();
      await messages.close();
      await done.catch(() => undefined);
      // Acks are fire-and-forget publishes; flush so they reach the server before a close.
      if (!clients.nc.isClosed()) await clients.nc.flush().catch(() => undefined);
    },
  };
}
