import { startRedisSentinel, waitUntil, type RedisSentinelHandle } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, defineScript, type Redis } from './index.ts';

// A fixed window counter shaped like the gateway's rate script (one key under cds:rl:, EVALSHA
// with an EVAL fallback): what the gateway's ACL user may run.
const WINDOW = `
local n = tonumber(redis.call('HMGET', KEYS[1], 'n')[1] or '0') + 1
redis.call('HSET', KEYS[1], 'n', n)
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
`;

describe('Redis with Sentinel', () => {
  let redis: RedisSentinelHandle;
  let client: Redis;

  beforeAll(async () => {
    redis = await startRedisSentinel();
    // The gateway's settings: REDIS_URL with its user, REDIS_SENTINELS, REDIS_SENTINEL_NAME.
    client = createRedis({
      url: redis.identities.gateway,
      name: 'gateway',
      sentinels: redis.sentinels,
      sentinelName: redis.name,
    });
  }, 60_000);

  afterAll(async () => {
    await client?.quit().catch(() => client.disconnect());
    await redis?.stop();
  });

  it('refuses sentinels without the primary name', () => {
    expect(() => createRedis({ url: 'redis://127.0.0.1:1', name: 'x', sentinels: redis.sentinels })).toThrow(
      /sentinelName/,
    );
  });

  it('follows a failover of the primary and keeps running the window script', async () => {
    const count = defineScript<number>(client, { name: 'sentinelWindow', lua: WINDOW, numberOfKeys: 1 });
    const key = 'cds:rl:sentinel-spec';
    for (let i = 1; i <= 5; i++) expect(await count([key], [600_000])).toBe(i);
    const before = await redis.primaryPort();
    // The replica must hold the writes before the primary goes, or the count restarts: WAIT as
    // the default user (the gateway's user may not run it).
    const admin = createRedis({
      url: redis.url,
      name: 'admin',
      commandTimeoutMs: 10_000,
      sentinels: redis.sentinels,
      sentinelName: redis.name,
    });
    try {
      expect(await admin.wait(1, 5_000)).toBe(1);
    } finally {
      admin.disconnect();
    }

    const killed = await redis.killPrimary();
    expect(killed).toBe(before);
    const after = await redis.waitForFailover(killed, 30_000);
    expect(after).not.toBe(before);

    let n = 0;
    await waitUntil(
      'the client on the new primary',
      async () => {
        n = await count([key], [600_000]);
      },
      15_000,
    );
    expect(n).toBe(6);
    expect(await count([key], [600_000])).toBe(n + 1);
  }, 90_000);
});
