import { afterEach, describe, expect, it, vi } from 'vitest';
import { Waker } from './delivery-loop.ts';

describe('the delivery loop waker', () => {
  afterEach(() => vi.useRealTimers());

  it('sleeps until the time runs out (true) or a wake ends it (false)', async () => {
    vi.useFakeTimers();
    const waker = new Waker();
    const timed = waker.sleep(1_000, () => false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await timed).toBe(true);
    waker.reset();
    const woken = waker.sleep(1_000, () => false);
    waker.wake();
    expect(await woken).toBe(false);
  });

  it('does not sleep when woken since the last reset, or once stopped', async () => {
    const waker = new Waker();
    waker.wake();
    expect(await waker.sleep(60_000, () => false)).toBe(false);
    waker.reset();
    expect(await waker.sleep(60_000, () => true)).toBe(false);
  });
});
