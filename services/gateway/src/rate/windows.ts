import type { RateWindowState } from '@cds/contracts';

export const MINUTE = 60;
export const DAY = 86_400;

/** The outcome of counting one request against an account's two windows. */
export interface RateDecision {
  admitted: boolean;
  minute: RateWindowState;
  day: RateWindowState;
  /** Unix seconds at decision time (from Redis's clock, or the local one in fallback). */
  now: number;
  /** Seconds until the binding window resets, at least 1 (for Retry-After on 429). */
  retryAfter: number;
  /** The window that refused the request, when not admitted. */
  refusedBy?: 'minute' | 'day';
  /**
   * Who decided: Redis, this replica's fallback, or this replica from a decision it kept: a refusal
   * by Redis (refusal-memo.ts), or an uncounted 304 admitted from the account's last decision
   * (not-modified-meter.ts).
   */
  source: 'redis' | 'memory' | 'kept';
}

export interface RateLimits {
  perMinute: number;
  perDay: number;
}

export interface RateLimiter {
  /**
   * Counts one request for the account if both windows allow it; a refused request is not counted.
   * `keyId` (the API key that made it) is recorded as the key's last-used day with the per-day
   * usage count by the Redis limiter; the in-memory fallback counts no usage.
   */
  take(accountId: string, limits: RateLimits, keyId?: string): Promise<RateDecision>;
  /**
   * Gives back the request `taken` admitted (a 304 does not count against the windows): the
   * minute and day counts, and the day's usage count, that the take incremented go down by one,
   * each only while its window is still the one the take counted in. Resolves to the windows as
   * they are after the give-back (for the 304's rate headers).
   */
  giveBack(accountId: string, limits: RateLimits, taken: RateDecision): Promise<RateDecision>;
  /**
   * Decides a request known not to count (a 304 the gateway answers from its cache) in one call:
   * admitted while both windows have room, as `take` would decide, but nothing is counted; the
   * windows are as `take` then `giveBack` would leave them. `keyId`'s last-used day is recorded
   * (the key was used), like `take` does.
   */
  check(accountId: string, limits: RateLimits, keyId?: string): Promise<RateDecision>;
}

/**
 * Builds the decision from the counts after the attempt. Fixed windows aligned to the UTC minute
 * and the UTC day: reset at the next multiple of 60 s and 86,400 s.
 */
export function decide(
  admitted: boolean,
  minuteCount: number,
  dayCount: number,
  now: number,
  limits: RateLimits,
  source: RateDecision['source'],
): RateDecision {
  const minute: RateWindowState = {
    name: 'minute',
    limit: limits.perMinute,
    remaining: Math.max(0, limits.perMinute - minuteCount),
    reset: (Math.floor(now / MINUTE) + 1) * MINUTE,
    seconds: MINUTE,
  };
  const day: RateWindowState = {
    name: 'day',
    limit: limits.perDay,
    remaining: Math.max(0, limits.perDay - dayCount),
    reset: (Math.floor(now / DAY) + 1) * DAY,
    seconds: DAY,
  };
  let refusedBy: 'minute' | 'day' | undefined;
  if (!admitted) refusedBy = dayCount >= limits.perDay ? 'day' : 'minute';
  const binding = refusedBy === 'day' || (refusedBy === undefined && day.remaining < minute.remaining) ? day : minute;
  return {
    admitted,
    minute,
    day,
    now,
    retryAfter: Math.max(1, binding.reset - now),
    ...(refusedBy === undefined ? {} : { refusedBy }),
    source,
  };
}
