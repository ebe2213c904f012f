import { randomBytes } from 'node:crypto';
import { generateApiKey } from '@cds/contracts';
import { registerErrorHandling } from '@cds/http';
import Fastify from 'fastify';
import { costRatio } from '@cds/http/testing';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../keys/key-table.ts';
import { createAuthStep } from './authenticate.ts';
import { bearerToken, extractKey, MAX_AUTHORIZATION_LENGTH } from './extract-key.ts';
import { FailedAuthLimiter } from './failed-auth-limiter.ts';

const NEW_KEY = generateApiKey(randomBytes);
const OLD_KEY = 'ab'.repeat(20);

/** The auth step alone before a route, with a lookup that records what it was asked. */
function harness() {
  const lookups: string[] = [];
  const principal: Principal = {
    keyId: 'key_00000000000000000001',
    accountId: 'acc_00000000000000000001',
    plan: 'free',
  };
  const app = Fastify();
  registerErrorHandling(app, { publicBaseUrl: 'https://api.example.com' });
  const auth = createAuthStep({
    keys: { lookup: (key) => (lookups.push(key), key === NEW_KEY || key === OLD_KEY ? principal : undefined) },
    failedAuth: new FailedAuthLimiter({ maxFailures: 1_000 }),
    nowMs: () => 0,
  });
  app.get('/x', { preHandler: auth }, (request) => ({ account: request.principal?.accountId }));
  return { app, lookups };
}

describe('the key format at the gateway', () => {
  it('accepts a cds_ key and a 40-hex key from before; a cds_ key with a wrong checksum is a 401 without a lookup', async () => {
    const h = harness();
    for (const key of [NEW_KEY, OLD_KEY]) {
      const res = await h.app.inject({ url: '/x', headers: { authorization: `Bearer ${key}` } });
      expect(res.statusCode, key).toBe(200);
    }
    expect(h.lookups).toEqual([NEW_KEY, OLD_KEY]);
    const last = NEW_KEY.at(-1) === 'A' ? 'B' : 'A';
    const typo = NEW_KEY.slice(0, 20) + (NEW_KEY[20] === 'x' ? 'y' : 'x') + NEW_KEY.slice(21);
    for (const bad of [NEW_KEY.slice(0, -1) + last, typo, `cds_${'0'.repeat(36)}`, NEW_KEY.toUpperCase()]) {
      const res = await h.app.inject({ url: '/x', headers: { authorization: `Bearer ${bad}` } });
      expect(res.statusCode, bad).toBe(401);
      expect(res.json().error).toMatchObject({ code: 'unauthorized' });
    }
    const query = await h.app.inject(`/x?api_key=${NEW_KEY.slice(0, -1)}${last}`);
    expect(query.statusCode).toBe(401);
    expect(h.lookups).toEqual([NEW_KEY, OLD_KEY]);
  });

  it('refuses an Authorization header past its bound unread, with a clear reason', async () => {
    const h = harness();
    const long = `Bearer ${NEW_KEY}${' '.repeat(MAX_AUTHORIZATION_LENGTH)}`;
    const res = await h.app.inject({ url: '/x', headers: { authorization: long } });
    expect(res.statusCode).toBe(401);
    expect(res.json().error.message).toContain(`longer than ${MAX_AUTHORIZATION_LENGTH} characters`);
    // Up to the bound, spacing is allowed.
    const spaced = `Bearer \t ${NEW_KEY} \t`;
    expect((await h.app.inject({ url: '/x', headers: { authorization: spaced } })).statusCode).toBe(200);
    expect(h.lookups).toEqual([NEW_KEY]);
  });
});

describe('bearerToken', () => {
  it('reads `Bearer <token>` and nothing else', () => {
    expect(bearerToken(`Bearer ${OLD_KEY}`)).toBe(OLD_KEY);
    expect(bearerToken(`bEaReR\t${OLD_KEY}  `)).toBe(OLD_KEY);
    for (const bad of [
      `Bearer`,
      `Bearer `,
      `Bearer  `,
      `Bearer${OLD_KEY}`,
      `Basic ${OLD_KEY}`,
      `Bearer ${OLD_KEY} x`,
      `Bearer a b`,
      ` Bearer ${OLD_KEY}`,
      `Bearer ${OLD_KEY}\n`,
      `Bearer k\u00e9y`,
      `Bearer \u00a0${OLD_KEY}`,
    ]) {
      expect(bearerToken(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it('takes time linear in the value: ten times longer costs about ten times more, not a hundred', () => {
    // Inputs that make a backtracking pattern retry from each position: runs of spaces and of token
    // characters that fail only at their very end.
    const shapes = [
      (n: number) => `Bearer ${' '.repeat(n)}x${' '.repeat(n)}y`,
      (n: number) => `Bearer ${'a'.repeat(n)} ${' '.repeat(n)}\u0001`,
      (n: number) => `Bearer${'\t'.repeat(n)}`,
    ];
    for (const shape of shapes) {
      expect(costRatio(bearerToken, shape(20_000), shape(200_000)), shape(3)).toBeLessThan(40);
    }
  });

  it('counts duplicate Authorization fields in the raw headers', () => {
    const twice = extractKey({ authorization: `Bearer ${OLD_KEY}` }, ['Authorization', 'a', 'authorization', 'b'], {});
    expect(twice).toEqual({ ok: false, reason: 'send exactly one Authorization header' });
    expect(extractKey({ authorization: `Bearer ${OLD_KEY}` }, ['AUTHORIZATION', 'x'], {})).toEqual({
      ok: true,
      key: OLD_KEY,
    });
  });
});
