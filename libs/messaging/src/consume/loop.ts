import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { setTimeout as sleep } from 'node:timers/promises';
import { Attempts, type Acks } from './attempts.ts';
import { Pull } from './pull.ts';
import type { ConsumeOptions, RunningConsumer } from './types.ts';
import { StallWatchdog, type Backlog } from './watchdog.ts';

/** What the durable consumer and the ordered follower each bring to the one loop. */
export interface LoopMode {
  /** The durable name (ordered: `ordered:<stream>`), in spans and stall reports. */
  name: string;
  /** Durable: the consumer's ack wait; 0 when ordered. */
  ackWaitMs: number;
  /** Opens a pull. */
  open: () => Promise<ConsumerMessages>;
  /** Durable: acks, poison termed, deadlines kept alive; absent when ordered. */
  acks?: Acks;
  /** Durable: trace each batch. */
  traced: boolean;
  /** Ordered: deliveries at or below this sequence are skipped. */
  handledUpTo?: () => number;
  /** Durable: the pull requests the server holds for the consumer. */
  waitingPulls?: () => Promise<number | undefined>;
  /** What the server holds for the loop (watchdog). */
  backlog: () => Promise<Backlog | undefined>;
  /** Ordered: the watchdog reopens again every `stallMs` while stuck waiting. */
  reopenWhileStuck: boolean;
  /** A batch was settled: moves the position. */
  settled: (batch: JsMsg[]) => void;
  position: () => number;
  /** Run last when stopping (durable: flush the acks). */
  afterStop?: () => Promise<void>;
}

/**
 * Runs the consume loop: pulls a batch, runs it through the handler until settled, repeats; the
 * watchdog (when asked for) looks on. Opening the first pull may throw.
 */
export async function startLoop<T>(opts: ConsumeOptions<T>, mode: LoopMode): Promise<RunningConsumer> {
  const stopping = new AbortController();
  let watchdog: StallWatchdog | undefined;
  const progress = () => watchdog?.progress();
  const pull = await Pull.open({
    open: mode.open,
    signal: stopping.signal,
    stallCheckMs: opts.stallCheckMs ?? 10_000,
    maxBatch: opts.maxBatch ?? 256,
    maxBatchBytes: opts.maxBatchBytes,
    onReopen: opts.onReopen,
    onMessage: progress,
    handledUpTo: mode.handledUpTo,
    waitingPulls: mode.waitingPulls,
  });
  const attempts = new Attempts<T>({
    decode: opts.decode,
    handler: opts.handler,
    onPoison: opts.onPoison,
    onError: opts.onError,
    retry: {
      initialDelayMs: opts.retry?.initialDelayMs ?? 100,
      maxDelayMs: opts.retry?.maxDelayMs ?? 5_000,
      maxAttempts: opts.retry?.maxAttempts ?? Infinity,
    },
    acks: mode.acks,
    trace: mode.traced ? { consumer: mode.name, stream: opts.stream } : undefined,
    signal: stopping.signal,
    onProgress: progress,
    onSettled: mode.settled,
  });
  if (opts.watchdog !== undefined) {
    watchdog = new StallWatchdog(opts.watchdog, {
      name: mode.name,
      ackWaitMs: mode.ackWaitMs,
      signal: stopping.signal,
      inHand: () => attempts.inHand(),
      abortAttempt: (reason) => attempts.abortAttempt(reason),
      backlog: mode.backlog,
      reopen: (reason) => pull.reopen(reason),
      reopenWhileStuck: mode.reopenWhileStuck,
    });
    watchdog.start();
  }

  const done = (async () => {
    try {
      for (;;) {
        const batch = await pull.nextBatch();
        if (batch === undefined) return;
        if (stopping.signal.aborted) {
          attempts.release(batch);
          return;
        }
        if (!(await attempts.run(batch))) return;
      }
    } finally {
      watchdog?.stop();
    }
  })();
  done.catch(() => undefined);
  return {
    done,
    position: mode.position,
    reopens: () => pull.reopens(),
    stall: () => watchdog?.stall(),
    stop: async () => {
      stopping.abort();
      watchdog?.stop();
      await pull.close();
      await Promise.race([done.catch(() => undefined), sleep(Math.max(mode.ackWaitMs, 2_000))]);
      await mode.afterStop?.();
    },
  };
}
