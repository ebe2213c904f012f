import { keptDecision } from './refusal-memo.ts';
import type { RateDecision, RateLimiter, RateLimits } from './windows.ts';

/** Every this many 304s of an account (on one replica), one counts against its windows as a request. */
export const NOT_MODIFIED_PER_COUNTED = 10;

interface Streak {
  /** 304s of the account since its last counted one (0 to NOT_MODIFIED_PER_COUNTED - 1). */
  sinceCounted: number;
  /** The account's last admitted decision on this replica (by Redis or the fallback), for local 304s. */
  kept?: {
    decision: RateDecision;
    keyId: string;
    perMinute: number;
    perDay: number;
    /** Local time of the decision. */
    atMs: number;
    /** Local time up to which it stands (a second before its minute resets). */
    untilMs: number;
  };
}

export interface NotModifiedMeter {
  /**
   * Decides a request the cache step answers 304 from memory: every tenth 304 of the account is
   * taken (counted) like any request; the others are not counted, and are admitted from the
   * account's last decision on this replica while it stands (same minute, key and plan, room left
   * in both windows), else checked with the limiter (one call, nothing counted).
   */
  cached(accountId: string, limits: RateLimits, keyId: string): Promise<RateDecision>;
  /** Whether an upstream 304 that the windows step took is given back (false for every tenth: it counts). */
  givesBack(accountId: string): boolean;
  /** Records a decision reached for the account (the windows step's, or a give-back's). */
  saw(accountId: string, limits: RateLimits, keyId: string, decision: RateDecision): void;
}

/**
 * The secondary limit on 304s (docs/decisions.md "Rate limits: 304s count at a tenth"): a 304 does
 * not count against the windows, but one in NOT_MODIFIED_PER_COUNTED of an account's 304s does,
 * so a client that only revalidates still fills its windows, at a tenth of the rate, and is then
 * refused 429 (and its refusal kept, refusal-memo.ts). Between two counted ones the 304s of a
 * streak are decided here, from the account's last decision on this replica, without a Redis
 * call: a client looping If-None-Match costs Redis one call per ten requests, then none once
 * refused. Per replica: each counts a tenth of the 304s it answers. A local answer can admit a 304
 * that another replica's requests have just made over the limit (at most nine per streak and
 * replica): 304s were free before, and the next counted one refuses.
 * At most `maxAccounts` accounts are followed (the least recently seen goes first; a dropped
 * account starts a new streak, which only asks the limiter more).
 */
export function createNotModifiedMeter(
  limiter: RateLimiter,
  opts: { nowMs: () => number; maxAccounts?: number; perCounted?: number },
): NotModifiedMeter {
  const maxAccounts = opts.maxAccounts ?? 10_000;
  const perCounted = opts.perCounted ?? NOT_MODIFIED_PER_COUNTED;
  const streaks = new Map<string, Streak>();

  /** The account's streak, moved to the back of the eviction order (created when absent). */
  function streakOf(accountId: string): Streak {
    let s = streaks.get(accountId);
    if (s !== undefined) streaks.delete(accountId);
    else {
      s = { sinceCounted: 0 };
      if (streaks.size >= maxAccounts) streaks.delete(streaks.keys().next().value as string);
    }
    streaks.set(accountId, s);
    return s;
  }

  /** One more 304 of the streak: true when it is the one that counts. */
  function counts(s: Streak): boolean {
    s.sinceCounted += 1;
    if (s.sinceCounted < perCounted) return false;
    s.sinceCounted = 0;
    return true;
  }

  function local(s: Streak, limits: RateLimits, keyId: string): RateDecision | undefined {
    const k = s.kept;
    if (k === undefined || k.keyId !== keyId || k.perMinute !== limits.perMinute || k.perDay !== limits.perDay) {
      return undefined;
    }
    const now = opts.nowMs();
    if (now >= k.untilMs || now < k.atMs) return undefined;
    return keptDecision(k.decision, k.atMs, now);
  }

  return {
    cached(accountId, limits, keyId) {
      const s = streakOf(accountId);
      if (counts(s)) return limiter.take(accountId, limits, keyId);
      return Promise.resolve(local(s, limits, keyId) ?? limiter.check(accountId, limits, keyId));
    },
    givesBack(accountId) {
      return !counts(streakOf(accountId));
    },
    saw(accountId, limits, keyId, decision) {
      // Only accounts with a streak (a 304 seen) are followed: other requests cost one lookup here.
      const s = streaks.get(accountId);
      if (s === undefined) return;
      if (!decision.admitted || decision.minute.remaining <= 0 || decision.day.remaining <= 0) {
        // Refused, or no room left: the next 304 asks the limiter (or its kept refusal).
        delete s.kept;
        return;
      }
      // A local answer is no new decision: the one it came from keeps its time.
      if (decision.source === 'kept') return;
      const atMs = opts.nowMs();
      const untilMs = atMs + (decision.minute.reset - decision.now - 1) * 1_000;
      if (untilMs <= atMs) delete s.kept;
      else s.kept = { decision, keyId, perMinute: limits.perMinute, perDay: limits.perDay, atMs, untilMs };
    },
  };
}
