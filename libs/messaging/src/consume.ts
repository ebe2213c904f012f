import {
  DeliverPolicy,
  type Consumer,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import { millis, nanos, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { context, SpanKind, SpanStatusCode, trace, type Context, type Link, type Span } from '@opentelemetry/api';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { MessagingSetupError, PoisonMessageError } from './errors.ts';
import { extractTraceContext } from './trace-context.ts';

/**
 * How a stream is consumed.
 * - `durable`: a work queue with acks over a durable pull consumer (create it with
 *   `ensureConsumer`): the server keeps the position; messages are acked after the handler,
 *   poison termed, and redelivered when a process dies holding them.
 * - `ordered`: follow the stream from a sequence on and keep up, with an ephemeral ordered consumer
 *   and no acks: the position lives in this process, and a recreated consumer resumes after it.
 */
export type ConsumeMode =
  | { kind: 'durable'; durable: string }
  | {
      kind: 'ordered';
      /** Start after this sequence (0 or absent: from the first message). */
      after?: number;
      filterSubject?: string;
    };

/** A delivered message as a handler sees it. */
export interface PulledMessage<T = unknown> {
  subject: string;
  /** Stream sequence. */
  seq: number;
  deliveryCount: number;
  redelivered: boolean;
  /** Messages left for this consumer after this one (0: caught up). */
  pending: number;
  /** When the stream stored the message (ms since the epoch). */
  storedAtMs: number;
  /** The payload as stored. */
  data: Uint8Array;
  headers: MsgHdrs | undefined;
  /** Trace context the publisher sent. */
  traceContext: Context;
  /** The payload parsed as JSON and decoded by `decode`; undefined without `decode` or when poison. */
  value: T | undefined;
  /** Set when the payload is not JSON or `decode` rejected it: the loop parks it (and terms it). */
  poison: PoisonMessageError | undefined;
  /** Extends the ack deadline (durable mode; a no-op when ordered). */
  working(): void;
}

/** What a handler attempt gets besides its batch. */
export interface AttemptContext {
  /**
   * Aborted when the watchdog gives up on this attempt (or the loop stops): pass it to the
   * operations so they end now. The loop stops waiting for the attempt either way.
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
      /** The durable name (ordered mode: `ordered:<stream>`). */
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
      /** Not yet delivered (`num_pending`; ordered: the stream's last sequence minus the position). */
      pending: number;
      /** Delivered but not acknowledged (`num_ack_pending`; 0 when ordered). */
      ackPending: number;
      /** Pull requests waiting on the server (`num_waiting`; 0 when ordered). */
      waitingPulls: number;
      /** Ordered: the position. */
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

export interface ConsumeOptions<T = unknown> {
  stream: string;
  mode: ConsumeMode;
  /**
   * Decodes a payload already parsed as JSON (a contract's `safeParse`, say). A payload that is not
   * JSON, or that `decode` rejects, is poison: it reaches the handler with `poison` set (skip it),
   * then `onPoison`, then `term()` in durable mode. Without `decode` nothing is parsed.
   */
  decode?: (payload: unknown) => { value: T } | { reason: string };
  /**
   * Handles a batch of consecutive deliveries (in delivery order). May resolve with more poison
   * messages (by sequence); every other message of the batch is acked. Throwing is a transient
   * failure: the whole batch is retried in place.
   */
  handler: (
    batch: PulledMessage<T>[],
    attempt: AttemptContext,
  ) => Promise<Map<number, PoisonMessageError> | void> | Map<number, PoisonMessageError> | void;
  /** Parks (or logs) one poison message; a failure here is transient (the batch is retried, nothing is termed unparked). */
  onPoison: (err: PoisonMessageError, msg: PulledMessage<T>) => Promise<void> | void;
  onError?: (err: unknown, batch: PulledMessage<T>[], attempt: number) => void;
  /** Messages pulled ahead. Default 256. */
  batchSize?: number;
  /** Most messages handed to the handler at once (those already buffered). Default 256. */
  maxBatch?: number;
  /** Durable: the consumer's ack wait (paces `working()`). Default: read from the consumer. */
  ackWaitMs?: number;
  /** Backoff of transient failures; after `maxAttempts` (default: no limit) `done` rejects with the failure. */
  retry?: { initialDelayMs?: number; maxDelayMs?: number; maxAttempts?: number };
  /**
   * Durable: how long the loop may wait for a message, idle, before it asks the server whether
   * its pull request is still there. Default 10 s.
   */
  stallCheckMs?: number;
  /** Where the loop reports reopening its pull. */
  onReopen?: (reason: string) => void;
  /** Detects and recovers a loop that stopped making progress (see `consumeStream`). */
  watchdog?: WatchdogOptions;
}

export interface RunningConsumer {
  /** Finishes the batch in hand (settled, or nak'ed if it was still failing), then stops pulling. */
  stop(): Promise<void>;
  /** Settles when the loop stops; rejects if it failed (retries exhausted). */
  readonly done: Promise<void>;
  /** Ordered: the sequence of the last handled message. Durable: the highest one this loop settled. */
  position(): number;
  /** How many times the pull was reopened (iterator ended, pull lost, watchdog). */
  reopens(): number;
  /** The stall in progress, if any, and whether its recovery failed. */
  stall(): { report: StallReport; sinceMs: number; recoveryFailed: boolean } | undefined;
}

/** Thrown into an attempt the watchdog gave up on. */
export class StalledAttemptError extends Error {
  override readonly name = 'StalledAttemptError';
}

const decoder = new TextDecoder();
const tracer = trace.getTracer('@cds/messaging');

/** Calls `working()` etc. on a message whose connection may be closed (then there is no one to tell). */
function tell(fn: () => void): void {
  try {
    fn();
  } catch {
    // Connection closed: the server redelivers after the ack wait anyway.
  }
}

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
  const durable = mode.kind === 'durable';
  const name = durable ? mode.durable : `ordered:${opts.stream}`;
  if (mode.kind === 'ordered' && mode.filterSubject !== undefined && opts.watchdog !== undefined) {
    throw new MessagingSetupError('the ordered watchdog compares with the whole stream: no filterSubject with it');
  }
  const durableConsumer: Consumer | undefined = durable
    ? await clients.js.consumers.get(opts.stream, mode.durable)
    : undefined;
  const ackWaitMs = durable
    ? (opts.ackWaitMs ?? millis((await durableConsumer!.info(true)).config.ack_wait ?? nanos(30_000)))
    : 0;
  /** Ordered: the last handled sequence; durable: the highest settled. */
  let position = mode.kind === 'ordered' ? (mode.after ?? 0) : 0;
  const open = async (): Promise<ConsumerMessages> => {
    const consumer =
      durableConsumer ??
      (await clients.js.consumers.get(opts.stream, {
        ...(position === 0
          ? { deliver_policy: DeliverPolicy.All }
          : { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: position + 1 }),
        ...(mode.kind === 'ordered' && mode.filterSubject !== undefined ? { filter_subjects: mode.filterSubject } : {}),
      }));
    return consumer.consume({ max_messages: opts.batchSize ?? 256 });
  };
  let messages = await open();
  let iterator = messages[Symbol.asyncIterator]();
  const stallCheckMs = opts.stallCheckMs ?? 10_000;
  const maxBatch = opts.maxBatch ?? 256;
  const heartbeatMs = Math.max(100, Math.floor(ackWaitMs / 3));
  const initialDelayMs = opts.retry?.initialDelayMs ?? 100;
  const maxDelayMs = opts.retry?.maxDelayMs ?? 5_000;
  const maxAttempts = opts.retry?.maxAttempts ?? Infinity;
  const stopping = new AbortController();
  let inflight: Promise<IteratorResult<JsMsg>> | undefined;
  let reopens = 0;

  // Acks exist in durable mode only (an ordered consumer acknowledges nothing).
  const ack = (m: JsMsg) => durable && tell(() => m.ack());
  const term = (m: JsMsg) => durable && tell(() => m.term());
  const nak = (m: JsMsg) => durable && tell(() => m.nak());
  const working = (m: JsMsg) => durable && tell(() => m.working());

  const toPulled = (m: JsMsg): PulledMessage<T> => {
    let value: T | undefined;
    let poison: PoisonMessageError | undefined;
    if (opts.decode !== undefined) {
      let payload: unknown;
      try {
        payload = JSON.parse(decoder.decode(m.data));
      } catch (err) {
        poison = new PoisonMessageError('payload is not valid JSON', { cause: err });
      }
      if (poison === undefined) {
        const decoded = opts.decode(payload);
        if ('reason' in decoded) poison = new PoisonMessageError(decoded.reason);
        else value = decoded.value;
      }
    }
    return {
      subject: m.subject,
      seq: m.info.streamSequence,
      deliveryCount: m.info.deliveryCount,
      redelivered: m.redelivered,
      pending: m.info.pending,
      storedAtMs: Date.parse(m.timestamp),
      data: m.data,
      headers: m.headers,
      traceContext: extractTraceContext(m.headers),
      value,
      poison,
      working: () => working(m),
    };
  };

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
      const slice = durable ? Math.min(left, heartbeatMs) : left;
      await sleep(slice, undefined, { signal: stopping.signal }).catch(() => undefined);
      left -= slice;
      for (const m of batch) working(m);
    }
  };

  /** Counts reopens, so the end of a replaced pull is not taken for the end of the current one. */
  let generation = 0;
  let reopening: Promise<void> | undefined;
  /**
   * Replaces the pull. A pull request lives on the server: after NATS is killed and restarted the
   * client's iterator may end, or wait forever on a request the new server never saw (unacked
   * messages are then never redelivered either, as redelivery needs a waiting pull). One reopen
   * at a time: the watchdog and the loop may both ask for one. Ordered, the new consumer starts
   * after the position.
   */
  const reopen = (reason: string): Promise<void> =>
    (reopening ??= reopenNow(reason).finally(() => (reopening = undefined)));
  const reopenNow = async (reason: string): Promise<void> => {
    opts.onReopen?.(reason);
    generation++;
    reopens++;
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
   * Waits for the next message. Durable, idle longer than `stallCheckMs`, it asks the server about
   * the consumer: no pull request waiting there on two checks in a row means ours is gone, so the
   * pull is reopened (a request about to expire is re-issued at once, so one check could be unlucky).
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
        // Ordered: at or below the position was handled (a reopened consumer may deliver it again).
        if (r.done !== true && !durable && r.value.seq <= position) continue;
        if (r.done !== true) progress();
        if (r.done !== true || stopping.signal.aborted) return r;
        // The end of a pull the watchdog already replaced.
        if (gen !== generation) continue;
        await reopen('the consumer iterator ended');
        continue;
      }
      if (stopping.signal.aborted) return { done: true, value: undefined };
      if (durableConsumer === undefined) continue;
      const waiting = await durableConsumer
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
      if (!durable && r.value.seq <= batch.at(-1)!.seq) continue;
      batch.push(r.value);
    }
    return batch;
  };

  /**
   * Durable: one consumer span per batch (all its attempts), a child of the first message's
   * publisher span, so a publisher's trace reaches its consumers, and linked to every other
   * message's publisher. Ordered follows are not traced (they replay whole streams).
   */
  const handle = async (batch: JsMsg[]): Promise<boolean> => {
    const pulled = batch.map(toPulled);
    if (!durable) return handleIn(batch, pulled, undefined);
    const parents = pulled.map((m) => m.traceContext);
    const links: Link[] = [];
    for (const ctx of parents.slice(1)) {
      const linked = trace.getSpanContext(ctx);
      if (linked !== undefined) links.push({ context: linked });
    }
    const span = tracer.startSpan(
      `apply ${name}`,
      {
        kind: SpanKind.CONSUMER,
        links,
        attributes: {
          'messaging.system': 'nats',
          'messaging.operation.type': 'process',
          'messaging.destination.name': batch.length === 1 ? batch[0]!.subject : opts.stream,
          'messaging.consumer.group.name': name,
          'messaging.batch.message_count': batch.length,
          'cds.stream_seq.first': batch[0]!.info.streamSequence,
          'cds.stream_seq.last': batch.at(-1)!.info.streamSequence,
        },
      },
      parents[0],
    );
    try {
      return await context.with(trace.setSpan(parents[0]!, span), () => handleIn(batch, pulled, span));
    } finally {
      span.end();
    }
  };

  // Returns false when stopped before the batch was settled (it was nak'ed).
  const handleIn = async (batch: JsMsg[], pulled: PulledMessage<T>[], span: Span | undefined): Promise<boolean> => {
    for (let attempt = 1; ; attempt++) {
      let failure: unknown;
      const abort = new AbortController();
      current = { batch, attempt, abort, ...(current?.batch === batch ? { lastError: current.lastError } : {}) };
      try {
        // A big batch on a slow database can outlast the ack wait: keep every deadline alive.
        const heartbeat = durable
          ? setInterval(() => {
              for (const m of batch) working(m);
            }, heartbeatMs)
          : undefined;
        let poison: Map<number, PoisonMessageError>;
        try {
          // An attempt the watchdog gave up on may still answer later: that is not progress.
          const attemptProgress = () => {
            if (!abort.signal.aborted) progress();
          };
          const verdicts = await untilAborted(
            Promise.resolve(opts.handler(pulled, { signal: abort.signal, progress: attemptProgress })),
            abort.signal,
          );
          poison = new Map(verdicts ?? []);
        } finally {
          clearInterval(heartbeat);
        }
        for (const m of pulled) if (m.poison !== undefined && !poison.has(m.seq)) poison.set(m.seq, m.poison);
        for (const m of pulled) {
          const err = poison.get(m.seq);
          if (err !== undefined) await opts.onPoison(err, m);
        }
        if (poison.size > 0) {
          span?.setAttribute('cds.parked', poison.size);
          span?.setStatus({ code: SpanStatusCode.ERROR, message: [...poison.values()][0]!.message });
        }
        for (const m of batch) {
          // No reason with term: nats-server 2.9 does not understand "+TERM <reason>" and would
          // leave the message pending for redelivery.
          if (poison.has(m.info.streamSequence)) term(m);
          else ack(m);
        }
        position = durable ? Math.max(position, batch.at(-1)!.seq) : batch.at(-1)!.seq;
        current = undefined;
        progress();
        return true;
      } catch (err) {
        failure = err;
        current!.lastError = failure instanceof Error ? failure.message : String(failure);
      }
      if (stopping.signal.aborted) {
        current = undefined;
        for (const m of batch) nak(m);
        return false;
      }
      span?.addEvent('retry', {
        attempt,
        'exception.message': failure instanceof Error ? failure.message : String(failure),
      });
      opts.onError?.(failure, pulled, attempt);
      if (attempt >= maxAttempts) {
        current = undefined;
        for (const m of batch) nak(m);
        throw failure;
      }
      for (const m of batch) working(m);
      await holdFor(batch, Math.min(maxDelayMs, initialDelayMs * 2 ** (attempt - 1)));
      if (stopping.signal.aborted) {
        current = undefined;
        for (const m of batch) nak(m);
        return false;
      }
    }
  };

  /** Is anything waiting for this loop? Undefined when the server cannot say. */
  const backlog = async (): Promise<
    { empty: true } | { empty: false; key: string; onlyUnacked: boolean; report: StallReport } | undefined
  > => {
    if (durableConsumer === undefined) {
      const info = await clients.jsm.streams.info(opts.stream).catch(() => undefined);
      if (info === undefined) return undefined;
      const { state } = info;
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
    const info = await durableConsumer.info().catch(() => undefined);
    if (info === undefined) return undefined;
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
  };

  /** What is stuck right now, or undefined when the loop is moving (or idle). */
  const findStall = async (now: number, stallMs: number): Promise<StallReport | undefined> => {
    const quietMs = now - lastProgressAt;
    if (quietMs < stallMs) return undefined;
    const busy = current;
    if (busy !== undefined) {
      return {
        phase: 'handling',
        durable: name,
        quietMs,
        firstSeq: busy.batch[0]!.info.streamSequence,
        lastSeq: busy.batch.at(-1)!.info.streamSequence,
        messages: busy.batch.length,
        attempt: busy.attempt,
        ...(busy.lastError !== undefined ? { lastError: busy.lastError } : {}),
      };
    }
    // Waiting: is there anything for us? (NATS unreachable is not ours to judge: no stall.)
    const found = await backlog();
    if (found === undefined || current !== undefined || lastProgressAt > now - stallMs) return undefined;
    if (found.empty) {
      // Idle: nothing to wait for.
      lastProgressAt = now;
      consumerMark = undefined;
      return undefined;
    }
    if (consumerMark?.key !== found.key) {
      consumerMark = { key: found.key, at: now };
      return undefined;
    }
    // Only unacknowledged messages: their redelivery waits for the ack wait.
    if (found.onlyUnacked && now - consumerMark.at < ackWaitMs) return undefined;
    return { ...found.report, quietMs };
  };

  /** Stalled waiting: has the consumer moved (or drained) since the report? */
  const movedSince = async (was: StallReport & { phase: 'waiting' }): Promise<boolean> => {
    const found = await backlog();
    if (found === undefined) return false;
    if (found.empty) return true;
    const now = found.report as StallReport & { phase: 'waiting' };
    return now.deliveredSeq !== was.deliveredSeq || now.ackFloorSeq !== was.ackFloorSeq;
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
                  if (await movedSince(stalled.report)) {
                    progress();
                    return;
                  }
                }
                if (
                  stalled !== undefined &&
                  now - Math.max(stalled.recoveryAt, lastProgressAt) >= watch.stallMs &&
                  !stalled.recoveryFailed
                ) {
                  stalled.recoveryFailed = true;
                  watch.onRecoveryFailed?.(stalled.report);
                }
                if (
                  stalled !== undefined &&
                  !durable &&
                  stalled.report.phase === 'waiting' &&
                  now - stalled.recoveryAt >= watch.stallMs
                ) {
                  stalled.recoveryAt = now;
                  void reopen(`watchdog: still no progress with ${stalled.report.pending} pending`);
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
    try {
      for (;;) {
        const batch = await nextBatch();
        if (batch === undefined) return;
        if (stopping.signal.aborted) {
          for (const m of batch) nak(m);
          return;
        }
        if (!(await handle(batch))) return;
      }
    } finally {
      clearInterval(watchdogTimer);
    }
  })();
  done.catch(() => undefined);
  return {
    done,
    position: () => position,
    reopens: () => reopens,
    stall: () =>
      stalled === undefined
        ? undefined
        : { report: stalled.report, sinceMs: stalled.since, recoveryFailed: stalled.recoveryFailed },
    stop: async () => {
      stopping.abort();
      clearInterval(watchdogTimer);
      // close() can wait on a next() still pending; bounded so shutdown never hangs.
      await Promise.race([messages.close().catch(() => undefined), sleep(2_000)]);
      await Promise.race([done.catch(() => undefined), sleep(Math.max(ackWaitMs, 2_000))]);
      // Acks are fire-and-forget publishes; flush so they reach the server before a close.
      if (durable && !clients.nc.isClosed()) await clients.nc.flush().catch(() => undefined);
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

/** The part of a zod schema `schemaDecoder` uses. */
export interface SafeParser<T> {
  safeParse(
    payload: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/**
 * A `decode` from a contract schema: the payload as the schema parses it, or the reason it fails
 * (`schema: <path>: <message>; ...`, at most five issues), which becomes the poison message's reason.
 */
export function schemaDecoder<T>(schema: SafeParser<T>): (payload: unknown) => { value: T } | { reason: string } {
  return (payload) => {
    const parsed = schema.safeParse(payload);
    if (parsed.success) return { value: parsed.data };
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.map(String).join('.') || '(event)'}: ${i.message}`);
    return { reason: `schema: ${issues.join('; ')}` };
  };
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
    ...followOptions(opts.logger, opts.stream),
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
