import { getTestInfra, startRedis, uniqueName, type ServerHandle } from '@cds/testkit';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, defineScript, isRedisUnavailable, type Redis } from './index.ts';

// Admits a request while the counter is below the limit; counts only admitted requests.
const LIMITED_INCR = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current >= tonumber(ARGV[1]) then
  return 0
end
redis.call('INCR', KEYS[1])
if current == 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
`;
const sha = createHash('sha1').update(LIMITED_INCR).digest('hex');

// Keys carry a per-file prefix: files share the run's Redis server.
const prefix = uniqueName('redis');
const clients: Redis[] = [];
const client = (url = getTestInfra().redisUrl, name = 'redis-int-spec'): Redis => {
  const c = createRedis({ url, name });
  clients.push(c);
  return c;
};

afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
});

describe('Lua scripts', () => {
  it('admits exactly `limit` of 200 concurrent calls from several connections', async () => {
    const callers = Array.from({ length: 4 }, () =>
      defineScript<number>(client(), { name: 'limitedIncr', lua: LIMITED_INCR, numberOfKeys: 1 }),
    );
    const key = `${prefix}:window`;
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => callers[i % callers.length]!([key], [37, 60_000])),
    );
    expect(results.filter((r) => r === 1)).toHaveLength(37);
    expect(results.filter((r) => r === 0)).toHaveLength(163);
    expect(await clients[0]!.get(key)).toBe('37');
    expect(await clients[0]!.pttl(key)).toBeGreaterThan(50_000);
  });

  it('reloads the script after SCRIPT FLUSH (EVALSHA answered NOSCRIPT)', async () => {
    const redis = client();
    const call = defineScript<number>(redis, { name: 'limitedIncr', lua: LIMITED_INCR, numberOfKeys: 1 });
    expect(await call([`${prefix}:flush`], [5, 60_000])).toBe(1);
    expect(await redis.script('EXISTS', sha)).toEqual([1]);
    await redis.script('FLUSH');
    expect(await redis.script('EXISTS', sha)).toEqual([0]);
    expect(await call([`${prefix}:flush`], [5, 60_000])).toBe(1);
    expect(await redis.script('EXISTS', sha)).toEqual([1]);
    expect(await redis.get(`${prefix}:flush`)).toBe('2');
  });

  it('rejects a wrong key count and a name clash', async () => {
    const redis = client();
    const call = defineScript<number>(redis, { name: 'limitedIncr', lua: LIMITED_INCR, numberOfKeys: 1 });
    await expect(call([], [1])).rejects.toThrow(/takes 1 keys, got 0/);
    expect(() => defineScript(redis, { name: 'get', lua: 'return 1', numberOfKeys: 0 })).toThrow(
      /already has a command/,
    );
  });
});

describe('a Redis that goes down', () => {
  let own: ServerHandle;
  beforeAll(async () => {
    own = await startRedis();
  });
  afterAll(async () => {
    await own?.stop();
  });

  it('fails fast while down, then recovers, with the script reloaded on the new server', async () => {
    const redis = client(own.url, 'redis-down-spec');
    const call = defineScript<number>(redis, { name: 'limitedIncr', lua: LIMITED_INCR, numberOfKeys: 1 });
    expect(await call(['k'], [10, 60_000])).toBe(1);

    await own.kill('SIGKILL');
    const started = Date.now();
    const err: unknown = await call(['k'], [10, 60_000]).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(err).toBeInstanceOf(Error);
    expect(isRedisUnavailable(err)).toBe(true);

    // Persistence is off in tests, so the restarted server is empty and has no cached scripts.
    await own.restart();
    const deadline = Date.now() + 10_000;
    let result: unknown;
    while (Date.now() < deadline) {
      result = await call(['k'], [10, 60_000]).catch((e: unknown) => e);
      if (result === 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(result).toBe(1);
    expect(await redis.get('k')).toBe('1');
  });

  it('without the offline queue, fails a command at once while disconnected', async () => {
    const redis = createRedis({
      url: own.url,
      name: 'redis-no-queue-spec',
      offlineQueue: false,
      maxRetriesPerRequest: 0,
    });
    clients.push(redis);
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    expect(await redis.ping()).toBe('PONG');
    await own.kill('SIGKILL');
    await new Promise<void>((resolve) => (redis.status === 'ready' ? redis.once('close', () => resolve()) : resolve()));
    const err: unknown = await redis.ping().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    // Refused without queueing (a queued command would wait for a reconnection or its timeout).
    expect((err as Error).message).toMatch(/enableOfflineQueue/);
    expect(isRedisUnavailable(err)).toBe(true);
    await own.restart();
  });

  it('does not classify a script error as unavailability', async () => {
    const redis = client(own.url, 'redis-error-spec');
    const broken = defineScript<number>(redis, { name: 'broken', lua: "return redis.call('NOPE')", numberOfKeys: 0 });
    const err: unknown = await broken([], []).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(isRedisUnavailable(err)).toBe(false);
  });
});
