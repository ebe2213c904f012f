import { createHash } from 'node:crypto';
import type { RedisClient } from '@cds/redis';
import { describe, expect, it } from 'vitest';
import { CHALLENGE_TTL_MS, createChallenges, leadingZeroBits, solveChallenge } from './challenge.ts';

/** SET key value PX ms NX over a Map, with the fake clock: all the challenges ask of Redis. */
function fakeRedis(clock: () => number) {
  const keys = new Map<string, number>();
  const redis = {
    set: (key: string, _value: string, _px: 'PX', ms: number, _nx: 'NX') => {
      const until = keys.get(key);
      if (until !== undefined && until > clock()) return Promise.resolve(null);
      keys.set(key, clock() + ms);
      return Promise.resolve('OK');
    },
  };
  return { redis: redis as unknown as RedisClient, keys };
}

const BITS = 8;

function setup() {
  let now = 1_700_000_000_000;
  const clock = () => now;
  const { redis, keys } = fakeRedis(clock);
  const challenges = createChallenges({ redis, prefix: 't:', secret: 's'.repeat(32), clock, bits: BITS });
  return { challenges, keys, advance: (ms: number) => (now += ms) };
}

describe('proof-of-work challenges', () => {
  it('counts leading zero bits', () => {
    expect(leadingZeroBits(new Uint8Array([0, 0, 0x80]))).toBe(16);
    expect(leadingZeroBits(new Uint8Array([0x01]))).toBe(7);
    expect(leadingZeroBits(new Uint8Array([0xff]))).toBe(0);
    expect(leadingZeroBits(new Uint8Array([0, 0]))).toBe(16);
  });

  it('takes a solution once, within its scope, before it expires', async () => {
    const { challenges, keys } = setup();
    const challenge = challenges.issue('signup');
    expect(challenge).toMatch(/^v1\.\d+\.8\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    const nonce = solveChallenge(challenge, BITS);
    const digest = createHash('sha256').update(`${challenge}:${nonce}`).digest();
    expect(leadingZeroBits(digest)).toBeGreaterThanOrEqual(BITS);
    expect(await challenges.verify('login:ann@example.com', challenge, nonce)).toEqual({ ok: false, why: 'forged' });
    expect(await challenges.verify('signup', challenge, nonce)).toEqual({ ok: true });
    expect(keys.size).toBe(1);
    expect(await challenges.verify('signup', challenge, nonce)).toEqual({ ok: false, why: 'reused' });
  });

  it('refuses an expired challenge, a wrong nonce, a forged MAC or difficulty, and junk', async () => {
    const { challenges, advance } = setup();
    const late = challenges.issue('signup');
    const lateNonce = solveChallenge(late, BITS);
    advance(CHALLENGE_TTL_MS + 1);
    expect(await challenges.verify('signup', late, lateNonce)).toEqual({ ok: false, why: 'expired' });

    const challenge = challenges.issue('signup');
    const nonce = solveChallenge(challenge, BITS);
    // A nonce that misses the zero bits (the first one that does, searching from the solution on).
    let wrong = Number(nonce) + 1;
    while (leadingZeroBits(createHash('sha256').update(`${challenge}:${wrong}`).digest()) >= BITS) wrong++;
    expect(await challenges.verify('signup', challenge, String(wrong))).toEqual({ ok: false, why: 'wrong' });
    // A wrong nonce does not use the challenge up.
    const [v, expires, bits, random, mac] = challenge.split('.') as [string, string, string, string, string];
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    expect(await challenges.verify('signup', [v, expires, bits, random, flip(mac)].join('.'), nonce)).toEqual({
      ok: false,
      why: 'forged',
    });
    // A later expiry or fewer bits under the old MAC: forged.
    const longer = [v, String(Number(expires) + 3_600_000), bits, random, mac].join('.');
    expect(await challenges.verify('signup', longer, solveChallenge(longer, BITS))).toEqual({
      ok: false,
      why: 'forged',
    });
    const easier = [v, expires, '0', random, mac].join('.');
    expect(await challenges.verify('signup', easier, '0')).toEqual({ ok: false, why: 'forged' });
    // A challenge signed with another secret.
    const other = createChallenges({
      redis: fakeRedis(() => 0).redis,
      prefix: 't:',
      secret: 'x'.repeat(32),
      clock: () => Number(expires) - CHALLENGE_TTL_MS,
      bits: BITS,
    }).issue('signup');
    expect(await challenges.verify('signup', other, solveChallenge(other, BITS))).toEqual({ ok: false, why: 'forged' });
    expect(await challenges.verify('signup', '', '')).toEqual({ ok: false, why: 'missing' });
    expect(await challenges.verify('signup', challenge, '')).toEqual({ ok: false, why: 'missing' });
    for (const [c, n] of [
      ['', ''],
      [challenge, ''],
      [challenge, '-1'],
      [challenge, '1e3'],
      [challenge, '9'.repeat(21)],
      ['v1.x.8.y.z', '1'],
      ['v2' + challenge.slice(2), nonce],
      [challenge + '.x', nonce],
      ['v1.' + '1'.repeat(300), '1'],
    ] as const) {
      expect((await challenges.verify('signup', c, n)).ok).toBe(false);
    }
    // The genuine one still works after all that.
    expect(await challenges.verify('signup', challenge, nonce)).toEqual({ ok: true });
  });
});
