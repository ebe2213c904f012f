import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { extractTraceContext, PoisonMessageError } from '@cds/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import { context } from '@opentelemetry/api';
import { setTimeout as sleep } from 'node:timers/promises';

/** A delivered message as the projector sees it: the raw payload, not yet parsed. */
export interface PulledMessage {
  subject: string;
  /** Stream sequence: the position stored with the read model. */
  seq: number;
  deliveryCount: number;
  /** Messages left for this consumer after this one (0: caught up). */
  pending: number;
  data: Uint8Array;
  /** Extends the ack deadline. */
  working(): void;
}

export interface PullLoopOptions {
  stream: string;
  durable: string;
  /** Resolve: ack. PoisonMessageError: `onPoison`, then term. Anything else: retried in place. */
  handler: (msg: PulledMessage) => Promise<void>;
  onPoison: (err: PoisonMessageError, msg: PulledMessage) => Promise<void>;
  onError?: (err: unknown, msg: PulledMessage, attempt: number) => void;
  batchSize?: number;
  ackWaitMs: number;
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
}

export interface RunningPullLoop {
  stop(): Promise<void>;
  readonly done: Promise<void>;
}

/**
 * Processes a durable pull consumer one message at a time, in delivery order: ack after the
 * handler, term after parking a poison message, retry transient errors in place with backoff
 * while `working()` holds the ack deadline (a failure to park counts as transient). Unlike libs/messaging `startConsumer` it does not
 * skip redeliveries below the highest sequence it has handled: after a restart mid-batch (or with
 * a competing replica) such a redelivery may be a message nobody applied yet. The handler must
 * therefore be idempotent, which the projection runner is.
 */
export async function startPullLoop(
  clients: { nc: NatsConnection; js: JetStreamClient },
  opts: PullLoopOptions,
): Promise<RunningPullLoop> {
  const consumer = await clients.js.consumers.get(opts.stream, opts.durable);
  const messages = await consumer.consume({ max_messages: opts.batchSize ?? 64 });
  const heartbeatMs = Math.max(100, Math.floor(opts.ackWaitMs / 3));
  const initialDelayMs = opts.retry?.initialDelayMs ?? 100;
  const maxDelayMs = opts.retry?.maxDelayMs ?? 5_000;
  const stopping = new AbortController();

  const holdFor = async (m: JsMsg, ms: number): Promise<void> => {
    let left = ms;
    while (left > 0 && !stopping.signal.aborted) {
      const slice = Math.min(left, heartbeatMs);
      await sleep(slice, undefined, { signal: stopping.signal }).catch(() => undefined);
      left -= slice;
      m.working();
    }
  };

  const handle = async (m: JsMsg): Promise<boolean> => {
    const msg: PulledMessage = {
      subject: m.subject,
      seq: m.info.streamSequence,
      deliveryCount: m.info.deliveryCount,
      pending: m.info.pending,
      data: m.data,
      working: () => m.working(),
    };
    const traceContext = extractTraceContext(m.headers);
    for (let attempt = 1; ; attempt++) {
      try {
        await context.with(traceContext, () => opts.handler(msg));
        m.ack();
        return true;
      } catch (err) {
        let failure = err;
        if (err instanceof PoisonMessageError) {
          try {
            await opts.onPoison(err, msg);
            // No reason: nats-server 2.9 does not understand "+TERM <reason>".
            m.term();
            return true;
          } catch (parkErr) {
            // Parking failed (dead-letter stream or MongoDB down): never term unparked, retry.
            failure = parkErr;
          }
        }
        if (stopping.signal.aborted) {
          m.nak();
          return false;
        }
        opts.onError?.(failure, msg, attempt);
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
      if (stopping.signal.aborted) {
        m.nak();
        break;
      }
      if (!(await handle(m))) break;
    }
  })();
  done.catch(() => undefined);
  return {
    done,
    stop: async () => {
      stopping.abort();
      await messages.close();
      await done.catch(() => undefined);
      if (!clients.nc.isClosed()) await clients.nc.flush().catch(() => undefined);
    },
  };
}
