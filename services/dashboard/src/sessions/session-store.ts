import { randomBytes } from 'node:crypto';
import type { RedisClient } from '@cds/redis';
import { keyedHash } from '../security/csrf.ts';

export interface SessionPolicy {
  /** A session ends after this long without a request… */
  idleMs: number;
  /** …and at the latest this long after log-in. */
  absoluteMs: number;
}

export interface SessionRecord {
  user_id: string;
  /** Log-in time (ms since the epoch). */
  created_ms: number;
  /** Last request (ms since the epoch). */
  seen_ms: number;
}

export type SessionStatus = 'active' | 'idle_expired' | 'absolute_expired';

/** Whether a session is still usable at `nowMs` (pure; Redis TTLs enforce the same bounds). */
export function sessionStatus(record: SessionRecord, nowMs: number, policy: SessionPolicy): SessionStatus {
  if (nowMs - record.created_ms >= policy.absoluteMs) return 'absolute_expired';
  if (nowMs - record.seen_ms >= policy.idleMs) return 'idle_expired';
  return 'active';
}

/** How long Redis keeps the session after a request at `nowMs`: the idle time, cut at the absolute end. */
export function sessionTtlMs(record: SessionRecord, nowMs: number, policy: SessionPolicy): number {
  return Math.max(1, Math.min(policy.idleMs, record.created_ms + policy.absoluteMs - nowMs));
}

export interface Session extends SessionRecord {
  /** The cookie value (random 32 bytes); only its keyed hash is a Redis key. */
  id: string;
}

export interface SessionStore {
  create(userId: string): Promise<Session>;
  /** The live session of a cookie value (touching its idle timer), or undefined. */
  get(id: string): Promise<Session | undefined>;
  destroy(id: string): Promise<void>;
  /** Ends every session of a user (password reset, account deletion). */
  destroyAllForUser(userId: string): Promise<void>;
}

const ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** What names a session in Redis: the keyed hash of its id (`<prefix>sess:<ref>`), never the id. */
export function sessionRef(secret: string, id: string): string {
  return keyedHash(secret, 'session', id);
}

/** Server-side sessions in Redis: `<prefix>sess:<hmac(id)>` → JSON, expiring with the policy. */
export function createSessionStore(deps: {
  redis: RedisClient;
  prefix: string;
  secret: string;
  policy: SessionPolicy;
  clock: () => number;
  /**
   * Told of each session ended here (log-out, log-out everywhere, found expired), by its ref, after
   * it is deleted: the session's API key is revoked (SessionKeys.end). Must not throw.
   */
  onEnd?: (ref: string) => Promise<void>;
}): SessionStore {
  const { redis, prefix, policy, clock } = deps;
  const sessPrefix = `${prefix}sess:`;
  const keyOf = (id: string) => `${sessPrefix}${sessionRef(deps.secret, id)}`;
  const userSetOf = (userId: string) => `${prefix}user-sess:${userId}`;
  const ended = async (key: string) => {
    if (deps.onEnd !== undefined && key.startsWith(sessPrefix)) await deps.onEnd(key.slice(sessPrefix.length));
  };

  return {
    async create(userId) {
      const id = randomBytes(32).toString('base64url');
      const now = clock();
      const record: SessionRecord = { user_id: userId, created_ms: now, seen_ms: now };
      const key = keyOf(id);
      // The session's key and its user's set live in different slots on Redis Cluster, so no
      // MULTI over both: the set learns the key first, so a session can never exist unlisted
      // (destroyAllForUser would miss it); a failure after that leaves only a listed key that
      // never existed, which deleting ignores.
      const listed = await redis
        .multi()
        .sadd(userSetOf(userId), key)
        .pexpire(userSetOf(userId), policy.absoluteMs)
        .exec();
      if (listed === null) throw new Error('session listing was aborted');
      for (const [err] of listed) if (err) throw err;
      await redis.set(key, JSON.stringify(record), 'PX', sessionTtlMs(record, now, policy));
      return { id, ...record };
    },

    async get(id) {
      if (!ID_PATTERN.test(id)) return undefined;
      const key = keyOf(id);
      const stored = await redis.get(key);
      if (stored === null) return undefined;
      let record: SessionRecord;
      try {
        record = JSON.parse(stored) as SessionRecord;
      } catch {
        return undefined;
      }
      const now = clock();
      if (sessionStatus(record, now, policy) !== 'active') {
        await redis.del(key);
        await ended(key);
        return undefined;
      }
      const touched = { ...record, seen_ms: now };
      // XX: a session deleted since the GET (log-out, reset, deletion) stays deleted.
      const kept = await redis.set(key, JSON.stringify(touched), 'PX', sessionTtlMs(touched, now, policy), 'XX');
      if (kept === null) return undefined;
      return { id, ...touched };
    },

    async destroy(id) {
      if (!ID_PATTERN.test(id)) return;
      // Deleted first: a key being made for it meanwhile then sees the session gone (session-keys.ts).
      await redis.del(keyOf(id));
      await ended(keyOf(id));
    },

    async destroyAllForUser(userId) {
      const keys = await redis.smembers(userSetOf(userId));
      // One DEL per key: on Redis Cluster the keys are in different slots.
      await Promise.all(
        keys.map(async (key) => {
          await redis.del(key);
          await ended(key);
        }),
      );
      await redis.del(userSetOf(userId));
    },
  };
}
