import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import { extractTraceContext, type PoisonMessageError } from '@cds/messaging';
import { context, SpanKind, SpanStatusCode, trace, type Link, type Span } from '@opentelemetry/api';
import type { NatsConnection } from '@nats-io/transport-node';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

/** A delivered message as the projector sees it: the raw payload, not yet parsed. */
export interface PulledMessage {
  subject: string;
  /** Stream sequence: the position stored with the read model. */
  seq: number;
  deliveryCount: number;
  /** Messages left for this consumer after this one (0: caught up). */
  pending: number;
  /** When the stream stored the message (ms since the epoch). */
  storedAtMs: number;
  data: Uint8Array;
  headers: JsMsg['headers'];
  /** Extends the ack deadline. */
  working(): void;
}

/** What a handler attempt gets besides its batch. */
export interface AttemptContext {
  /**
   * Aborted when the watchdog gives up on this attempt (or the loop stops): pass it to the
   * database operations so they end now. The loop stops waiting for the attempt either way.
   */
  signal: AbortSignal;
  /** Tells the watchdog the attempt is moving (call it after each operation that answered). */
  progress: () => void;
}

/** What the watchdog found stuck. */
export type StallReport =
  | {
      /** A batch has been in the handler (attempts and backoff) without progress. */
      phase: 'handling';
      durable: string;
      quietMs: number;
      firstSeq: number;
      lastSeq: number;
      messages: number;
      attempt: number;
      /** The last failure of this batch, if an attempt failed. */
      lastError?: string;
    }
  | {
      /** The loop waits for messages the server says are there. */
      phase: 'waiting';
      durable: string;
      quietMs: number;
      /** Not yet delivered (`num_pending`). */
      pending: number;
      /** Delivered but not acknowledged (`num_ack_pending`). */
      ackPending: number;
      /** Pull requests waiting on the server (`num_waiting`). */
      waitingPulls: number;
      deliveredSeq: number;
      ackFloorSeq: number;
    };

export interface WatchdogOptions {
  /** No progress for this long while messages are pending is a stall. */
  stallMs: number;
  /** A stall was found and recovery started (called once per stall). */
  onStall?: (report: StallReport) => void;
  /** Still no progress `stallMs` after recovery started (called once per stall). */
  onRecoveryFailed?: (report: StallReport) => void;
  /** Progress again after a stall. */
  onRecovered?: (report: StallReport, stalledForMs: number) => void;
}

export interface PullLoopOptions {
  stream: string;
  durable: string;
  /**
   * Handles a batch of consecutive deliveries (in delivery order). Resolves with the poison
   * messages (by sequence) to park and term; every other message of the batch is acked. Throwing
   * is a transient failure: the whole batch is retried in place.
   */
  handler: (batch: PulledMessage[], attempt: AttemptContext) => Promise<Map<number, PoisonMessageError>>;
  /** Parks one poison message; a failure here is transient (the batch is retried, nothing is termed unparked). */
  onPoison: (err: PoisonMessageError, msg: PulledMessage) => Promise<void>;
  onError?: (err: unknown, batch: PulledMessage[], attempt: number) => void;
  /** Messages pulled ahead. Default 256. */
  batchSize?: number;
  /** Most messages handed to the handler at once (those already buffered). Default 256. */
  maxBatch?: number;
  ackWaitMs: number;
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
  /**
   * How long the loop may wait for a message, idle, before it asks the server whether its pull
   * request is still there (see `startPullLoop`). Default 10 s.
   */
  stallCheckMs?: number;
  /** Where the loop reports reopening its pull. */
  onReopen?: (reason: string) => void;
  /** Detects and recovers a loop that stopped making progress (see `startPullLoop`). */
  watchdog?: WatchdogOptions;
}

export interface RunningPullLoop {
  stop(): Promise<void>;
  readonly done: Promise<void>;
  /** The stall in progress, if any, and whether its recovery failed. */
  stall(): { report: StallReport; sinceMs: number; recoveryFailed: boolean } | undefined;
}

