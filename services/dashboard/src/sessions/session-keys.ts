import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RedisClient } from '@cds/redis';
import { AdminRejectedError, type AdminClient } from '../admin/admin-client.ts';
import { sessionRef, type Session, type SessionPolicy } from './session-store.ts';

/** The key the data explorer calls the API with while nothing is pasted: never stored in the browser. */
export interface ExplorerKey {
  key: string;
  key_id: string;
  /** When the admin API revokes it (RFC 3339). */
  expires_at: string;
}

/**
 * Dashboard session keys (docs/dashboard-security.md "Session keys"): one API key per session,
 * made by the admin API (`POST /accounts/:id/session-keys`), reused while more than half its life
 * is left, revoked (`POST /keys/:id/revoke`, the one revocation path) when its session ends.
 */
export interface SessionKeys {
  /**
   * The session's key: the one it holds, or a new one (the one it replaces revoked). `refused`
   * names a key the API answered 401 to (replaced by another session's, or revoked at its end):
   * when it is the one held, a new one is made whatever its age.
   */
  keyFor(session: Session, accountId: string, refused?: string): Promise<ExplorerKey>;
  /**
   * Revokes the key of the session whose Redis reference is `ref` (sessionRef), if it holds one.
   * Never throws: a failure is reported to `onError`, and the key ends at its expiry anyway.
   */
  end(ref: string): Promise<void>;
}

/** The session ended while its key was being made (a log-out in another tab): the key is revoked. */
export class SessionEndedError extends Error {
  override readonly name = 'SessionEndedError';
}

/** Another request of the session is making its key and did not finish within the wait. */
export class SessionKeyBusyError extends Error {
  override readonly name = 'SessionKeyBusyError';
}

/** What Redis keeps per session: the key's id and end in clear, the key itself only sealed. */
interface StoredKey {
  key_id: string;
  expires_ms: number;
  /** base64url of IV (12 B), GCM tag (16 B) and the encrypted key. */
  sealed: string;
}

const LOCK_MS = 10_000;
const WAIT_STEP_MS = 100;

/**
 * Session keys kept at `<prefix>skey:<HMAC(SESSION_SECRET, session id)>` until their end. The key
 * is sealed (AES-256-GCM) under a key derived from the session id, which only the browser's
 * HttpOnly cookie holds (Redis keeps its HMAC): a Redis dump yields no usable API key. A key lives
 * the idle time, cut at the session's absolute end, so it never outlives its session: the admin
 * API's sweep revokes it at that end even when the session ended silently (idle, browser closed).
 */
