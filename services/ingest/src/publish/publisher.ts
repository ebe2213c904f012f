import { publishToStream } from '@cds/messaging';
import { SpanKind } from '@opentelemetry/api';
import type { JetStreamClient } from '@nats-io/jetstream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PreparedEvent } from './events.ts';
import type { Ledger } from './ledger.ts';
import { traced } from './traced.ts';

export interface PublisherOptions {
  js: JetStreamClient;
  /** Publishes awaiting their ack at once. Default 512. */
  window?: number;
  /** Wait for one ack before retrying. Default 5 s. */
  ackTimeoutMs?: number;
  /** Backoff between retries of one event: first pause, doubling up to the max. */
  retryInitialDelayMs?: number;
  retryMaxDelayMs?: number;
  /** Give up (fatal) when one event has not been acked for this long. Default 5 min. */
  giveUpAfterMs?: number;
  /** Consulted before and updated after each publish; omit to rely on the duplicate window alone. */
  ledger?: Ledger;
  /** Called on every failed attempt before its retry (log it). */
  onRetry?: (err: unknown, event: PreparedEvent, attempt: number) => void;
  /** Called when an event is settled: stored anew, or found to be a duplicate. */
  onSettled?: (event: PreparedEvent, outcome: 'published' | 'duplicate') => void;
}

export interface PublisherStats {
  eventsPublished: number;
  recordsPublished: number;
  duplicatesSkipped: number;
  duplicateRecords: number;
  retries: number;
  inFlight: number;
}

export interface Publisher {
  /**
   * Starts publishing `event` and resolves as soon as it fits in the window, not when it is
   * acked. Throws the first fatal failure of an earlier publish.
   */
  publish(event: PreparedEvent): Promise<void>;
  /** Waits until every started publish is acked; throws the first fatal failure. */
  flush(): Promise<void>;
  readonly stats: Readonly<PublisherStats>;
}

/** Thrown when an event could not be stored within `giveUpAfterMs`. */
export class PublishFailedError extends Error {
  override readonly name = 'PublishFailedError';
}

/**
 * Pipelined JetStream publishing with a bounded window of unacknowledged messages. Each event is
 * sent with `Nats-Msg-Id` = its id; a failed attempt (timeout, lost connection, server restarting)
 * is retried with the same id until acked, so the stream's deduplication makes the retry safe:
 * nothing is lost and nothing stored twice.
 */
export function createPublisher(opts: PublisherOptions): Publisher {
  const window = Math.max(1, opts.window ?? 512);
  const ackTimeoutMs = opts.ackTimeoutMs ?? 5_000;
  const initialDelay = opts.retryInitialDelayMs ?? 100;
  const maxDelay = opts.retryMaxDelayMs ?? 2_000;
  const giveUpAfterMs = opts.giveUpAfterMs ?? 300_000;
  const stats: PublisherStats = {
    eventsPublished: 0,
    recordsPublished: 0,
    duplicatesSkipped: 0,
    duplicateRecords: 0,
    retries: 0,
    inFlight: 0,
  };
  let failure: Error | undefined;
  // A closure, so the check is not narrowed away across the awaits around it.
  const throwIfFailed = (): void => {
    if (failure !== undefined) throw failure;
  };
  const slotWaiters: (() => void)[] = [];
  const idleWaiters: (() => void)[] = [];

  const release = () => {
    stats.inFlight--;
    slotWaiters.shift()?.();
    if (stats.inFlight === 0) for (const w of idleWaiters.splice(0)) w();
  };

  /** One producer span per event (all its attempts); its context travels in the message headers. */
  const deliver = (prepared: PreparedEvent): Promise<'published' | 'duplicate'> =>
    traced(
      `send ${prepared.subject}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.operation.type': 'send',
          'messaging.destination.name': prepared.subject,
          'messaging.message.id': prepared.event.id,
        },
      },
      async (span) => {
        const outcome = await deliverOnce(prepared);
        span.setAttribute('cds.publish.outcome', outcome);
        return outcome;
      },
    );

  const deliverOnce = async (prepared: PreparedEvent): Promise<'published' | 'duplicate'> => {
    const { event } = prepared;
    const started = Date.now();
    let checked = opts.ledger === undefined;
    let outcome: 'published' | 'duplicate' | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        if (!checked) {
          if (await opts.ledger!.has(event.id)) return 'duplicate';
          checked = true;
        }
        if (outcome === undefined) {
          const ack = await publishToStream(opts.js, prepared.subject, prepared.payload, {
            msgID: event.id,
            timeoutMs: ackTimeoutMs,
          });
          outcome = ack.duplicate ? 'duplicate' : 'published';
        }
        await opts.ledger?.record(event.id);
        return outcome;
      } catch (err) {
        throwIfFailed();
        if (Date.now() - started > giveUpAfterMs) {
          throw new PublishFailedError(`could not publish ${event.id} within ${giveUpAfterMs} ms: ${String(err)}`, {
            cause: err,
          });
        }
        stats.retries++;
        opts.onRetry?.(err, prepared, attempt);
        await sleep(Math.min(maxDelay, initialDelay * 2 ** (attempt - 1)));
      }
    }
  };

  return {
    stats,
    async publish(prepared) {
      throwIfFailed();
      while (stats.inFlight >= window) {
        await new Promise<void>((resolve) => slotWaiters.push(resolve));
        throwIfFailed();
      }
      stats.inFlight++;
      deliver(prepared).then(
        (outcome) => {
          if (outcome === 'published') {
            stats.eventsPublished++;
            stats.recordsPublished += prepared.records;
          } else {
            stats.duplicatesSkipped++;
            stats.duplicateRecords += prepared.records;
          }
          opts.onSettled?.(prepared, outcome);
          release();
        },
        (err: unknown) => {
          failure ??= err instanceof Error ? err : new Error(String(err));
          release();
        },
      );
    },
    async flush() {
      while (stats.inFlight > 0) await new Promise<void>((resolve) => idleWaiters.push(resolve));
      throwIfFailed();
    },
  };
}
