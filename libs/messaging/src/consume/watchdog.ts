import type { BatchInHand } from './attempts.ts';
import type { StallReport, WatchdogOptions } from './types.ts';

/** Thrown into an attempt the watchdog gave up on. */
export class StalledAttemptError extends Error {
  override readonly name = 'StalledAttemptError';
}

export type WaitingReport = Extract<StallReport, { phase: 'waiting' }>;

/**
 * Is anything waiting for the loop? `key` identifies the consumer's position (it changes when the
 * consumer moves); `onlyUnacked`: nothing left but messages delivered and not acknowledged.
 */
export type Backlog = { empty: true } | { empty: false; key: string; onlyUnacked: boolean; report: WaitingReport };

export interface WatchdogDeps {
  /** The durable name (ordered: `ordered:<stream>`). */
  name: string;
  /** Durable: the consumer's ack wait (0 when ordered). */
  ackWaitMs: number;
  /** Aborted when the loop stops. */
  signal: AbortSignal;
  /** The batch in the handler, if any. */
  inHand: () => BatchInHand | undefined;
  abortAttempt: (reason: StalledAttemptError) => void;
  /** What the server holds for the loop; undefined when it cannot say (NATS unreachable). */
  backlog: () => Promise<Backlog | undefined>;
  reopen: (reason: string) => Promise<void>;
  /** Ordered: reopen again every `stallMs` while stuck waiting (a follower has no liveness probe to restart it). */
  reopenWhileStuck: boolean;
}

/**
 * Finds a consume loop that stopped making progress and recovers it (see `consumeStream`).
 * Progress is what the loop reports (`progress()`); the checks run every `stallMs / 4`, at most
 * every 5 s. A stall is reported once (`onStall`), a failed recovery once (`onRecoveryFailed`),
 * the end of a stall once (`onRecovered`).
 */
export class StallWatchdog {
  private lastProgressAt = Date.now();
  /** The consumer's position at the last idle check (waiting phase), and since when it is so. */
  private consumerMark: { key: string; at: number } | undefined;
  private stalled: { report: StallReport; since: number; recoveryAt: number; recoveryFailed: boolean } | undefined;
  private checking = false;
  private timer: ReturnType<typeof setInterval> | undefined;

  private readonly options: WatchdogOptions;
  private readonly deps: WatchdogDeps;

  constructor(options: WatchdogOptions, deps: WatchdogDeps) {
    this.options = options;
    this.deps = deps;
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), Math.max(50, Math.min(5_000, Math.floor(this.options.stallMs / 4))));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The loop moved: a message received, a batch settled, an operation of the handler answered. */
  progress(): void {
    this.lastProgressAt = Date.now();
    this.consumerMark = undefined;
    if (this.stalled !== undefined) {
      const { report, since } = this.stalled;
      this.stalled = undefined;
      this.options.onRecovered?.(report, this.lastProgressAt - since);
    }
  }

  /** The stall in progress, if any. */
  stall(): { report: StallReport; sinceMs: number; recoveryFailed: boolean } | undefined {
    const stalled = this.stalled;
    return stalled === undefined
      ? undefined
      : { report: stalled.report, sinceMs: stalled.since, recoveryFailed: stalled.recoveryFailed };
  }

  private tick(): void {
    if (this.checking || this.deps.signal.aborted) return;
    this.checking = true;
    void this.check()
      .catch(() => undefined)
      .finally(() => (this.checking = false));
  }

  /** One check: finds a stall and starts its recovery, or follows the one in progress. */
  async check(): Promise<void> {
    const now = Date.now();
    const { stallMs } = this.options;
    if (this.stalled !== undefined) {
      const { report } = this.stalled;
      if (report.phase === 'waiting' && this.deps.inHand() === undefined) {
        // Moving again (a redelivery to a replica) or drained by another replica: recovered.
        if (await this.movedSince(report)) {
          this.progress();
          return;
        }
      }
      const stalled = this.stalled;
      if (stalled === undefined) return;
      if (now - Math.max(stalled.recoveryAt, this.lastProgressAt) >= stallMs && !stalled.recoveryFailed) {
        stalled.recoveryFailed = true;
        this.options.onRecoveryFailed?.(stalled.report);
      }
      if (this.deps.reopenWhileStuck && stalled.report.phase === 'waiting' && now - stalled.recoveryAt >= stallMs) {
        stalled.recoveryAt = now;
        void this.deps.reopen(`watchdog: still no progress with ${stalled.report.pending} pending`);
      }
      return;
    }
    const report = await this.findStall(now);
    if (report === undefined || this.deps.signal.aborted) return;
    this.stalled = { report, since: now, recoveryAt: now, recoveryFailed: false };
    this.options.onStall?.(report);
    if (report.phase === 'handling') {
      this.deps.abortAttempt(
        new StalledAttemptError(`no progress for ${report.quietMs} ms; the watchdog aborted this attempt`),
      );
    } else {
      // Not awaited: a reopen that keeps failing (NATS gone) must not stop the checks that turn
      // it into a failed recovery.
      void this.deps.reopen(`watchdog: no progress for ${report.quietMs} ms with ${report.pending} pending`);
    }
  }

  /** What is stuck right now, or undefined when the loop is moving (or idle). */
  private async findStall(now: number): Promise<StallReport | undefined> {
    const { stallMs } = this.options;
    const quietMs = now - this.lastProgressAt;
    if (quietMs < stallMs) return undefined;
    const busy = this.deps.inHand();
    if (busy !== undefined) return { phase: 'handling', durable: this.deps.name, quietMs, ...busy };
    // Waiting: is there anything for us? (NATS unreachable is not ours to judge: no stall.)
    const found = await this.backlog();
    if (found === undefined || this.deps.inHand() !== undefined || this.lastProgressAt > now - stallMs) {
      return undefined;
    }
    if (found.empty) {
      // Idle: nothing to wait for.
      this.lastProgressAt = now;
      this.consumerMark = undefined;
      return undefined;
    }
    if (this.consumerMark?.key !== found.key) {
      this.consumerMark = { key: found.key, at: now };
      return undefined;
    }
    // Only unacknowledged messages: their redelivery waits for the ack wait.
    if (found.onlyUnacked && now - this.consumerMark.at < this.deps.ackWaitMs) return undefined;
    return { ...found.report, quietMs };
  }

  /**
   * The backlog, or undefined when the server does not say within half of `stallMs`: during a
   * NATS cluster's leader election a stream info can wait out the JetStream API timeout (5 s),
   * and no other check runs meanwhile, which had delayed a key follower's recovery by that much.
   */
  private async backlog(): Promise<Backlog | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), Math.max(100, Math.floor(this.options.stallMs / 2)));
    });
    try {
      return await Promise.race([this.deps.backlog().catch(() => undefined), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stalled waiting: has the consumer moved (or drained) since the report? */
  private async movedSince(was: WaitingReport): Promise<boolean> {
    const found = await this.backlog();
    if (found === undefined) return false;
    if (found.empty) return true;
    const now = found.report;
    return now.deliveredSeq !== was.deliveredSeq || now.ackFloorSeq !== was.ackFloorSeq;
  }
}
