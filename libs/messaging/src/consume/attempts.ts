import type { JsMsg } from '@nats-io/jetstream';
import { SpanStatusCode, type Span } from '@opentelemetry/api';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PoisonMessageError } from '../errors.ts';
import { inBatchSpan, toPulled } from './message.ts';
import type { ConsumeOptions, PulledMessage } from './types.ts';

/** The acknowledgements of a durable consumer (an ordered consumer acknowledges nothing). */
export interface Acks {
  ack(m: JsMsg): void;
  term(m: JsMsg): void;
  nak(m: JsMsg): void;
  /** Extends the message's ack deadline. */
  working(m: JsMsg): void;
  /** How often a batch in hand has its deadlines extended (a third of the ack wait). */
  heartbeatMs: number;
}

/** The batch in the handler, as the watchdog reports it. */
export interface BatchInHand {
  firstSeq: number;
  lastSeq: number;
  messages: number;
  attempt: number;
  lastError?: string;
}

export interface AttemptsOptions<T> extends Pick<ConsumeOptions<T>, 'decode' | 'handler' | 'onPoison' | 'onError'> {
  retry: { initialDelayMs: number; maxDelayMs: number; maxAttempts: number };
  /** Durable; absent when ordered. */
  acks?: Acks | undefined;
  /** Durable: the span names (consumer, stream); ordered follows are not traced (they replay whole streams). */
  trace?: { consumer: string; stream: string } | undefined;
  /** Aborted when the loop stops. */
  signal: AbortSignal;
  /** A batch settled, or an operation of the handler answered. */
  onProgress: () => void;
  /** A batch was settled (acked and termed). */
  onSettled: (batch: JsMsg[]) => void;
}

/**
 * Runs one batch through the handler until it is settled: poison parked (`onPoison`) then termed,
 * the rest acked. A failing attempt is retried in place with backoff while the ack deadlines are
 * kept alive; after `maxAttempts` the batch is nak'ed and the failure thrown.
 */
export class Attempts<T> {
  private current: { batch: JsMsg[]; attempt: number; abort: AbortController; lastError?: string } | undefined;

  private readonly opts: AttemptsOptions<T>;

  constructor(opts: AttemptsOptions<T>) {
    this.opts = opts;
  }

  /** The batch in the handler, if any. */
  inHand(): BatchInHand | undefined {
    const busy = this.current;
    if (busy === undefined) return undefined;
    return {
      firstSeq: busy.batch[0]!.info.streamSequence,
      lastSeq: busy.batch.at(-1)!.info.streamSequence,
      messages: busy.batch.length,
      attempt: busy.attempt,
      ...(busy.lastError !== undefined ? { lastError: busy.lastError } : {}),
    };
  }

  /** Aborts the attempt in hand (its signal); the batch is retried in place. */
  abortAttempt(reason: Error): void {
    this.current?.abort.abort(reason);
  }

  /** Gives a batch back unsettled (durable: nak, for redelivery now). */
  release(batch: JsMsg[]): void {
    for (const m of batch) this.opts.acks?.nak(m);
  }

  /** Settles the batch; false when the loop stopped first (the batch was released). */
  async run(batch: JsMsg[]): Promise<boolean> {
    const { acks, trace } = this.opts;
    const pulled = batch.map((m) => toPulled<T>(m, this.opts.decode, (msg) => acks?.working(msg)));
    if (trace === undefined) return this.attempt(batch, pulled, undefined);
    return inBatchSpan(trace.consumer, trace.stream, pulled, (span) => this.attempt(batch, pulled, span));
  }

  private async attempt(batch: JsMsg[], pulled: PulledMessage<T>[], span: Span | undefined): Promise<boolean> {
    const { acks, retry, signal } = this.opts;
    for (let attempt = 1; ; attempt++) {
      let failure: unknown;
      const abort = new AbortController();
      const current = this.current;
      this.current = { batch, attempt, abort, ...(current?.batch === batch ? { lastError: current.lastError } : {}) };
      try {
        await this.settle(batch, pulled, abort.signal, span);
        this.current = undefined;
        this.opts.onProgress();
        return true;
      } catch (err) {
        failure = err;
        this.current!.lastError = failure instanceof Error ? failure.message : String(failure);
      }
      if (signal.aborted) {
        this.current = undefined;
        this.release(batch);
        return false;
      }
      span?.addEvent('retry', {
        attempt,
        'exception.message': failure instanceof Error ? failure.message : String(failure),
      });
      this.opts.onError?.(failure, pulled, attempt);
      if (attempt >= retry.maxAttempts) {
        this.current = undefined;
        this.release(batch);
        throw failure;
      }
      for (const m of batch) acks?.working(m);
      await this.holdFor(batch, Math.min(retry.maxDelayMs, retry.initialDelayMs * 2 ** (attempt - 1)));
      if (signal.aborted) {
        this.current = undefined;
        this.release(batch);
        return false;
      }
    }
  }

  /** One attempt: the handler, then parking the poison, then the acks. Throws when it failed. */
  private async settle(
    batch: JsMsg[],
    pulled: PulledMessage<T>[],
    signal: AbortSignal,
    span: Span | undefined,
  ): Promise<void> {
    const { acks } = this.opts;
    // A big batch on a slow database can outlast the ack wait: keep every deadline alive.
    const heartbeat =
      acks === undefined
        ? undefined
        : setInterval(() => {
            for (const m of batch) acks.working(m);
          }, acks.heartbeatMs);
    let poison: Map<number, PoisonMessageError>;
    try {
      // An attempt the watchdog gave up on may still answer later: that is not progress.
      const progress = () => {
        if (!signal.aborted) this.opts.onProgress();
      };
      const verdicts = await untilAborted(Promise.resolve(this.opts.handler(pulled, { signal, progress })), signal);
      poison = new Map(verdicts ?? []);
    } finally {
      clearInterval(heartbeat);
    }
    for (const m of pulled) if (m.poison !== undefined && !poison.has(m.seq)) poison.set(m.seq, m.poison);
    for (const m of pulled) {
      const err = poison.get(m.seq);
      if (err !== undefined) await this.opts.onPoison(err, m);
    }
    if (poison.size > 0) {
      span?.setAttribute('cds.parked', poison.size);
      span?.setStatus({ code: SpanStatusCode.ERROR, message: [...poison.values()][0]!.message });
    }
    for (const m of batch) {
      // No reason with term: nats-server 2.9 does not understand "+TERM <reason>" and would
      // leave the message pending for redelivery.
      if (poison.has(m.info.streamSequence)) acks?.term(m);
      else acks?.ack(m);
    }
    this.opts.onSettled(batch);
  }

  /** Waits out a backoff, extending the deadlines every heartbeat (durable). */
  private async holdFor(batch: JsMsg[], ms: number): Promise<void> {
    const { acks, signal } = this.opts;
    let left = ms;
    while (left > 0 && !signal.aborted) {
      const slice = acks === undefined ? left : Math.min(left, acks.heartbeatMs);
      await sleep(slice, undefined, { signal }).catch(() => undefined);
      left -= slice;
      for (const m of batch) acks?.working(m);
    }
  }
}

/** Settles like `work`, or rejects with the signal's reason as soon as it aborts. */
export async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // Settles after the race was lost: keep its rejection from going unhandled.
  work.catch(() => undefined);
  if (signal.aborted) throw signal.reason;
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
