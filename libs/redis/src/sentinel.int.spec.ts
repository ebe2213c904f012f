import { redisCommand, startRedisSentinel, waitUntil, type RedisSentinelHandle } from '@cds/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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

describe('Redis with Sentinel: faults around a failover', () => {
  let redis: RedisSentinelHandle | undefined;
  let client: Redis | undefined;
  const errors: string[] = [];

  /** The gateway's settings (commands fail at once while disconnected), on a fresh Sentinel set. */
  async function setUp(): Promise<{ redis: RedisSentinelHandle; client: Redis }> {
    redis = await startRedisSentinel();
    errors.length = 0;
    client = createRedis({
      url: redis.identities.gateway,
      name: 'gateway',
      sentinels: redis.sentinels,
      sentinelName: redis.name,
      maxRetriesPerRequest: 0,
      offlineQueue: false,
      onError: (err) => errors.push(err.message),
    });
    await waitUntil('the client ready', () => Promise.resolve(expect(client?.status).toBe('ready')), 10_000);
    return { redis, client };
  }

  /** Ms until the window script runs again (on a primary: it writes). */
  async function runsAgain(count: (keys: string[], args: (string | number)[]) => Promise<number>, since: number) {
    await waitUntil(
      'the window script running again',
      async () => {
        await count(['cds:rl:fault-spec'], [600_000]);
      },
      20_000,
    );
    return Date.now() - since;
  }

  afterEach(async () => {
    client?.disconnect();
    await redis?.stop();
    client = undefined;
    redis = undefined;
  });

  it('a paused sentinel first in line and a +switch-master during the reconnect do not stop the client', async () => {
    // Before: the reconnect asked the paused sentinel with no deadline and waited forever ('connecting');
    // with a deadline, the +switch-master that ioredis's failover detector received mid-connect aborted
    // it and the client ended for good (status 'end', 'Connection is closed.').
    const { redis, client } = await setUp();
    const count = defineScript<number>(client, { name: 'faultWindow', lua: WINDOW, numberOfKeys: 1 });
    expect(await count(['cds:rl:fault-spec'], [600_000])).toBe(1);
    // Sentinel 0 answered the first connect, so the client asks it first again.
    await redis.signalSentinel(0, 'SIGSTOP');
    try {
      const killedAt = Date.now();
      // The old primary is gone, and the script writes: running again means on the promoted replica.
      await redis.killPrimary();
      const ms = await runsAgain(count, killedAt);
      expect(client.status).toBe('ready');
      // The failover itself takes about 2 s (1 s down-after); each round of the reconnect costs the
      // paused sentinel's command timeout (1 s).
      expect(ms).toBeLessThan(15_000);
      expect(errors).not.toContain('Connection is closed.');
    } finally {
      await redis.signalSentinel(0, 'SIGCONT');
    }
  }, 90_000);

  it('follows a failover that leaves the old primary up, and closes its sentinel listeners when it quits', async () => {
    const { redis, client } = await setUp();
    const count = defineScript<number>(client, { name: 'faultWindow', lua: WINDOW, numberOfKeys: 1 });
    expect(await count(['cds:rl:fault-spec'], [600_000])).toBe(1);
    const before = await redis.primaryPort();
    const sentinelPort = redis.sentinels[1]!.port;
    expect(await redisCommand(sentinelPort, ['SENTINEL', 'FAILOVER', redis.name])).toBe('OK');
    const startedAt = Date.now();
    const after = await redis.waitForFailover(before, 30_000);
    expect(after).not.toBe(before);
    await runsAgain(count, startedAt);
    expect((client.stream as { remotePort?: number }).remotePort).toBe(after);
    // Each sentinel holds one listener connection of the client (named gateway:failover) until it quits.
    const listeners = async () => {
      let n = 0;
      for (const s of redis.sentinels) {
        const list = await redisCommand(s.port, ['CLIENT', 'LIST']);
        if (typeof list !== 'string') throw new Error(`CLIENT LIST answered ${JSON.stringify(list)}`);
        n += list.split('\n').filter((line) => line.includes('name=gateway:failover')).length;
      }
      return n;
    };
    expect(await listeners()).toBe(3);
    await client.quit();
    await waitUntil('the listeners closed', async () => expect(await listeners()).toBe(0), 5_000);
  }, 90_000);
});
