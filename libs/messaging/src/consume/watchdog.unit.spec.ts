import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatchInHand } from './attempts.ts';
import type { StallReport } from './types.ts';
import { StallWatchdog, StalledAttemptError, type Backlog, type WatchdogDeps } from './watchdog.ts';

const STALL_MS = 1_000; // checks every 250 ms

/** What the server holds: `pending` messages, the consumer at `delivered`/`ackFloor`. */
function backlogOf(pending: number, delivered: number, ackFloor = delivered, ackPending = 0): Backlog {
  if (pending + ackPending === 0) return { empty: true };
  return {
    empty: false,
    key: `${delivered}/${ackFloor}/${pending}`,
    onlyUnacked: pending === 0,
    report: {
      phase: 'waiting',
      durable: 'proj',
      quietMs: 0,
      pending,
      ackPending,
      waitingPulls: 1,
      deliveredSeq: delivered,
      ackFloorSeq: ackFloor,
    },
  };
}

function watchdog(deps: Partial<WatchdogDeps> = {}) {
  const stopping = new AbortController();
  const events: string[] = [];
  const reports: StallReport[] = [];
  let inHand: BatchInHand | undefined;
  let backlog: Backlog | undefined = { empty: true };
  const reopen = vi.fn((reason: string) => {
    events.push(`reopen: ${reason}`);
    return Promise.resolve();
  });
  const abortAttempt = vi.fn((reason: StalledAttemptError) => void events.push(`abort: ${reason.message}`));
  const dog = new StallWatchdog(
    {
      stallMs: STALL_MS,
      onStall: (r) => {
        reports.push(r);
        events.push(`stall ${r.phase}`);
      },
      onRecoveryFailed: (r) => void events.push(`recovery failed ${r.phase}`),
      onRecovered: (r, ms) => void events.push(`recovered ${r.phase} after ${ms}`),
    },
    {
      name: 'proj',
      ackWaitMs: 2_000,
      signal: stopping.signal,
      inHand: () => inHand,
      abortAttempt,
      backlog: () => Promise.resolve(backlog),
      reopen,
      reopenWhileStuck: false,
      ...deps,
    },
  );
  dog.start();
  return {
    dog,
    events,
    reports,
    reopen,
    abortAttempt,
    stopping,
    setInHand: (b: BatchInHand | undefined) => (inHand = b),
    setBacklog: (b: Backlog | undefined) => (backlog = b),
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('StallWatchdog', () => {
  it('never calls an idle consumer (nothing pending) stalled', async () => {
    const { dog, events } = watchdog();
    await vi.advanceTimersByTimeAsync(10 * STALL_MS);
    expect(events).toEqual([]);
    expect(dog.stall()).toBeUndefined();
    dog.stop();
  });

  it('handling: aborts an attempt without progress for stallMs, reports once, recovers on progress', async () => {
    const w = watchdog();
    w.setInHand({ firstSeq: 4, lastSeq: 9, messages: 6, attempt: 3, lastError: 'timeout' });
    await vi.advanceTimersByTimeAsync(750);
    expect(w.events).toEqual([]);
    await vi.advanceTimersByTimeAsync(250);
    expect(w.reports).toEqual([
      {
        phase: 'handling',
        durable: 'proj',
        quietMs: 1_000,
        firstSeq: 4,
        lastSeq: 9,
        messages: 6,
        attempt: 3,
        lastError: 'timeout',
      },
    ]);
    expect(w.abortAttempt.mock.calls[0]![0]).toBeInstanceOf(StalledAttemptError);
    expect(w.events).toEqual(['stall handling', 'abort: no progress for 1000 ms; the watchdog aborted this attempt']);
    expect(w.dog.stall()).toMatchObject({ report: { phase: 'handling' }, recoveryFailed: false });
    // The loop never closes a pull while a batch is in hand.
    expect(w.reopen).not.toHaveBeenCalled();

    await vi.advanceTimersByTimeAsync(500);
    w.dog.progress();
    expect(w.events.at(-1)).toBe('recovered handling after 500');
    expect(w.dog.stall()).toBeUndefined();
    w.dog.stop();
  });

  it('handling: still no progress stallMs after recovery started is a failed recovery, told once', async () => {
    const w = watchdog();
    w.setInHand({ firstSeq: 1, lastSeq: 1, messages: 1, attempt: 1 });
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.advanceTimersByTimeAsync(750);
    expect(w.dog.stall()?.recoveryFailed).toBe(false);
    await vi.advanceTimersByTimeAsync(250);
    expect(w.dog.stall()?.recoveryFailed).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(w.events.filter((e) => e.startsWith('recovery failed'))).toEqual(['recovery failed handling']);
    expect(w.abortAttempt).toHaveBeenCalledTimes(1);
    w.dog.stop();
  });

  it('progress keeps a busy loop from being a stall', async () => {
    const w = watchdog();
    w.setInHand({ firstSeq: 1, lastSeq: 1, messages: 1, attempt: 1 });
    for (let i = 0; i < 20; i++) {
      await vi.advanceTimersByTimeAsync(500);
      w.dog.progress();
    }
    expect(w.events).toEqual([]);
    w.dog.stop();
  });

  it('waiting: pending messages and a consumer that did not move between two checks: reopens the pull', async () => {
    const w = watchdog();
    w.setBacklog(backlogOf(5, 10));
    // At stallMs the consumer's position is marked; the next check finds it unmoved.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(w.events).toEqual([]);
    await vi.advanceTimersByTimeAsync(250);
    expect(w.reports).toEqual([{ ...(backlogOf(5, 10) as { report: StallReport }).report, quietMs: 1_250 }]);
    expect(w.events).toEqual(['stall waiting', 'reopen: watchdog: no progress for 1250 ms with 5 pending']);
    // Durable: one reopen per stall (a liveness probe restarts a durable consumer's process).
    await vi.advanceTimersByTimeAsync(3_000);
    expect(w.reopen).toHaveBeenCalledTimes(1);
    expect(w.events.at(-1)).toBe('recovery failed waiting');
    expect(w.dog.stall()?.recoveryFailed).toBe(true);
    w.dog.stop();
  });

  it('waiting: a consumer that moves (a competing replica at work) is not stalled', async () => {
    const w = watchdog();
    for (let seq = 1; seq <= 20; seq++) {
      w.setBacklog(backlogOf(5, seq));
      await vi.advanceTimersByTimeAsync(250);
    }
    expect(w.events).toEqual([]);
    w.dog.stop();
  });

  it('waiting: only unacknowledged messages count after a further ack wait (their redelivery waits that long)', async () => {
    const w = watchdog();
    w.setBacklog(backlogOf(0, 10, 8, 2));
    await vi.advanceTimersByTimeAsync(1_000); // marked
    await vi.advanceTimersByTimeAsync(1_750);
    expect(w.events).toEqual([]);
    await vi.advanceTimersByTimeAsync(250); // ack wait (2 s) after the mark
    expect(w.events[0]).toBe('stall waiting');
    w.dog.stop();
  });

  it('waiting: recovered when the consumer moves again, or drains, without a message here', async () => {
    const w = watchdog();
    w.setBacklog(backlogOf(5, 10));
    await vi.advanceTimersByTimeAsync(1_250);
    expect(w.dog.stall()).toBeDefined();
    w.setBacklog(backlogOf(4, 11));
    await vi.advanceTimersByTimeAsync(250);
    expect(w.events.at(-1)).toBe('recovered waiting after 250');
    expect(w.dog.stall()).toBeUndefined();
    w.dog.stop();
  });

  it('waiting: NATS unreachable (the server cannot say) is not a stall', async () => {
    const w = watchdog();
    w.setBacklog(undefined);
    await vi.advanceTimersByTimeAsync(10 * STALL_MS);
    expect(w.events).toEqual([]);
    w.dog.stop();
  });

  it('waiting: a backlog probe that never answers counts as "cannot say" after stallMs / 2, and the next check goes on', async () => {
    // A stream info during a NATS leader election can wait out the JetStream API timeout (5 s).
    let calls = 0;
    const w = watchdog({
      backlog: () => {
        calls += 1;
        return calls === 1 ? new Promise<Backlog>(() => undefined) : Promise.resolve(backlogOf(3, 10));
      },
    });
    // Quiet for stallMs at 1,000 ms: that probe hangs and is given up at 1,500 ms (stallMs / 2);
    // the next checks see the same position twice (the mark at 1,500, the stall at 1,750). Without
    // the deadline nothing would be checked again while the probe hangs.
    await vi.advanceTimersByTimeAsync(1_500);
    expect(w.events).toEqual([]);
    await vi.advanceTimersByTimeAsync(250);
    expect(w.events).toEqual(['stall waiting', 'reopen: watchdog: no progress for 1750 ms with 3 pending']);
    expect(calls).toBe(3);
    w.dog.stop();
  });

  it('ordered: reopens again every stallMs while it stays stuck', async () => {
    const w = watchdog({ reopenWhileStuck: true });
    w.setBacklog(backlogOf(3, 7));
    await vi.advanceTimersByTimeAsync(1_250);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(w.events).toEqual([
      'stall waiting',
      'reopen: watchdog: no progress for 1250 ms with 3 pending',
      'recovery failed waiting',
      'reopen: watchdog: still no progress with 3 pending',
      'reopen: watchdog: still no progress with 3 pending',
    ]);
    w.dog.stop();
  });

  it('checks nothing once the loop stops', async () => {
    const w = watchdog();
    w.setInHand({ firstSeq: 1, lastSeq: 1, messages: 1, attempt: 1 });
    w.stopping.abort();
    await vi.advanceTimersByTimeAsync(5 * STALL_MS);
    expect(w.events).toEqual([]);
    w.dog.stop();
  });
});
