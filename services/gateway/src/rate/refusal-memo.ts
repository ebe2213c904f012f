import type { RateDecision, RateLimiter, RateLimits } from './windows.ts';

interface Kept {
  perMinute: number;
  perDay: number;
  decision: RateDecision;
  /** Local time of the decision. */
  atMs: number;
  /** Local time up to which the refusal stands (a second before the binding window resets). */
  untilMs: number;
}

/**
 * A decision taken at local time `atMs`, answered again at `nowMs` from memory: its clock and
 * Retry-After moved on by the whole seconds elapsed, marked `kept`.
 */
export function keptDecision(decision: RateDecision, atMs: number, nowMs: number): RateDecision {
  const elapsed = Math.floor((nowMs - atMs) / 1_000);
  return {
    ...decision,
    now: decision.now + elapsed,
    retryAfter: Math.max(1, decision.retryAfter - elapsed),
    source: 'kept',
  };
}

/**
 * Keeps the refusals of `limiter` (Redis): once an account's window is spent, this replica refuses
 * its requests itself until the window resets, instead of asking Redis again for each. A client
 * looping past its limit otherwise costs its Redis shard one script call per request
 * (docs/operations.md "Capacity model"). It never admits more: a spent window stays spent until its
 * reset (nothing else decrements it, but a give-back, which drops the account's kept refusal here).
 * The reset is Redis's whole second, so the refusal is kept until a second before it: in that
 * last second Redis decides again. The kept answer is the refusal as Redis gave it, its clock and
 * Retry-After moved on by the time elapsed. A change of plan (other limits) asks Redis again.
 * At most `maxAccounts` refusals are kept (the oldest goes first).
 *
 * It sits in front of the failover limiter (main.ts): a kept refusal is no answer from Redis, so it
 * must not tell the failover limiter that Redis is back; and while Redis is down, a refusal kept
 * before still stands, which is more exact than the per-replica fallback.
 */
export function createRefusalMemo(
  limiter: RateLimiter,
  opts: { nowMs: () => number; maxAccounts?: number },
): RateLimiter {
  const maxAccounts = opts.maxAccounts ?? 10_000;
  const kept = new Map<string, Kept>();

  function keptFor(accountId: string, limits: RateLimits): RateDecision | undefined {
    const k = kept.get(accountId);
    if (k === undefined) return undefined;
    const now = opts.nowMs();
    if (now >= k.untilMs || k.perMinute !== limits.perMinute || k.perDay !== limits.perDay) {
      kept.delete(accountId);
      return undefined;
    }
    return keptDecision(k.decision, k.atMs, now);
  }

  function keep(accountId: string, limits: RateLimits, decision: RateDecision): RateDecision {
    if (decision.admitted || decision.source !== 'redis') return decision;
    const reset = decision.refusedBy === 'day' ? decision.day.reset : decision.minute.reset;
    const atMs = opts.nowMs();
    const untilMs = atMs + (reset - decision.now - 1) * 1_000;
    if (untilMs <= atMs) return decision;
    kept.delete(accountId);
    if (kept.size >= maxAccounts) kept.delete(kept.keys().next().value as string);
    kept.set(accountId, { perMinute: limits.perMinute, perDay: limits.perDay, decision, atMs, untilMs });
    return decision;
  }

  return {
    async take(accountId, limits, keyId) {
      return keptFor(accountId, limits) ?? keep(accountId, limits, await limiter.take(accountId, limits, keyId));
    },
    async check(accountId, limits, keyId) {
      return keptFor(accountId, limits) ?? keep(accountId, limits, await limiter.check(accountId, limits, keyId));
    },
    giveBack(accountId, limits, taken) {
      // A request counted earlier is given back: the window may have room again.
      kept.delete(accountId);
      return limiter.giveBack(accountId, limits, taken);
    },
  };
}