/** Thrown into an attempt the watchdog gave up on. */
export class StalledAttemptError extends Error {
  override readonly name = 'StalledAttemptError';
}

function toPulled(m: JsMsg): PulledMessage {
  return {
    subject: m.subject,
    seq: m.info.streamSequence,
    deliveryCount: m.info.deliveryCount,
    pending: m.info.pending,
    storedAtMs: Date.parse(m.timestamp),
    data: m.data,
    headers: m.headers,
    working: () => m.working(),
  };
}

/**
 * Processes a durable pull consumer in delivery order, in micro-batches of what is already
 * buffered (so a busy stream costs one read and one write per touched document per batch, not per
 * event): acks after the handler, terms poison messages after parking them, retries transient
 * errors in place with backoff while `working()` holds every ack deadline. Unlike libs/messaging
 * `startConsumer` it does not skip redeliveries below the highest sequence it has handled: after
 * a restart mid-batch, or with a competing replica, such a redelivery may be a message nobody
 * applied yet. The handler must therefore be idempotent, which the projection runner is.
 *
 * The watchdog (`opts.watchdog`) checks every `stallMs / 4` (at most every 5 s) that the loop is
 * making progress: a message received, a batch settled, or the handler reporting an operation that
 * answered. It finds a stall in two places. Handling: a batch went `stallMs` without any of that
 * (its attempts hang or keep failing); the watchdog aborts the attempt (its signal; the loop stops
 * waiting for it) and the batch is retried in place. Waiting: the loop got nothing for `stallMs`
 * while the server shows messages for the consumer and the consumer itself did not move between
 * two checks (its delivered and acknowledged sequences; a competing replica that is working moves
 * them), counting messages only acknowledged-pending after a further ack wait (their redelivery
 * legitimately waits that long); the watchdog reopens the pull. Each stall is reported once
 * (`onStall`); if there is still no progress `stallMs` later, `onRecoveryFailed` (once), and
 * `stall()` says so until progress resumes (`onRecovered`). It never closes a pull while a batch
 * is being handled, and an idle consumer (nothing pending) is never a stall.
 */
