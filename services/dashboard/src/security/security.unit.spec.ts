import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { csrfToken, csrfValid, keyedHash } from './csrf.ts';
import { escapeHtml, html, raw } from './html.ts';
import {
  createPasswordHasher,
  DEFAULT_SCRYPT,
  hashPassword,
  PasswordHasherBusyError,
  passwordProblem,
  verifyPassword,
} from './password.ts';

describe('password policy', () => {
  it('refuses short, over-long, repetitive, common and address-based passwords', () => {
    expect(passwordProblem('short')).toBe('Use at least 12 characters.');
    expect(passwordProblem('a'.repeat(129))).toBe('Use at most 128 characters.');
    expect(passwordProblem('abababababab')).toBe('Use more different characters.');
    expect(passwordProblem('Password1234')).toBe('This password is too common; choose another.');
    expect(passwordProblem('my adalovelace pw', 'adalovelace@example.test')).toBe(
      'Do not use your e-mail address in the password.',
    );
  });
  it('refuses the shipped list of common passwords (10,000 and more), whatever their case', () => {
    const listed = readFileSync(new URL('./common-passwords.txt', import.meta.url), 'utf8').split('\n');
    expect(listed.filter((line) => line !== '').length).toBeGreaterThanOrEqual(10_000);
    for (const common of ['qwerty123456', '1qaz2wsx3edc', 'Administrator', 'LEAVEMEALONE', 'qwertyuiopas']) {
      expect(passwordProblem(common), common).toBe('This password is too common; choose another.');
    }
  });
  it('accepts a passphrase, counting characters rather than UTF-16 units', () => {
    expect(passwordProblem('correct horse battery staple')).toBeNull();
    expect(passwordProblem('ünïcödé pässwörd')).toBeNull();
    expect(passwordProblem('😀'.repeat(11))).toBe('Use at least 12 characters.');
  });
});

describe('scrypt hashing', () => {
  const params = { N: 2 ** 10, r: 8, p: 1 };
  it('verifies the right password only, with a fresh salt each time and the parameters stored', async () => {
    const a = await hashPassword('correct horse battery staple', params);
    const b = await hashPassword('correct horse battery staple', params);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^scrypt\$1024\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await verifyPassword('correct horse battery staple', a)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', a)).toBe(false);
  });
  it('never matches a malformed hash', async () => {
    for (const bad of ['', 'scrypt$x$8$1$AAAA$BBBB', 'bcrypt$1$2$3$4$5', 'scrypt$1024$8$1$AAAA$short']) {
      expect(await verifyPassword('anything at all', bad)).toBe(false);
    }
  });
  it('burns the same work for unknown users', async () => {
    await expect(createPasswordHasher(params).burn('whatever')).resolves.toBeUndefined();
  });
  it("hashes at OWASP's parameters by default (N = 2^17, r = 8, p = 1: 128 MiB, within maxmem)", async () => {
    expect(DEFAULT_SCRYPT).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    const stored = await hashPassword('correct horse battery staple');
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(await verifyPassword('correct horse battery staple', stored)).toBe(true);
  });
  it('still verifies older, weaker hashes, and asks for a re-hash of those only', async () => {
    const old = await hashPassword('correct horse battery staple', params);
    const hasher = createPasswordHasher({ N: 2 ** 11, r: 8, p: 1 });
    expect(await hasher.verify('correct horse battery staple', old, 'anonymous')).toBe(true);
    expect(hasher.needsRehash(old)).toBe(true);
    expect(hasher.needsRehash(await hasher.hash('correct horse battery staple', 'user'))).toBe(false);
    expect(hasher.needsRehash(await hashPassword('x', { N: 2 ** 12, r: 8, p: 1 }))).toBe(false);
    expect(hasher.needsRehash('not a hash')).toBe(false);
  });
  it('refuses, without running it, a stored hash that asks for more memory than any hash here', async () => {
    const absurd = ['scrypt', 2 ** 30, 8, 1, 'AAAAAAAAAAAAAAAAAAAAAA==', Buffer.alloc(32).toString('base64')].join('$');
    expect(await verifyPassword('anything at all', absurd)).toBe(false);
  });
  it('runs one hash at a time and refuses past its queue, as a busy error rather than memory spent', async () => {
    const hasher = createPasswordHasher(params, {
      concurrent: 1,
      waiting: 1,
      anonymousWaiting: 1,
      anonymous: { burst: 10, perSecond: 1 },
    });
    const stored = await hashPassword('correct horse battery staple', params);
    const [first, second, third] = await Promise.allSettled([
      hasher.verify('correct horse battery staple', stored, 'user'),
      hasher.verify('correct horse battery staple', stored, 'user'),
      hasher.verify('correct horse battery staple', stored, 'user'),
    ]);
    expect(first).toEqual({ status: 'fulfilled', value: true });
    expect(second).toEqual({ status: 'fulfilled', value: true });
    expect(third?.status === 'rejected' && third.reason instanceof PasswordHasherBusyError).toBe(true);
    // The queue drains: later checks run again.
    expect(await hasher.verify('correct horse battery staple', stored, 'user')).toBe(true);
  });
});

describe('CSRF tokens', () => {
  const secret = 's'.repeat(32);
  it('accepts the token of its own binding only', () => {
    const t = csrfToken(secret, 'session-a');
    expect(csrfValid(secret, 'session-a', t)).toBe(true);
    expect(csrfValid(secret, 'session-b', t)).toBe(false);
    expect(csrfValid('x'.repeat(32), 'session-a', t)).toBe(false);
  });
  it('refuses missing, empty, non-string and oversized tokens and missing bindings', () => {
    const t = csrfToken(secret, 'session-a');
    expect(csrfValid(secret, 'session-a', undefined)).toBe(false);
    expect(csrfValid(secret, 'session-a', '')).toBe(false);
    expect(csrfValid(secret, 'session-a', [t])).toBe(false);
    expect(csrfValid(secret, 'session-a', t + 'x'.repeat(200))).toBe(false);
    expect(csrfValid(secret, undefined, t)).toBe(false);
    expect(csrfValid(secret, '', csrfToken(secret, ''))).toBe(false);
  });
  it('hashes ids and addresses per purpose', () => {
    expect(keyedHash(secret, 'session', 'x')).not.toBe(keyedHash(secret, 'throttle', 'x'));
    expect(keyedHash(secret, 'session', 'x')).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('HTML escaping', () => {
  it('escapes text and attribute metacharacters', () => {
    expect(escapeHtml(`<script>alert("x")</script>&'\``)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;&#96;',
    );
  });
  it('escapes every interpolation of the html tag, arrays included, but not nested html', () => {
    const label = '"><img src=x onerror=alert(1)>';
    const out = html`<a title="${label}">${[label, html`<b>${label}</b>`]}</a>`.value;
    expect(out).not.toContain('<img');
    expect(out).toContain('<b>&quot;&gt;&lt;img');
    expect(html`${null}${undefined}${false}${0}`.value).toBe('0');
    expect(html`${raw('<svg></svg>')}`.value).toBe('<svg></svg>');
  });
});
