import { startRedis, type ServerHandle } from '@cds/testkit';
import { createLogger } from '@cds/telemetry';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFailoverRateLimiter } from './failover-limiter.ts';
import { createMemoryRateLimiter } from './memory-limiter.ts';
import { MAX_RATE_BATCH, createRedisRateLimiter, rateKey } from './redis-limiter.ts';

// Each file gets its own Redis server, so killing it cannot disturb other specs.
let server: ServerHandle;
const clients: Redis[] = [];
const connect = () => {
  const r = new Redis(server.url, {
    enableAutoPipelining: true,
    enableOfflineQueue: false,
    commandTimeout: 300,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 100,
  });
  r.on('error', () => {});
  clients.push(r);
  return r;
};
const ready = (r: Redis) =>
  new Promise<void>((resolve) => (r.status === 'ready' ? resolve() : r.once('ready', () => resolve())));

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server.stop();
});

describe('Redis rate windows', () => {
  it('admit exactly the limit under 200 concurrent requests from three replicas', async () => {
    const replicas = [connect(), connect(), connect()];
    await Promise.all(replicas.map(ready));
    const limiters = replicas.map((r) => createRedisRateLimiter(r, { keyPrefix: 'exact:' }));
    const decisions = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        limiters[i % 3]!.take('acc_concurrent', { perMinute: 100, perDay: 100_000 }),
      ),
    );
    const admitted = decisions.filter((d) => d.admitted);
    expect(admitted).toHaveLength(100);
    expect(decisions.filter((d) => !d.admitted).every((d) => d.refusedBy === 'minute' && d.retryAfter >= 1)).toBe(true);
    // Refusals were not counted: the stored minute count is exactly the limit.
    const stored = await replicas[0]!.hget(rateKey('exact:', 'acc_concurrent'), 'mc');
    expect(stored).toBe('100');
    // Each admitted request saw a distinct count.
    expect(new Set(admitted.map((d) => d.minute.remaining)).size).toBe(100);
  });

  it('decides a batch of one event-loop turn in arrival order per account, and batches beyond MAX_RATE_BATCH', async () => {
    const r = connect();
    await ready(r);
    const limiter = createRedisRateLimiter(r, { keyPrefix: 'batch:' });
    // All taken in one turn: they share script calls.
    const mixed = await Promise.all([
      limiter.take('acc_a', { perMinute: 2, perDay: 100 }),
      limiter.take('acc_b', { perMinute: 1, perDay: 100 }),
      limiter.take('acc_a', { perMinute: 2, perDay: 100 }),
      limiter.take('acc_b', { perMinute: 1, perDay: 100 }),
      limiter.take('acc_a', { perMinute: 2, perDay: 100 }),
    ]);
    expect(mixed.map((d) => d.admitted)).toEqual([true, true, true, false, false]);
    expect(mixed.map((d) => d.minute.remaining)).toEqual([1, 0, 0, 0, 0]);
    expect(mixed.map((d) => d.refusedBy)).toEqual([undefined, undefined, undefined, 'minute', 'minute']);
    const many = await Promise.all(
      Array.from({ length: MAX_RATE_BATCH * 2 + 7 }, (_, i) =>
        limiter.take(`acc_many_${i % 300}`, { perMinute: 2, perDay: 10 }),
      ),
    );
    // 300 accounts, each asked once or twice (limit 2): every request admitted, counts 1 then 2.
    expect(many.every((d) => d.admitted && d.source === 'redis')).toBe(true);
    expect(many.filter((d) => d.minute.remaining === 0)).toHaveLength(MAX_RATE_BATCH * 2 + 7 - 300);
  });

  it('takes window boundaries from the Redis clock, and the day window binds when it has fewer left', async () => {
    const r = connect();
    await ready(r);
    const limiter = createRedisRateLimiter(r, { keyPrefix: 'clock:' });
    const [seconds] = await r.time();
    const d = await limiter.take('acc_clock', { perMinute: 10, perDay: 3 });
    expect(Math.abs(d.now - Number(seconds))).toBeLessThanOrEqual(1);
    expect(d.minute.reset).toBe((Math.floor(d.now / 60) + 1) * 60);
    expect(d.day.reset).toBe((Math.floor(d.now / 86400) + 1) * 86400);
    await limiter.take('acc_clock', { perMinute: 10, perDay: 3 });
    await limiter.take('acc_clock', { perMinute: 10, perDay: 3 });
    const refused = await limiter.take('acc_clock', { perMinute: 10, perDay: 3 });
    expect(refused).toMatchObject({ admitted: false, refusedBy: 'day' });
    expect(refused.retryAfter).toBe(refused.day.reset - refused.now);
  });

  it('keeps working after SCRIPT FLUSH (the script is reloaded)', async () => {
    const r = connect();
    await ready(r);
    const limiter = createRedisRateLimiter(r, { keyPrefix: 'flush:' });
    expect((await limiter.take('acc_flush', { perMinute: 5, perDay: 50 })).admitted).toBe(true);
    await r.script('FLUSH');
    const after = await limiter.take('acc_flush', { perMinute: 5, perDay: 50 });
    expect(after).toMatchObject({ admitted: true, source: 'redis' });
    expect(after.minute.remaining).toBe(3);
  });

  it('fails open to the local limiter while Redis is down or frozen, and returns to Redis', async () => {
    const r = connect();
    await ready(r);
    let clock = Date.now();
    const states: string[] = [];
    let fallbacks = 0;
    const limiter = createFailoverRateLimiter({
      primary: createRedisRateLimiter(r, { keyPrefix: 'fo:' }),
      fallback: createMemoryRateLimiter({ nowMs: () => clock }),
      logger: createLogger({ name: 't', level: 'silent' }),
      nowMs: () => clock,
      retryMs: 500,
      events: { onFallback: () => (fallbacks += 1), onStateChange: (s) => states.push(s) },
    });
    const limits = { perMinute: 1000, perDay: 10_000 };
    expect((await limiter.take('acc_fo', limits)).source).toBe('redis');

    await server.kill('SIGSTOP');
    const frozen = await limiter.take('acc_fo', limits);
    expect(frozen).toMatchObject({ admitted: true, source: 'memory' });
    expect((await limiter.take('acc_fo', limits)).source).toBe('memory');
    await server.kill('SIGCONT');

    await server.kill('SIGKILL');
    clock += 1_000;
    expect((await limiter.take('acc_fo', limits)).source).toBe('memory');
    await server.restart();
    await ready(r);
    clock += 1_000;
    const back = await limiter.take('acc_fo', limits);
    expect(back.source).toBe('redis');
    expect(states).toEqual(['fallback', 'primary']);
    expect(fallbacks).toBeGreaterThanOrEqual(3);
  });
});
