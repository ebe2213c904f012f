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
 * then tried again with the next request; the first success switches back. The fallback counts
 * no per-day usage (the dashboard's usage figures miss the requests it decided).
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
  const fallback = (accountId: string, limits: RateLimits): Promise<RateDecision> => {
    opts.events?.onFallback?.();
    return opts.fallback.take(accountId, limits);
  };
  return {
    state: () => state,
    async take(accountId, limits, keyId) {
      if (opts.nowMs() < downUntil) return fallback(accountId, limits);
      try {
        const decision = await opts.primary.take(accountId, limits, keyId);
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
        return fallback(accountId, limits);
      }
    },
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
