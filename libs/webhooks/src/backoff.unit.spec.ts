import { describe, expect, it } from 'vitest';
import { retryDelayMs } from './backoff.ts';

const policy = { baseMs: 30_000, maxMs: 3_600_000 };

describe('retry backoff', () => {
  it('doubles from the base up to the cap, jitter adding at most a quarter', () => {
    const low = Array.from({ length: 10 }, (_, i) => retryDelayMs(i + 1, policy, () => 0));
    expect(low).toEqual([
      30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
    const high = Array.from({ length: 4 }, (_, i) => retryDelayMs(i + 1, policy, () => 0.999_999));
    expect(high).toEqual([37_500, 75_000, 150_000, 300_000]);
  });

  it('makes every wait below the cap longer than the one before, whatever the jitter', () => {
    for (let trial = 0; trial < 200; trial += 1) {
      let previous = 0;
      for (let attempt = 1; attempt <= 7; attempt += 1) {
        const wait = retryDelayMs(attempt, policy);
        expect(wait).toBeGreaterThan(previous);
        expect(wait).toBeLessThanOrEqual(policy.maxMs);
        previous = wait;
      }
    }
  });

  it('sums to roughly 24 hours of retries in a bounded number of attempts at the defaults', () => {
    let total = 0;
    let attempts = 0;
    while (total < 86_400_000) total += retryDelayMs(++attempts, policy, () => 0);
    expect(attempts).toBeLessThan(40);
  });
});
