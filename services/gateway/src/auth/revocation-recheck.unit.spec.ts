import { Readable } from 'node:stream';
import { buildOpenApiDocument } from '@cds/contracts';
import { createLogger } from '@cds/telemetry';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import type { Principal } from '../keys/key-table.ts';
import type { QueryClient } from '../proxy/query-client.ts';
import { createMemoryRateLimiter } from '../rate/memory-limiter.ts';
import type { RateLimiter } from '../rate/windows.ts';

const KEY = 'a'.repeat(40);
const principal: Principal = { keyId: 'key_00000001', accountId: 'acc_00000001', plan: 'enterprise' };

/** A gateway whose rate windows answer when the spec says, and whose key is revoked when it says. */
function gateway() {
  const state = { revoked: false, revocations: 0, lookups: 0, release: () => undefined as void };
  const memory = createMemoryRateLimiter({ nowMs: Date.now });
  const held: RateLimiter = {
    ...memory,
    take: (...args) =>
      new Promise((resolve) => {
        state.release = () => void memory.take(...args).then(resolve);
      }),
  };
  const query: QueryClient = {
    get: () =>
      Promise.resolve({
        statusCode: 200,
        headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': '11' },
        body: Readable.from([Buffer.from('{"data":[]}')]),
      }),
    close: () => Promise.resolve(),
  };
  const app = buildApp({
    keys: {
      lookup: () => {
        state.lookups += 1;
        return state.revoked ? undefined : principal;
      },
      isReady: () => true,
      revocations: () => state.revocations,
    },
    rateLimiter: held,
    query,
    logger: createLogger({ name: 'gateway', level: 'silent' }),
    nowMs: Date.now,
    publicBaseUrl: 'https://api.example.com',
    openapiDocument: buildOpenApiDocument(),
  });
  return { app, state };
}

const untilTaken = async (state: { release: () => void }) => {
  const noop = state.release;
  while (state.release === noop) await new Promise((r) => setImmediate(r));
};

describe('a revocation learned while a request waits for its rate windows', () => {
  it('refuses that request 401 (with its rate headers) instead of answering it', async () => {
    const { app, state } = gateway();
    const pending = app.inject({ url: '/api/v1/commodities', headers: { authorization: `Bearer ${KEY}` } });
    await untilTaken(state);
    state.revoked = true;
    state.revocations += 1;
    state.release();
    const res = await pending;
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ error: { code: 'unauthorized' } });
    expect(res.headers['x-ratelimit-limit']).toBeDefined();
    await app.close();
  });

  it('answers as before when no revocation arrived meanwhile, without looking the key up again', async () => {
    const { app, state } = gateway();
    const pending = app.inject({ url: '/api/v1/commodities', headers: { authorization: `Bearer ${KEY}` } });
    await untilTaken(state);
    state.release();
    expect((await pending).statusCode).toBe(200);
    expect(state.lookups).toBe(1);
    // another key's revocation meanwhile: looked up again, still valid
    const second = app.inject({ url: '/api/v1/commodities', headers: { authorization: `Bearer ${KEY}` } });
    await untilTaken(state);
    state.revocations += 1;
    state.release();
    expect((await second).statusCode).toBe(200);
    expect(state.lookups).toBe(3);
    await app.close();
  });
});