export async function startPullLoop(
  clients: { nc: NatsConnection; js: JetStreamClient },
  opts: PullLoopOptions,
): Promise<RunningPullLoop> {
  const consumer = await clients.js.consumers.get(opts.stream, opts.durable);
  const open = () => consumer.consume({ max_messages: opts.batchSize ?? 256 });
  let messages = await open();
  let iterator = messages[Symbol.asyncIterator]();
  const stallCheckMs = opts.stallCheckMs ?? 10_000;
  const maxBatch = opts.maxBatch ?? 256;
  const heartbeatMs = Math.max(100, Math.floor(opts.ackWaitMs / 3));
  const initialDelayMs = opts.retry?.initialDelayMs ?? 100;
  const maxDelayMs = opts.retry?.maxDelayMs ?? 5_000;
  const stopping = new AbortController();
  let inflight: Promise<IteratorResult<JsMsg>> | undefined;

  // --- watchdog state ---
  let lastProgressAt = Date.now();
  /** The batch in the handler, if any. */
  let current: { batch: JsMsg[]; attempt: number; abort: AbortController; lastError?: string } | undefined;
  /** The consumer's position at the last idle check (waiting phase), and since when it is so. */
  let consumerMark: { key: string; at: number } | undefined;
  let stalled: { report: StallReport; since: number; recoveryAt: number; recoveryFailed: boolean } | undefined;
  const progress = () => {
    lastProgressAt = Date.now();
    consumerMark = undefined;
    if (stalled !== undefined) {
      const { report, since } = stalled;
      stalled = undefined;
      opts.watchdog?.onRecovered?.(report, lastProgressAt - since);
    }
  };

  const holdFor = async (batch: JsMsg[], ms: number): Promise<void> => {
    let left = ms;
    while (left > 0 && !stopping.signal.aborted) {
      const slice = Math.min(left, heartbeatMs);
      await sleep(slice, undefined, { signal: stopping.signal }).catch(() => undefined);
      left -= slice;
      for (const m of batch) m.working();
    }
  };

  /** Counts reopens, so the end of a replaced pull is not taken for the end of the current one. */
  let generation = 0;
  let reopening: Promise<void> | undefined;
  /**
   * Replaces the pull. A pull request lives on the server: after NATS is killed and restarted the
   * client's iterator may end, or wait forever on a request the new server never saw (unacked
   * messages are then never redelivered either, as redelivery needs a waiting pull). One reopen
   * at a time: the watchdog and the loop may both ask for one.
   */
  const reopen = (reason: string): Promise<void> =>
    (reopening ??= reopenNow(reason).finally(() => (reopening = undefined)));
  const reopenNow = async (reason: string): Promise<void> => {
    opts.onReopen?.(reason);
    generation++;
    const old = messages;
    inflight?.catch(() => undefined);
    inflight = undefined;
    void Promise.race([old.close().catch(() => undefined), sleep(2_000)]);
    for (let attempt = 0; !stopping.signal.aborted; attempt++) {
      try {
        messages = await open();
        iterator = messages[Symbol.asyncIterator]();
        return;
      } catch {
        await sleep(Math.min(5_000, 200 * 2 ** attempt), undefined, { signal: stopping.signal }).catch(() => undefined);
      }
    }
  };

  /**
   * Waits for the next message. Idle longer than `stallCheckMs`, it asks the server about the
   * consumer: no pull request waiting there on two checks in a row means ours is gone, so the pull
   * is reopened (a request about to expire is re-issued at once, so one check could be unlucky).
   */
  const nextMessage = async (): Promise<IteratorResult<JsMsg>> => {
    let strikes = 0;
    for (;;) {
      const gen = generation;
      inflight ??= iterator.next();
      const idle = new AbortController();
      const r = await Promise.race([
        inflight,
        sleep(stallCheckMs, 'idle' as const, { signal: idle.signal }).catch(() => 'idle' as const),
      ]);
      idle.abort();
      if (r !== 'idle') {
        inflight = undefined;
        if (r.done !== true) progress();
        if (r.done !== true || stopping.signal.aborted) return r;
        // The end of a pull the watchdog already replaced.
        if (gen !== generation) continue;
        await reopen('the consumer iterator ended');
        continue;
      }
      if (stopping.signal.aborted) return { done: true, value: undefined };
      const waiting = await consumer
        .info()
        .then((i) => i.num_waiting)
        .catch(() => undefined);
      strikes = waiting === 0 ? strikes + 1 : 0;
      if (strikes >= 2) {
        strikes = 0;
        await reopen('no pull request of ours is waiting on the server');
      }
    }
  };

  // The next batch: waits for one message, then takes whatever else is already buffered.
  const nextBatch = async (): Promise<JsMsg[] | undefined> => {
    const first = await nextMessage();
    if (first.done === true) return undefined;
    const batch = [first.value];
    while (batch.length < maxBatch) {
      inflight ??= iterator.next();
      const r = await Promise.race([inflight, nextTurn().then(() => 'empty' as const)]);
      if (r === 'empty') break;
      inflight = undefined;
      if (r.done === true) break;
      batch.push(r.value);
    }
    return batch;
  };

  const tracer = trace.getTracer('@cds/projector');

  /**
   * One consumer span per batch (all its attempts): a child of the first message's publisher span,
   * so an ingest's trace reaches its projection, and linked to every other message's publisher.
   */
  const handle = async (batch: JsMsg[]): Promise<boolean> => {
    const parents = batch.map((m) => extractTraceContext(m.headers));
    const links: Link[] = [];
    for (const ctx of parents.slice(1)) {
      const linked = trace.getSpanContext(ctx);
      if (linked !== undefined) links.push({ context: linked });
    }
    const span = tracer.startSpan(
      `apply ${opts.durable}`,
      {
        kind: SpanKind.CONSUMER,
        links,
        attributes: {
          'messaging.system': 'nats',
          'messaging.operation.type': 'process',
          'messaging.destination.name': batch.length === 1 ? batch[0]!.subject : opts.stream,
          'messaging.consumer.group.name': opts.durable,
          'messaging.batch.message_count': batch.length,
          'cds.stream_seq.first': batch[0]!.info.streamSequence,
          'cds.stream_seq.last': batch.at(-1)!.info.streamSequence,
        },
      },
      parents[0],
    );
    try {
      return await context.with(trace.setSpan(parents[0]!, span), () => handleIn(batch, span));
    } finally {
      span.end();
    }
  };

  // Returns false when stopped before the batch was settled (it was nak'ed).
  const handleIn = async (batch: JsMsg[], span: Span): Promise<boolean> => {
    const pulled = batch.map(toPulled);
    for (let attempt = 1; ; attempt++) {
      let failure: unknown;
      const abort = new AbortController();
      current = { batch, attempt, abort, ...(current?.batch === batch ? { lastError: current.lastError } : {}) };
      try {
        // A big batch on a slow database can outlast the ack wait: keep every deadline alive.
        const heartbeat = setInterval(() => {
          for (const m of batch) m.working();
        }, heartbeatMs);
        let poison: Map<number, PoisonMessageError>;
        try {
          // An attempt the watchdog gave up on may still answer later: that is not progress.
          const attemptProgress = () => {
            if (!abort.signal.aborted) progress();
          };
          poison = await untilAborted(
            opts.handler(pulled, { signal: abort.signal, progress: attemptProgress }),
            abort.signal,
          );
        } finally {
          clearInterval(heartbeat);
        }
        for (const [i, m] of batch.entries()) {
          const err = poison.get(m.info.streamSequence);
          if (err !== undefined) await opts.onPoison(err, pulled[i]!);
        }
        if (poison.size > 0) {
          span.setAttribute('cds.parked', poison.size);
          span.setStatus({ code: SpanStatusCode.ERROR, message: [...poison.values()][0]!.message });
        }
        for (const m of batch) {
          // No reason with term: nats-server 2.9 does not understand "+TERM <reason>".
          if (poison.has(m.info.streamSequence)) m.term();
          else m.ack();
        }
        current = undefined;
        progress();
        return true;
      } catch (err) {
        failure = err;
        current!.lastError = failure instanceof Error ? failure.message : String(failure);
      }
      if (stopping.signal.aborted) {
        current = undefined;
        for (const m of batch) m.nak();
        return false;
      }
      span.addEvent('retry', {
        attempt,
        'exception.message': failure instanceof Error ? failure.message : String(failure),
      });
      opts.onError?.(failure, pulled, attempt);
      for (const m of batch) m.working();
      await holdFor(batch, Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1)));
      if (stopping.signal.aborted) {
        current = undefined;
        for (const m of batch) m.nak();
        return false;
      }
    }
  };

  /** What is stuck right now, or undefined when the loop is moving (or idle). */
  const findStall = async (now: number, stallMs: number): Promise<StallReport | undefined> => {
    const quietMs = now - lastProgressAt;
    if (quietMs < stallMs) return undefined;
    const busy = current;
    if (busy !== undefined) {
      return {
        phase: 'handling',
        durable: opts.durable,
        quietMs,
        firstSeq: busy.batch[0]!.info.streamSequence,
        lastSeq: busy.batch.at(-1)!.info.streamSequence,
        messages: busy.batch.length,
        attempt: busy.attempt,
        ...(busy.lastError !== undefined ? { lastError: busy.lastError } : {}),
      };
    }
    // Waiting: is there anything for us? (NATS unreachable is not ours to judge: no stall.)
    const info = await consumer.info().catch(() => undefined);
    if (info === undefined || current !== undefined || lastProgressAt > now - stallMs) return undefined;
    if (info.num_pending + info.num_ack_pending === 0) {
      // Idle: nothing to wait for.
      lastProgressAt = now;
      consumerMark = undefined;
      return undefined;
    }
    const key = `${info.delivered.stream_seq}/${info.ack_floor.stream_seq}/${info.num_pending}`;
    if (consumerMark?.key !== key) {
      consumerMark = { key, at: now };
      return undefined;
    }
    // Only unacknowledged messages: their redelivery waits for the ack wait.
    if (info.num_pending === 0 && now - consumerMark.at < opts.ackWaitMs) return undefined;
    return {
      phase: 'waiting',
      durable: opts.durable,
      quietMs,
      pending: info.num_pending,
      ackPending: info.num_ack_pending,
      waitingPulls: info.num_waiting,
      deliveredSeq: info.delivered.stream_seq,
      ackFloorSeq: info.ack_floor.stream_seq,
    };
  };

  const watch = opts.watchdog;
  let checking = false;
  const watchdogTimer =
    watch === undefined
      ? undefined
      : setInterval(
          () => {
            if (checking || stopping.signal.aborted) return;
            checking = true;
            void (async () => {
              const now = Date.now();
              if (stalled !== undefined) {
                if (stalled.report.phase === 'waiting' && current === undefined) {
                  // Moving again (a redelivery to a replica) or drained by another replica: recovered.
                  const info = await consumer.info().catch(() => undefined);
                  const was = stalled.report;
                  if (
                    info !== undefined &&
                    (info.num_pending + info.num_ack_pending === 0 ||
                      info.delivered.stream_seq !== was.deliveredSeq ||
                      info.ack_floor.stream_seq !== was.ackFloorSeq)
                  ) {
                    progress();
                    return;
                  }
                }
                if (
                  stalled !== undefined &&
                  !stalled.recoveryFailed &&
                  now - Math.max(stalled.recoveryAt, lastProgressAt) >= watch.stallMs
                ) {
                  stalled.recoveryFailed = true;
                  watch.onRecoveryFailed?.(stalled.report);
                }
                return;
              }
              const report = await findStall(now, watch.stallMs);
              if (report === undefined || stopping.signal.aborted) return;
              stalled = { report, since: now, recoveryAt: now, recoveryFailed: false };
              watch.onStall?.(report);
              if (report.phase === 'handling') {
                current?.abort.abort(
                  new StalledAttemptError(`no progress for ${report.quietMs} ms; the watchdog aborted this attempt`),
                );
              } else {
                // Not awaited: a reopen that keeps failing (NATS gone) must not stop the checks
                // that turn it into a failed recovery.
                void reopen(`watchdog: no progress for ${report.quietMs} ms with ${report.pending} pending`);
              }
            })()
              .catch(() => undefined)
              .finally(() => (checking = false));
          },
          Math.max(50, Math.min(5_000, Math.floor(watch.stallMs / 4))),
        );
  watchdogTimer?.unref();

  const done = (async () => {
    for (;;) {
      const batch = await nextBatch();
      if (batch === undefined) return;
      if (stopping.signal.aborted) {
        for (const m of batch) m.nak();
        return;
      }
      if (!(await handle(batch))) return;
    }
  })();
  done.catch(() => undefined);
  return {
    done,
    stall: () =>
      stalled === undefined
        ? undefined
        : { report: stalled.report, sinceMs: stalled.since, recoveryFailed: stalled.recoveryFailed },
    stop: async () => {
      stopping.abort();
      clearInterval(watchdogTimer);
      // close() can wait on a next() still pending; bounded so shutdown never hangs.
      await Promise.race([messages.close().catch(() => undefined), sleep(2_000)]);
      await Promise.race([done.catch(() => undefined), sleep(opts.ackWaitMs)]);
      if (!clients.nc.isClosed()) await clients.nc.flush().catch(() => undefined);
    },
  };
}

/** Settles like `work`, or rejects with the signal's reason as soon as it aborts. */
async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
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
