import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  newSigningSecret,
  PREVIOUS_SECRET_VALID_MS,
  signDelivery,
  signingSecrets,
  verifySignature,
} from './signature.ts';

const secret = 'whsec_' + 'A'.repeat(43);
const body = '{"id":"evt_0123456789abcdef0123456789abcdef","type":"series.updated"}';
const now = 1_790_000_000;

describe('delivery signatures', () => {
  it('signs HMAC-SHA256 of "<t>.<raw body>" keyed by the whole secret string', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(signDelivery(secret, body, now)).toBe(`t=${now},v1=${expected}`);
    expect(signDelivery(secret, Buffer.from(body), now + 0.9)).toBe(`t=${now},v1=${expected}`);
  });

  it('verifies its own signature within the tolerance, on either side of the clock', () => {
    const header = signDelivery(secret, body, now);
    expect(verifySignature(secret, header, body, now)).toEqual({ ok: true, timestamp: now });
    expect(verifySignature(secret, header, body, now + 300).ok).toBe(true);
    expect(verifySignature(secret, header, body, now - 300).ok).toBe(true);
  });

  it('refuses a stale or future t, a wrong secret, a tampered body, and malformed headers', () => {
    const header = signDelivery(secret, body, now);
    expect(verifySignature(secret, header, body, now + 301)).toMatchObject({ ok: false, reason: 'stale' });
    expect(verifySignature(secret, header, body, now - 301)).toMatchObject({ ok: false, reason: 'stale' });
    expect(verifySignature(newSigningSecret(), header, body, now)).toMatchObject({ ok: false, reason: 'mismatch' });
    expect(verifySignature(secret, header, body.replace('series', 'cot'), now)).toMatchObject({
      ok: false,
      reason: 'mismatch',
    });
    expect(verifySignature(secret, header, `${body} `, now)).toMatchObject({ ok: false, reason: 'mismatch' });
    // A signature moved to another timestamp does not verify (t is inside the MAC).
    const v1 = header.split('v1=')[1]!;
    expect(verifySignature(secret, `t=${now + 10},v1=${v1}`, body, now)).toMatchObject({ reason: 'mismatch' });
    for (const bad of [undefined, '', 'v1=abc', `t=${now}`, `t=x,v1=${v1}`, `t=${now},v1=${v1.slice(2)}`]) {
      expect(verifySignature(secret, bad, body, now)).toMatchObject({ ok: false, reason: 'malformed' });
    }
  });

  it('accepts any matching v1 among several (a receiver during a rotation)', () => {
    const other = signDelivery(newSigningSecret(), body, now).split(',')[1]!;
    const header = `${signDelivery(secret, body, now)},${other}`;
    expect(verifySignature(secret, header, body, now).ok).toBe(true);
  });

  it('signs with every secret given, current first, and each verifies on its own', () => {
    const previous = newSigningSecret();
    const header = signDelivery([secret, previous], body, now);
    const mac = (key: string) => createHmac('sha256', key).update(`${now}.${body}`).digest('hex');
    expect(header).toBe(`t=${now},v1=${mac(secret)},v1=${mac(previous)}`);
    expect(verifySignature(secret, header, body, now).ok).toBe(true);
    expect(verifySignature(previous, header, body, now).ok).toBe(true);
    expect(verifySignature(newSigningSecret(), header, body, now)).toMatchObject({ reason: 'mismatch' });
    expect(() => signDelivery([], body, now)).toThrow();
  });

  it('keeps the secret a rotation replaced for 24 h, then only the new one (injected clock)', () => {
    const rotatedAt = Date.parse('2026-11-27T15:00:00Z');
    const endpoint = {
      secret: 'whsec_new',
      previous_secret: 'whsec_old',
      previous_secret_expires_at: new Date(rotatedAt + PREVIOUS_SECRET_VALID_MS),
    };
    expect(PREVIOUS_SECRET_VALID_MS).toBe(24 * 3_600_000);
    expect(signingSecrets(endpoint, rotatedAt)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(endpoint, rotatedAt + PREVIOUS_SECRET_VALID_MS - 1)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(endpoint, rotatedAt + PREVIOUS_SECRET_VALID_MS)).toEqual(['whsec_new']);
    const never = { secret: 'whsec_only', previous_secret: null, previous_secret_expires_at: null };
    expect(signingSecrets(never, rotatedAt)).toEqual(['whsec_only']);
  });

  it('makes secrets of the documented shape, different each time', () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newSigningSecret()).not.toBe(a);
  });
});
