import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RedisClient } from '@cds/redis';

/**
 * Proof-of-work challenges (hashcash style) for the forms an outsider can repeat cheaply: sign-up
 * during a burst, and log-in for an address with many wrong passwords. The server issues
 * `v1.<expires ms>.<bits>.<random>.<mac>`, an HMAC-signed, stateless challenge bound to a scope
 * (`signup`, `login:<address>`); the browser (assets/dashboard.js, crypto.subtle) finds a decimal
 * nonce whose SHA-256 of `<challenge>:<nonce>` starts with `bits` zero bits; the server checks
 * the shape, the MAC, the expiry and the zero bits (one SHA-256), then marks the challenge used
 * with SET NX, so one solution serves one request.
 */

/** Leading zero bits asked of a solution: 2^16 ≈ 65,000 SHA-256 on average (figures in docs/dashboard-security.md). */
export const DEFAULT_CHALLENGE_BITS = 16;
/** A challenge's life: long enough to fill the form, short enough that solutions cannot be stockpiled. */
export const CHALLENGE_TTL_MS = 10 * 60_000;
const MAX_CHALLENGE_LENGTH = 200;
const MAX_NONCE_LENGTH = 20;
const RANDOM = /^[A-Za-z0-9_-]{22}$/;
const DIGITS = /^[0-9]{1,20}$/;

/** Why a presented solution is refused. */
export type ChallengeRefusal = 'missing' | 'malformed' | 'forged' | 'expired' | 'wrong' | 'reused';

export interface Challenges {
  readonly bits: number;
  /** A fresh challenge for `scope`. */
  issue(scope: string): string;
  /** Checks a solution; on success the challenge is used up. Never throws for bad input. */
  verify(scope: string, challenge: string, nonce: string): Promise<{ ok: true } | { ok: false; why: ChallengeRefusal }>;
}

/** Leading zero bits of a digest. */
export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

const digestOf = (challenge: string, nonce: string) => createHash('sha256').update(`${challenge}:${nonce}`).digest();

/** Finds a nonce for `challenge` (tests, and the figures in the docs; the browser has its own copy). */
export function solveChallenge(challenge: string, bits: number): string {
  for (let n = 0; ; n++) {
    if (leadingZeroBits(digestOf(challenge, String(n))) >= bits) return String(n);
  }
}

export function createChallenges(deps: {
  redis: RedisClient;
  prefix: string;
  secret: string;
  clock: () => number;
  bits?: number;
}): Challenges {
  const bits = deps.bits ?? DEFAULT_CHALLENGE_BITS;
  const mac = (scope: string, body: string) =>
    createHmac('sha256', deps.secret).update(`pow:${scope}:${body}`).digest('base64url');
  return {
    bits,
    issue(scope) {
      const body = `v1.${deps.clock() + CHALLENGE_TTL_MS}.${bits}.${randomBytes(16).toString('base64url')}`;
      return `${body}.${mac(scope, body)}`;
    },
    async verify(scope, challenge, nonce) {
      // No nonce: the form was sent without its script (or before it ran), whatever the challenge.
      if (nonce === '') return { ok: false, why: 'missing' };
      if (challenge.length > MAX_CHALLENGE_LENGTH || nonce.length > MAX_NONCE_LENGTH || !DIGITS.test(nonce)) {
        return { ok: false, why: 'malformed' };
      }
      const parts = challenge.split('.');
      if (parts.length !== 5 || parts[0] !== 'v1') return { ok: false, why: 'malformed' };
      const [, expiresText = '', bitsText = '', random = '', presentedMac = ''] = parts;
      const expires = Number(expiresText);
      const asked = Number(bitsText);
      if (!Number.isSafeInteger(expires) || !Number.isSafeInteger(asked) || !RANDOM.test(random)) {
        return { ok: false, why: 'malformed' };
      }
      const expected = Buffer.from(mac(scope, parts.slice(0, 4).join('.')));
      const presented = Buffer.from(presentedMac);
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
        return { ok: false, why: 'forged' };
      }
      // One issued before the setting was raised asks too little: refused like a forgery.
      if (asked < bits) return { ok: false, why: 'forged' };
      const left = expires - deps.clock();
      if (left <= 0) return { ok: false, why: 'expired' };
      if (leadingZeroBits(digestOf(challenge, nonce)) < asked) return { ok: false, why: 'wrong' };
      const fresh = await deps.redis.set(`${deps.prefix}pow:${random}`, '1', 'PX', left + 1_000, 'NX');
      return fresh === 'OK' ? { ok: true } : { ok: false, why: 'reused' };
    },
  };
}
