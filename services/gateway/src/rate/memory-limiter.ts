import { DAY, MINUTE, decide, type RateDecision, type RateLimiter, type RateLimits } from './windows.ts';

interface Counts {
  minute: number;
  minuteCount: number;
  day: number;
  dayCount: number;
}

/**
 * The same two fixed windows kept in this process only: the fallback while Redis is unreachable
 * (so each replica enforces the limits on its own share of traffic). Bounded: entries of accounts
 * idle for a day are dropped when the map grows past `maxAccounts`. It counts no per-day usage
 * and records no key's last-used day (only the Redis limiter writes the usage hash).
 */
export function createMemoryRateLimiter(opts: { nowMs: () => number; maxAccounts?: number }): RateLimiter {
  const counts = new Map<string, Counts>();
  const maxAccounts = opts.maxAccounts ?? 100_000;
  return {
    take(accountId: string, limits: RateLimits): Promise<RateDecision> {
      const now = Math.floor(opts.nowMs() / 1000);
      const minute = Math.floor(now / MINUTE);
      const day = Math.floor(now / DAY);
      let c = counts.get(accountId);
      if (c === undefined) {
        if (counts.size >= maxAccounts) {
          for (const [id, v] of counts) if (v.day !== day) counts.delete(id);
          if (counts.size >= maxAccounts) counts.delete(counts.keys().next().value as string);
        }
        c = { minute, minuteCount: 0, day, dayCount: 0 };
        counts.set(accountId, c);
      }
      if (c.minute !== minute) {
        c.minute = minute;
        c.minuteCount = 0;
      }
      if (c.day !== day) {
        c.day = day;
        c.dayCount = 0;
      }
      const admitted = c.minuteCount < limits.perMinute && c.dayCount < limits.perDay;
      if (admitted) {
        c.minuteCount += 1;
        c.dayCount += 1;
      }
      return Promise.resolve(decide(admitted, c.minuteCount, c.dayCount, now, limits, 'memory'));
    },
    check(accountId: string, limits: RateLimits): Promise<RateDecision> {
      const now = Math.floor(opts.nowMs() / 1000);
      const c = counts.get(accountId);
      const minuteCount = c !== undefined && c.minute === Math.floor(now / MINUTE) ? c.minuteCount : 0;
      const dayCount = c !== undefined && c.day === Math.floor(now / DAY) ? c.dayCount : 0;
      const admitted = minuteCount < limits.perMinute && dayCount < limits.perDay;
      return Promise.resolve(decide(admitted, minuteCount, dayCount, now, limits, 'memory'));
    },
    giveBack(accountId: string, limits: RateLimits, taken: RateDecision): Promise<RateDecision> {
      const now = Math.floor(opts.nowMs() / 1000);
      const c = counts.get(accountId);
      if (c === undefined) return Promise.resolve(decide(true, 0, 0, now, limits, 'memory'));
      if (c.minute === Math.floor(taken.now / MINUTE) && c.minuteCount > 0) c.minuteCount -= 1;
      if (c.day === Math.floor(taken.now / DAY) && c.dayCount > 0) c.dayCount -= 1;
      const minuteCount = c.minute === Math.floor(now / MINUTE) ? c.minuteCount : 0;
      const dayCount = c.day === Math.floor(now / DAY) ? c.dayCount : 0;
      return Promise.resolve(decide(true, minuteCount, dayCount, now, limits, 'memory'));
    },
  };
}
