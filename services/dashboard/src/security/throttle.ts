import type { RedisClient } from '@cds/redis';
import { keyedHash } from './csrf.ts';

export interface ThrottleRule {
  limit: number;
  windowSeconds: number;
}

/**
 * The throttles (docs/dashboard-security.md): per client address, per e-mail address, per mail
 * domain, per account, and the counts past which a form asks for a proof of work (challenge.ts).
 */
export interface ThrottleRules {
  signupPerIp: ThrottleRule;
  /** Per mailbox (the address without its `+tag`). */
  signupPerAddress: ThrottleRule;
  /** Per mail domain (its registrable part): a catch-all domain's sign-ups are one count. */
  signupPerDomain: ThrottleRule;
  /**
   * Every sign-up of the service: never refused on this count, but past `limit` in the window
   * each sign-up needs a proof of work.
   */
  signupTotal: ThrottleRule;
  /** Past these counts (in the windows of signupPerIp and signupPerDomain) a sign-up needs a proof of work. */
  signupChallengeAfter: { perIp: number; perDomain: number };
  loginPerIp: ThrottleRule;
  /**
   * Wrong passwords for one address from one client bucket (security review #7): what locks a
   * guesser out, without letting anyone elsewhere lock the owner out.
   */
  loginPerAddressClient: ThrottleRule;
  /** Wrong passwords for one address from anywhere: a much looser bound against distributed guessing. */
  loginPerAddress: ThrottleRule;
  /** Past this many wrong passwords for an address (in loginPerAddress's window) its log-in needs a proof of work. */
  loginChallengeAfter: number;
  resetPerIp: ThrottleRule;
  resetPerAddress: ThrottleRule;
  /** Webhook endpoints created or saved (each save resolves the URL's host and may read the catalog). */
  webhookSavePerAccount: ThrottleRule;
  /** Test events and re-sends (each makes the notifier POST to the endpoint). */
  webhookSendPerAccount: ThrottleRule;
  /** API keys created (each is an event every gateway replays; the plan also caps active keys). */
  keyCreatePerAccount: ThrottleRule;
  /** API keys revoked (with creation, what a create-revoke loop would churn). */
  keyRevokePerAccount: ThrottleRule;
  /**
   * Explorer session keys replaced at the page's ask (a key the API refused): each is a creation and
   * a revocation on the keys stream, so a page asking in a loop is stopped here.
   */
  sessionKeyReplacePerAccount: ThrottleRule;
  /**
   * Wrong passwords given by a signed-in user (changing the password, deleting the account): its
   * own bucket, so failed log-ins for the address by others never block it.
   */
  accountPasswordPerUser: ThrottleRule;
}

export const DEFAULT_THROTTLES: Readonly<ThrottleRules> = {
  signupPerIp: { limit: 10, windowSeconds: 600 },
  signupPerAddress: { limit: 3, windowSeconds: 3600 },
  signupPerDomain: { limit: 50, windowSeconds: 3600 },
  signupTotal: { limit: 30, windowSeconds: 600 },
  signupChallengeAfter: { perIp: 3, perDomain: 10 },
  loginPerIp: { limit: 30, windowSeconds: 300 },
  loginPerAddressClient: { limit: 10, windowSeconds: 900 },
  loginPerAddress: { limit: 300, windowSeconds: 3600 },
  loginChallengeAfter: 10,
  resetPerIp: { limit: 10, windowSeconds: 600 },
  resetPerAddress: { limit: 3, windowSeconds: 3600 },
  webhookSavePerAccount: { limit: 30, windowSeconds: 600 },
  webhookSendPerAccount: { limit: 30, windowSeconds: 600 },
  keyCreatePerAccount: { limit: 20, windowSeconds: 3600 },
  keyRevokePerAccount: { limit: 20, windowSeconds: 3600 },
  sessionKeyReplacePerAccount: { limit: 30, windowSeconds: 3600 },
  accountPasswordPerUser: { limit: 10, windowSeconds: 900 },
};

export interface ThrottleDecision {
  allowed: boolean;
  /** Attempts counted in the window, this one included. */
  count: number;
  /** Seconds until the window ends (for Retry-After). */
  retryAfter: number;
  /**
   * Takes this attempt back out of its window, for throttles that count only failures: an attempt
   * holds its place while it runs (so parallel ones cannot overshoot the limit) and gives it back
   * when it did not fail.
   */
  refund(): Promise<void>;
}

export interface Throttle {
  /** Counts one attempt of `subject` (an IP or e-mail, hashed before use) in a fixed window. */
  hit(bucket: string, subject: string, rule: ThrottleRule): Promise<ThrottleDecision>;
  /** Attempts of `subject` counted in the current window, without counting one. */
  peek(bucket: string, subject: string, rule: ThrottleRule): Promise<number>;
}

/** Fixed-window counters in Redis (INCR + EXPIRE in one MULTI); subjects stored only as keyed hashes. */
export function createThrottle(deps: {
  redis: RedisClient;
  prefix: string;
  secret: string;
  clock: () => number;
}): Throttle {
  const where = (bucket: string, subject: string, rule: ThrottleRule) => {
    const nowS = Math.floor(deps.clock() / 1000);
    const window = Math.floor(nowS / rule.windowSeconds);
    return { nowS, window, key: `${deps.prefix}th:${bucket}:${keyedHash(deps.secret, 'throttle', subject)}:${window}` };
  };
  return {
    async peek(bucket, subject, rule) {
      return Number((await deps.redis.get(where(bucket, subject, rule).key)) ?? 0);
    },
    async hit(bucket, subject, rule) {
      const { nowS, window, key } = where(bucket, subject, rule);
      const result = await deps.redis
        .multi()
        .incr(key)
        .expire(key, rule.windowSeconds + 1)
        .exec();
      const count = Number(result?.[0]?.[1] ?? 0);
      return {
        allowed: count <= rule.limit,
        count,
        retryAfter: (window + 1) * rule.windowSeconds - nowS,
        // The same window's key, even if the next window has begun meanwhile; the EXPIRE keeps a
        // key that had already expired from lingering.
        refund: async () => {
          await deps.redis
            .multi()
            .decr(key)
            .expire(key, rule.windowSeconds + 1)
            .exec();
        },
      };
    },
  };
}
