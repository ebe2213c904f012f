import { describe, expect, it } from 'vitest';
import { FailureLimiter } from './failure-limiter.ts';

describe('FailureLimiter', () => {
  it('makes a client wait past its failures in the window, and only that client, until the window ends', () => {
    const limiter = new FailureLimiter({ maxFailures: 3, windowMs: 60_000, maxClients: 10 });
    for (let i = 0; i < 3; i += 1) {
      expect(limiter.blockedFor('a', 1_000)).toBe(0);
      limiter.recordFailure('a', 1_000 + i);
    }
    expect(limiter.blockedFor('a', 2_000)).toBe(59);
    expect(limiter.blockedFor('b', 2_000)).toBe(0);
    expect(limiter.blockedFor('a', 61_000)).toBe(0);
    limiter.recordFailure('a', 61_000);
    expect(limiter.blockedFor('a', 61_001)).toBe(0);
  });

  it('holds at most maxClients: ended windows go first, then the oldest', () => {
    const limiter = new FailureLimiter({ maxFailures: 1, windowMs: 1_000, maxClients: 3 });
    for (const c of ['a', 'b', 'c']) limiter.recordFailure(c, 0);
    limiter.recordFailure('d', 500);
    // Full and no window ended: the oldest ('a') made room.
    expect(['a', 'b', 'c', 'd'].map((c) => limiter.blockedFor(c, 600) > 0)).toEqual([false, true, true, true]);
    limiter.recordFailure('e', 1_200);
    // b and c ended at 1,000: both dropped, d and e kept.
    expect(['d', 'e'].map((c) => limiter.blockedFor(c, 1_300) > 0)).toEqual([true, true]);
  });
});
