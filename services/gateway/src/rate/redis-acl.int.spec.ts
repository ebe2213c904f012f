// Least privilege between services (issue #22, security review #2), Redis side: the gateway connects
// as its own ACL user (libs/testkit identities.ts, as the chart's files/redis-users.acl declares it).
// Its rate windows, usage counts and SSE slots run under that user with the default key prefixes,
// decided by Redis (a refusal would silently fall back to the per-replica limiter, so this spec is
// what proves the rules sufficient); the dashboard's keys and the server's administration are refused.
import { createRedis, type Redis } from '@cds/redis';
import { startRedis, type RedisHandle } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStreamSlots } from '../events/stream-slots.ts';
import { createRedisRateLimiter, rateKey } from './redis-limiter.ts';

let server: RedisHandle;
let gateway: Redis;
let system: Redis;

beforeAll(async () => {
  server = await startRedis();
  gateway = createRedis({ url: server.identities.gateway, name: 'gateway-acl-spec' });
  system = createRedis({ url: server.url, name: 'gateway-acl-spec-system' });
  // What the dashboard keeps: a session (its id's HMAC) and a throttle counter.
  await system.set('cds:dash:sess:abc', '{"user_id":"usr_1"}');
  await system.set('cds:dash:th:login:x:1', '3');
});

afterAll(async () => {
  gateway?.disconnect();
  system?.disconnect();
  await server?.stop();
});

describe("the gateway's Redis user", () => {
  it('runs the rate windows, the usage counts and the give-back in Redis with the default prefixes', async () => {
    const limiter = createRedisRateLimiter(gateway);
    const limits = { perMinute: 2, perDay: 100 };
    const first = await limiter.take('acc_acl', limits, 'key_1');
    expect(first).toMatchObject({ admitted: true, source: 'redis' });
    expect(await limiter.take('acc_acl', limits, 'key_1')).toMatchObject({ admitted: true, source: 'redis' });
    expect(await limiter.take('acc_acl', limits, 'key_1')).toMatchObject({ admitted: false, refusedBy: 'minute' });
    expect(await limiter.giveBack('acc_acl', limits, first)).toMatchObject({ source: 'redis' });
    expect(await system.hget(rateKey('cds:rl:', 'acc_acl'), 'mc')).toBe('1');
    expect(Object.keys(await system.hgetall('cds:usage:{acc_acl}'))).toContain('k:key_1');
  });

  it('takes, lists, refreshes and releases SSE stream slots', async () => {
    const slots = createRedisStreamSlots(gateway, { keyPrefix: 'cds:sse:', ttlMs: 45_000 });
    expect(await slots.acquire('acc_acl', 'm1', 1)).toEqual({ admitted: true, count: 1 });
    expect(await slots.acquire('acc_acl', 'm2', 1)).toEqual({ admitted: false, count: 1 });
    await slots.refresh([{ accountId: 'acc_acl', member: 'm1' }]);
    expect(await slots.members('acc_acl')).toEqual(['m1']);
    await slots.release('acc_acl', 'm1');
    expect(await slots.members('acc_acl')).toEqual([]);
  });

  it("cannot read or change the dashboard's keys (sessions, throttles)", async () => {
    await expect(gateway.get('cds:dash:sess:abc')).rejects.toThrow(/NOPERM/);
    await expect(gateway.del('cds:dash:th:login:x:1')).rejects.toThrow(/NOPERM/);
    await expect(gateway.set('cds:dash:sess:abc', 'forged')).rejects.toThrow(/NOPERM/);
    // Not through a script either: Redis checks the commands a script runs against the same rules.
    await expect(gateway.eval("return redis.call('GET', KEYS[1])", 1, 'cds:dash:sess:abc')).rejects.toThrow(/NOPERM/);
    expect(await system.get('cds:dash:sess:abc')).toBe('{"user_id":"usr_1"}');
  });

  it('cannot flush, list keys, reconfigure the server or change users', async () => {
    await expect(gateway.flushall()).rejects.toThrow(/NOPERM/);
    await expect(gateway.flushdb()).rejects.toThrow(/NOPERM/);
    await expect(gateway.keys('*')).rejects.toThrow(/NOPERM/);
    await expect(gateway.call('CONFIG', 'SET', 'requirepass', 'x')).rejects.toThrow(/NOPERM/);
    await expect(gateway.call('ACL', 'SETUSER', 'gateway', '+@all', '~*')).rejects.toThrow(/NOPERM/);
    expect(await system.dbsize()).toBeGreaterThan(0);
  });

  it('the default user needs its password, and a wrong one is refused', async () => {
    const url = new URL(server.url);
    url.password = 'wrong';
    const wrong = createRedis({ url: url.toString(), name: 'gateway-acl-spec-wrong', maxRetriesPerRequest: 0 });
    const anonymous = createRedis({
      url: `redis://${server.host}:${server.port}`,
      name: 'gateway-acl-spec-anonymous',
      maxRetriesPerRequest: 0,
    });
    try {
      await expect(wrong.ping()).rejects.toThrow(/WRONGPASS|NOAUTH|max retries|Connection is closed/i);
      await expect(anonymous.get('cds:dash:sess:abc')).rejects.toThrow(/NOAUTH|max retries|Connection is closed/i);
    } finally {
      wrong.disconnect();
      anonymous.disconnect();
    }
  });
});
