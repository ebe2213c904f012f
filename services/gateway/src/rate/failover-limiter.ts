import type { Logger } from '@cds/telemetry';
import type { RateDecision, RateLimiter, RateLimits } from './windows.ts';

export interface FailoverEvents {
  /** Called for every decision taken by the fallback. */
  onFallback?: () => void;
  /** Called when the primary fails (and the limiter switches over) or recovers. */
  onStateChange?: (state: 'primary' | 'fallback') => void;
}

/**
 * Uses the primary (Redis) limiter and, when it fails or times out, the local fallback: fail open
 * to a per-replica limit, never an error. After a failure the primary is skipped for `retryMs`,
 * then tried again with the next request, one request at a time (the others meanwhile decided by
 * the fallback: against a Redis that does not answer, each try waits out the timeout, and a replica
 * cut off from Redis made every request of the try's second wait it, docs/reliability.md
 * "Partitions"); the first success switches back. The fallback counts no per-day usage (the
 * dashboard's usage figures miss the requests it decided).
 */
export function createFailoverRateLimiter(opts: {
  primary: RateLimiter;
  fallback: RateLimiter;
  logger: Logger;
  nowMs: () => number;
  retryMs?: number;
  events?: FailoverEvents;
}): RateLimiter & { state(): 'primary' | 'fallback' } {
  const retryMs = opts.retryMs ?? 1000;
  let downUntil = 0;
  let state: 'primary' | 'fallback' = 'primary';
  /** A request is trying the primary again after a failure. */
  let probing = false;
  /**
   * A take or a check by the primary, or by the fallback while the primary is down or when it
   * fails (asked without the key id: the fallback records no usage).
   */
  async function decideBy(
    kind: 'take' | 'check',
    accountId: string,
    limits: RateLimits,
    keyId: string | undefined,
  ): Promise<RateDecision> {
    if (opts.nowMs() < downUntil || probing) return fallback(kind, accountId, limits);
    const probe = state === 'fallback';
    if (probe) probing = true;
    try {
      const decision = await opts.primary[kind](accountId, limits, keyId);
      if (state === 'fallback') {
        state = 'primary';
        opts.logger.warn('rate limiting back on Redis');
        opts.events?.onStateChange?.('primary');
      }
      return decision;
    } catch (err) {
      downUntil = opts.nowMs() + retryMs;
      if (state === 'primary') {
        state = 'fallback';
        opts.logger.error({ err }, "Redis unavailable: rate limiting falls back to this replica's memory");
        opts.events?.onStateChange?.('fallback');
      }
      return fallback(kind, accountId, limits);
    } finally {
      if (probe) probing = false;
    }
  }
  function fallback(kind: 'take' | 'check', accountId: string, limits: RateLimits): Promise<RateDecision> {
    opts.events?.onFallback?.();
    return opts.fallback[kind](accountId, limits);
  }
  return {
    state: () => state,
    take: (accountId, limits, keyId) => decideBy('take', accountId, limits, keyId),
    check: (accountId, limits, keyId) => decideBy('check', accountId, limits, keyId),
    // To the limiter that counted it. A failed give-back leaves the request counted: the 304
    // then shows the windows as the take left them.
    async giveBack(accountId, limits, taken) {
      if (taken.source === 'memory') return opts.fallback.giveBack(accountId, limits, taken);
      try {
        return await opts.primary.giveBack(accountId, limits, taken);
      } catch (err) {
        opts.logger.warn({ err }, 'rate window give-back failed: the request stays counted');
        return taken;
      }
    },
  };
}