export function createSessionKeys(deps: {
  redis: RedisClient;
  prefix: string;
  secret: string;
  admin: AdminClient;
  policy: SessionPolicy;
  clock: () => number;
  onError: (err: unknown, what: string) => void;
}): SessionKeys {
  const { redis, prefix, admin, policy, clock } = deps;
  const recordKey = (ref: string) => `${prefix}skey:${ref}`;
  const lockKey = (ref: string) => `${prefix}skey-lock:${ref}`;
  const sealingKey = (sessionId: string) =>
    createHmac('sha256', deps.secret).update(`session-key:${sessionId}`).digest();

  const seal = (sessionId: string, keyId: string, key: string): string => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', sealingKey(sessionId), iv).setAAD(Buffer.from(keyId));
    const body = Buffer.concat([cipher.update(key, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  };
  const unseal = (sessionId: string, stored: StoredKey): string | undefined => {
    try {
      const raw = Buffer.from(stored.sealed, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', sealingKey(sessionId), raw.subarray(0, 12))
        .setAAD(Buffer.from(stored.key_id))
        .setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  };
  const read = async (ref: string): Promise<StoredKey | undefined> => {
    const text = await redis.get(recordKey(ref));
    if (text === null) return undefined;
    try {
      const v = JSON.parse(text) as Partial<StoredKey>;
      if (typeof v.key_id === 'string' && typeof v.expires_ms === 'number' && typeof v.sealed === 'string') {
        return v as StoredKey;
      }
    } catch {
      // A record this code did not write: treated as none (a new key replaces it).
    }
    return undefined;
  };
  /** How long a new key of this session may live: the idle time, cut at the session's absolute end. */
  const lifeMs = (session: Session, now: number) =>
    Math.min(policy.idleMs, session.created_ms + policy.absoluteMs - now);
  /** The stored key, unsealed, while more than half of what a new one would get is left (and not refused). */
  const usable = (
    session: Session,
    stored: StoredKey | undefined,
    now: number,
    refused: string,
  ): ExplorerKey | undefined => {
    if (stored === undefined || stored.key_id === refused) return undefined;
    if (stored.expires_ms - now < lifeMs(session, now) / 2) return undefined;
    const key = unseal(session.id, stored);
    if (key === undefined) return undefined;
    return { key, key_id: stored.key_id, expires_at: new Date(stored.expires_ms).toISOString() };
  };
  const revoke = async (keyId: string) => {
    try {
      await admin.revokeKey(keyId);
    } catch (err) {
      // Revoked already (replaced, expired, the account closed): nothing left to do.
      if (!(err instanceof AdminRejectedError)) throw err;
    }
  };

  const make = async (session: Session, accountId: string, ref: string, refused: string): Promise<ExplorerKey> => {
    const replaced = await read(ref);
    const now = clock();
    const ready = usable(session, replaced, now, refused);
    if (ready !== undefined) return ready;
    const ttlSeconds = Math.max(1, Math.floor(lifeMs(session, now) / 1000));
    const created = await admin.createSessionKey(accountId, ttlSeconds);
    // By this process's clock, as every decision here: an admin API whose clock runs ahead revokes it
    // a little sooner, and the page then asks again (`refused`).
    const expiresMs = now + ttlSeconds * 1000;
    const stored: StoredKey = {
      key_id: created.key_id,
      expires_ms: expiresMs,
      sealed: seal(session.id, created.key_id, created.key),
    };
    await redis.set(recordKey(ref), JSON.stringify(stored), 'PX', Math.max(1, expiresMs - clock()));
    // A log-out that ran meanwhile deleted the session before looking for its key: it may have
    // missed this one, so the key goes now (the session deletes first, then ends its key).
    if ((await redis.get(`${prefix}sess:${ref}`)) === null) {
      await redis.del(recordKey(ref));
      await revoke(created.key_id);
      throw new SessionEndedError('The dashboard session ended while its key was made.');
    }
    if (replaced !== undefined) await revoke(replaced.key_id);
    return { key: created.key, key_id: created.key_id, expires_at: new Date(expiresMs).toISOString() };
  };

  return {
    async keyFor(session, accountId, refused = '') {
      const ref = sessionRef(deps.secret, session.id);
      const ready = usable(session, await read(ref), clock(), refused);
      if (ready !== undefined) return ready;
      // One request of a session makes its key (two tabs opening at once): the others wait for it.
      const deadline = clock() + LOCK_MS;
      for (;;) {
        if ((await redis.set(lockKey(ref), '1', 'PX', LOCK_MS, 'NX')) !== null) {
          try {
            return await make(session, accountId, ref, refused);
          } finally {
            await redis.del(lockKey(ref));
          }
        }
        await sleep(WAIT_STEP_MS);
        const made = usable(session, await read(ref), clock(), refused);
        if (made !== undefined) return made;
        if (clock() > deadline) throw new SessionKeyBusyError('The session key is being made by another request.');
      }
    },

    async end(ref) {
      try {
        const stored = await read(ref);
        if (stored === undefined) return;
        await redis.del(recordKey(ref));
        await revoke(stored.key_id);
      } catch (err) {
        deps.onError(err, 'session key not revoked at the end of its session; it ends at its expiry');
      }
    },
  };
}
