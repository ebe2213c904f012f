// No component's Redis user can change another's keys (REDIS_ACL_RULES, the chart's files/redis-users.conf),
// decided by a real Redis: the gateway's windows, usage counts and SSE slots, and the dashboard's
// sessions and throttles, each writable by its owner only. Above all, the internet-facing gateway can
// neither read nor forge a dashboard session (which would carry any user_id: an account takeover).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_IDENTITIES, type RedisIdentity } from './identities.ts';
import { redisCommand, type RedisHandle, startRedis } from './index.ts';

let server: RedisHandle;

/** Runs one command as `id` (its ACL user and password, from the URL the testkit gives it). */
function as(id: RedisIdentity | 'default', words: string[]) {
  const url = new URL(id === 'default' ? server.url : server.identities[id]);
  return redisCommand(server.port, words, {
    auth: { user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) },
  });
}

/** A key of each prefix, and who owns it (the services' default prefixes). */
const KEYS: Record<string, RedisIdentity> = {
  'cds:rl:{acc_1}': 'gateway',
  'cds:usage:{acc_1}': 'gateway',
  'cds:sse:{acc_1}': 'gateway',
  'cds:dash:sess:0f0e': 'dashboard',
  'cds:dash:th:login:x:1': 'dashboard',
};

/** Writes of every kind the two users hold between them: none may touch a key of another owner. */
const WRITES = (key: string): string[][] => [
  ['SET', key, 'forged'],
  ['DEL', key],
  ['HSET', key, 'user_id', 'usr_victim'],
  ['PEXPIRE', key, '1'],
  ['EXPIRE', key, '1'],
  ['INCR', key],
  ['SADD', key, 'x'],
  ['ZADD', key, '1', 'x'],
  ['EVAL', "return redis.call('SET', KEYS[1], 'forged')", '1', key],
];

beforeAll(async () => {
  server = await startRedis();
  await as('default', ['SET', 'cds:dash:sess:0f0e', '{"user_id":"usr_1"}']);
});

afterAll(async () => {
  await server?.stop();
});

describe('Redis users (REDIS_ACL_RULES)', () => {
  it('exist for the components that use Redis only', () => {
    expect([...REDIS_IDENTITIES].sort()).toEqual(['dashboard', 'gateway']);
  });

  it.each(REDIS_IDENTITIES)("refuse %s every write to another component's keys", async (id) => {
    for (const [key, owner] of Object.entries(KEYS)) {
      if (owner === id) continue;
      for (const words of WRITES(key)) {
        // Commands a user may not run at all are refused as NOPERM too: either way nothing is written.
        await expect(as(id, words), `${id}: ${words.join(' ')}`).rejects.toThrow(/NOPERM/);
      }
    }
    expect(await as('default', ['GET', 'cds:dash:sess:0f0e'])).toBe('{"user_id":"usr_1"}');
  });

  it("let the gateway not even read a dashboard session; the dashboard reads the gateway's windows and usage only", async () => {
    await expect(as('gateway', ['GET', 'cds:dash:sess:0f0e'])).rejects.toThrow(/NOPERM/);
    await as('default', ['HSET', 'cds:usage:{acc_1}', 'k:key_1', '3']);
    expect(await as('dashboard', ['HGETALL', 'cds:usage:{acc_1}'])).toEqual(['k:key_1', '3']);
    await expect(as('dashboard', ['HGETALL', 'cds:sse:{acc_1}'])).rejects.toThrow(/NOPERM/);
  });

  it('let each write its own keys', async () => {
    expect(await as('dashboard', ['SET', 'cds:dash:th:login:x:1', '1'])).toBe('OK');
    expect(await as('gateway', ['HSET', 'cds:rl:{acc_1}', 'mc', '1'])).toBe(1);
    expect(await as('gateway', ['ZADD', 'cds:sse:{acc_1}', '1', 'm1'])).toBe(1);
  });
});
