import { createRedis, type Redis } from '@cds/redis';
import { startRedis, type ServerHandle } from '@cds/testkit';
import { createLogger } from '@cds/telemetry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFailoverRateLimiter } from './failover-limiter.ts';
import { createMemoryRateLimiter } from './memory-limiter.ts';
import { MAX_RATE_BATCH, createRedisRateLimiter, rateKey, usageKey } from './redis-limiter.ts';

// Each file gets its own Redis server, so killing it cannot disturb other specs.
let server: ServerHandle;
const clients: Redis[] = [];
// Configured as main.ts configures the gateway's client (bounded, no offline queue), with a shorter timeout.
const connect = () => {
  const r = createRedis({
    url: server.url,
    name: 'rate-int-spec',
    commandTimeoutMs: 300,
    maxRetriesPerRequest: 0,
    offlineQueue: false,
  });
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
    const first = await limiter.take('acc_fo', limits, 'key_fo');
    expect(first.source).toBe('redis');
    // The key id reaches the Redis limiter through the failover one.
    expect(await r.hget(usageKey('cds:usage:', 'acc_fo'), 'k:key_fo')).toBe(String(Math.floor(first.now / 86_400)));

    await server.kill('SIGSTOP');
    const frozen = await limiter.take('acc_fo', limits);
    expect(frozen).toMatchObject({ admitted: true, source: 'memory' });
    expect((await limiter.take('acc_fo', limits)).source).toBe('memory');
    // Time to try Redis again: one request tries (and waits out the timeout), the others meanwhile
    // are decided by the fallback at once.
    clock += 1_000;
    let probed = false;
    const probe = limiter.take('acc_fo', limits).then((d) => ((probed = true), d));
    const meanwhile = await Promise.all([limiter.take('acc_fo', limits), limiter.take('acc_fo', limits)]);
    expect(meanwhile.map((d) => d.source)).toEqual(['memory', 'memory']);
    expect(probed).toBe(false);
    expect((await probe).source).toBe('memory');
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

describe('per-day usage, counted in the same script call', () => {
  const dayOf = (now: number) => Math.floor(now / 86_400);

  it("counts the day's usage in the window hash and records each key's last-used day, once a day per replica", async () => {
    const r = connect();
    await ready(r);
    const limiter = createRedisRateLimiter(r, { keyPrefix: 'u1:rl:', usageKeyPrefix: 'u1:usage:' });
    const limits = { perMinute: 100, perDay: 1000 };
    const decisions = await Promise.all([
      limiter.take('acc_u1', limits, 'key_a'),
      limiter.take('acc_u1', limits, 'key_a'),
      limiter.take('acc_u1', limits, 'key_b'),
    ]);
    const last = await limiter.take('acc_u1', limits, 'key_a');
    const day = dayOf(last.now);
    expect(decisions.every((d) => d.admitted)).toBe(true);
    // Today's count is the day window's; the usage hash gets it once a later day begins.
    expect(await r.hmget(rateKey('u1:rl:', 'acc_u1'), 'd', 'dc')).toEqual([String(day), '4']);
    const usage = usageKey('u1:usage:', 'acc_u1');
    expect(await r.hgetall(usage)).toEqual({ 'k:key_a': String(day), 'k:key_b': String(day) });
    // Both expire 35 days after the end of the account's last day.
    expect(await r.expiretime(usage)).toBe((day + 36) * 86_400);
    expect(await r.expiretime(rateKey('u1:rl:', 'acc_u1'))).toBe((day + 36) * 86_400);
    // This replica recorded key_a today: it does not write the field again.
    await r.hdel(usage, 'k:key_a');
    await limiter.take('acc_u1', limits, 'key_a');
    expect(await r.hexists(usage, 'k:key_a')).toBe(0);
    // Another replica has recorded nothing yet, so its first request of the key writes it.
    const other = createRedisRateLimiter(r, { keyPrefix: 'u1:rl:', usageKeyPrefix: 'u1:usage:' });
    await other.take('acc_u1', limits, 'key_a');
    expect(await r.hget(usage, 'k:key_a')).toBe(String(day));
    // Without a key id, the request is counted and no key field is written.
    await limiter.take('acc_u1', limits);
    expect(await r.hgetall(usage)).toEqual({ 'k:key_a': String(day), 'k:key_b': String(day) });
    expect(await r.hget(rateKey('u1:rl:', 'acc_u1'), 'dc')).toBe('7');
  });

  it('forgets the days it recorded when a call fails (Redis may have lost them)', async () => {
    const r = connect();
    await ready(r);
    const limiter = createRedisRateLimiter(r, { keyPrefix: 'u5:rl:', usageKeyPrefix: 'u5:usage:' });
    const limits = { perMinute: 100, perDay: 1000 };
    const usage = usageKey('u5:usage:', 'acc_u5');
    await limiter.take('acc_u5', limits, 'key_a');
    await r.del(usage);
    // Dropped and reconnecting: without an offline queue the call fails at once.
    const reconnected = new Promise((resolve) => r.once('ready', resolve));
    r.disconnect(true);
    await expect(limiter.take('acc_u5', limits, 'key_a')).rejects.toThrow();
    await reconnected;
    const d = await limiter.take('acc_u5', limits, 'key_a');
    expect(await r.hgetall(usage)).toEqual({ 'k:key_a': String(dayOf(d.now)) });
  });

  it('does not count a refused request, nor record its key', async () => {
    const r = connect();
    await ready(r);
    const limiter = createRedisRateLimiter(r, { keyPrefix: 'u2:rl:', usageKeyPrefix: 'u2:usage:' });
    const limits = { perMinute: 2, perDay: 1000 };
    const decisions = await Promise.all([
      limiter.take('acc_u2', limits, 'key_a'),
      limiter.take('acc_u2', limits, 'key_a'),
      limiter.take('acc_u2', limits, 'key_refused'),
      limiter.take('acc_u2', limits, 'key_refused'),
    ]);
    expect(decisions.map((d) => d.admitted)).toEqual([true, true, false, false]);
    const day = dayOf(decisions[0].now);
    expect(await r.hgetall(usageKey('u2:usage:', 'acc_u2'))).toEqual({ 'k:key_a': String(day) });
    expect(await r.hget(rateKey('u2:rl:', 'acc_u2'), 'dc')).toBe('2');
    // A request refused by the day window is not counted either.
    const byDay = createRedisRateLimiter(r, { keyPrefix: 'u2d:rl:', usageKeyPrefix: 'u2d:usage:' });
    const dayLimited = await Promise.all([
      byDay.take('acc_u2d', { perMinute: 10, perDay: 1 }, 'key_a'),
      byDay.take('acc_u2d', { perMinute: 10, perDay: 1 }, 'key_b'),
    ]);
    expect(dayLimited.map((d) => d.refusedBy)).toEqual([undefined, 'day']);
    expect(await r.hgetall(usageKey('u2d:usage:', 'acc_u2d'))).toEqual({ 'k:key_a': String(day) });
    expect(await r.hget(rateKey('u2d:rl:', 'acc_u2d'), 'dc')).toBe('1');
  });

  it("moves a day's count to the usage hash on the first admitted request of a later day, which prunes days older than 31", async () => {
    const r = connect();
    await ready(r);
    const limits = { perMinute: 100, perDay: 1000 };
    const [seconds] = await r.time();
    const day = dayOf(Number(seconds));
    const usage = usageKey('u3:usage:', 'acc_u3');
    const window = rateKey('u3:rl:', 'acc_u3');
    const seeded = { [day - 40]: '7', [day - 31]: '6', [day - 30]: '5', 'k:key_old': String(day - 40) };
    // Today already counted (not the first request of the day): the usage hash keeps its days.
    await r.hset(window, { m: 0, mc: 0, d: day, dc: 9 });
    await r.hset(usage, seeded);
    await createRedisRateLimiter(r, { keyPrefix: 'u3:rl:', usageKeyPrefix: 'u3:usage:' }).take(
      'acc_u3',
      limits,
      'key_new',
    );
    expect(await r.hgetall(usage)).toEqual({ ...seeded, 'k:key_new': String(day) });
    expect(await r.hmget(window, 'd', 'dc')).toEqual([String(day), '10']);
    // The window still on an earlier day (the account's last active day, four days ago): this
    // request is the first of today, so that day's count moves to the usage hash and days before
    // day - 30 are pruned.
    await r.del(usage);
    await r.hset(window, { m: 0, mc: 0, d: day - 4, dc: 4 });
    await r.hset(usage, seeded);
    const d = await createRedisRateLimiter(r, { keyPrefix: 'u3:rl:', usageKeyPrefix: 'u3:usage:' }).take(
      'acc_u3',
      limits,
      'key_new',
    );
    expect(dayOf(d.now)).toBe(day);
    expect(await r.hgetall(usage)).toEqual({
      [day - 30]: '5',
      [day - 4]: '4',
      // Key fields are bounded by the account's keys and kept while the account is active.
      'k:key_old': String(day - 40),
      'k:key_new': String(day),
    });
    expect(await r.hmget(window, 'd', 'dc')).toEqual([String(day), '1']);
  });

  it("writes each account's usage in its own hashes when one call carries several accounts", async () => {
    const r = connect();
    await ready(r);
    const limiter = createRedisRateLimiter(r, { keyPrefix: 'u4:rl:', usageKeyPrefix: 'u4:usage:' });
    const limits = { perMinute: 3, perDay: 1000 };
    const decisions = await Promise.all([
      limiter.take('acc_x', limits, 'key_x1'),
      limiter.take('acc_y', limits, 'key_y1'),
      limiter.take('acc_x', limits, 'key_x2'),
      limiter.take('acc_y', { perMinute: 1, perDay: 1000 }, 'key_y2'),
      limiter.take('acc_x', limits, 'key_x2'),
      limiter.take('acc_x', limits, 'key_x3'),
    ]);
    expect(decisions.map((d) => d.admitted)).toEqual([true, true, true, false, true, false]);
    const day = dayOf(decisions[0].now);
    expect(await r.hgetall(usageKey('u4:usage:', 'acc_x'))).toEqual({
      'k:key_x1': String(day),
      'k:key_x2': String(day),
    });
    expect(await r.hgetall(usageKey('u4:usage:', 'acc_y'))).toEqual({ 'k:key_y1': String(day) });
    expect(await r.hget(rateKey('u4:rl:', 'acc_x'), 'dc')).toBe('3');
    expect(await r.hget(rateKey('u4:rl:', 'acc_y'), 'dc')).toBe('1');
    // Same hash tag as the window hash: one cluster slot per account.
    expect([rateKey('cds:rl:', 'acc_x'), usageKey('cds:usage:', 'acc_x')]).toEqual([
      'cds:rl:{acc_x}',
      'cds:usage:{acc_x}',
    ]);
  });
});

describe('checking a request that does not count (a 304 from the gateway cache)', () => {
  const limits = { perMinute: 2, perDay: 10 };

  it('decides as a take would, counts nothing, and records the key as used', async () => {
    const r = connect();
    await ready(r);
    const limiter = createRedisRateLimiter(r, { keyPrefix: 'ck:', usageKeyPrefix: 'cku:' });
    // Nothing counted yet: admitted with the windows full, and no window hash written.
    const first = await limiter.check('acc_ck', limits, 'key_1');
    expect([first.admitted, first.minute.remaining, first.day.remaining]).toEqual([true, 2, 10]);
    expect(await r.exists(rateKey('ck:', 'acc_ck'))).toBe(0);
    const day = String(Math.floor(first.now / 86_400));
    expect(await r.hgetall(usageKey('cku:', 'acc_ck'))).toEqual({ 'k:key_1': day });
    expect(await r.ttl(usageKey('cku:', 'acc_ck'))).toBeGreaterThan(35 * 86_400 - 60);
    // The same windows as take + give-back would leave, in one call.
    await limiter.take('acc_ck', limits, 'key_1');
    const checked = await limiter.check('acc_ck', limits, 'key_2');
    expect([checked.admitted, checked.minute.remaining, checked.day.remaining]).toEqual([true, 1, 9]);
    expect(await r.hmget(rateKey('ck:', 'acc_ck'), 'mc', 'dc')).toEqual(['1', '1']);
    expect(await r.hgetall(usageKey('cku:', 'acc_ck'))).toEqual({ 'k:key_1': day, 'k:key_2': day });
    // An exhausted window refuses a check as it refuses a take (429: never a 304 past the limit).
    await limiter.take('acc_ck', limits);
    const refused = await limiter.check('acc_ck', limits, 'key_3');
    expect([refused.admitted, refused.refusedBy, refused.minute.remaining]).toEqual([false, 'minute', 0]);
    expect(await r.hexists(usageKey('cku:', 'acc_ck'), 'k:key_3')).toBe(0);
    expect(await r.hmget(rateKey('ck:', 'acc_ck'), 'mc', 'dc')).toEqual(['2', '2']);
  });

  it('the memory limiter checks the same way, and the failover limiter falls back for checks too', async () => {
    const nowMs = Date.UTC(2026, 10, 24, 12, 0, 30);
    const memory = createMemoryRateLimiter({ nowMs: () => nowMs });
    expect((await memory.check('acc_mc', limits)).minute.remaining).toBe(2);
    await memory.take('acc_mc', limits);
    expect((await memory.check('acc_mc', limits)).minute.remaining).toBe(1);
    await memory.take('acc_mc', limits);
    const refused = await memory.check('acc_mc', limits);
    expect([refused.admitted, refused.minute.remaining]).toEqual([false, 0]);
    const failover = createFailoverRateLimiter({
      primary: {
        take: () => Promise.reject(new Error('down')),
        check: () => Promise.reject(new Error('down')),
        giveBack: () => Promise.reject(new Error('down')),
      },
      fallback: memory,
      logger: createLogger({ name: 'rate-int-spec', level: 'silent' }),
      nowMs: () => nowMs,
    });
    const byMemory = await failover.check('acc_mc', limits, 'key_1');
    expect([byMemory.source, byMemory.admitted]).toEqual(['memory', false]);
    expect(failover.state()).toBe('fallback');
  });
});

describe('giving back a request (a 304 does not count)', () => {
  const limits = { perMinute: 5, perDay: 10 };

  it('decrements exactly the minute and day counts the take incremented, and reports the windows after it', async () => {
    const r = connect();
    await ready(r);
    const limiter = createRedisRateLimiter(r, { keyPrefix: 'gb:', usageKeyPrefix: 'gbu:' });
    await limiter.take('acc_gb', limits, 'key_1');
    const taken = await limiter.take('acc_gb', limits, 'key_1');
    expect(taken.minute.remaining).toBe(3);
    const after = await limiter.giveBack('acc_gb', limits, taken);
    expect([after.minute.remaining, after.day.remaining, after.admitted]).toEqual([4, 9, true]);
    expect(await r.hmget(rateKey('gb:', 'acc_gb'), 'mc', 'dc')).toEqual(['1', '1']);
    const day = String(Math.floor(taken.now / 86_400));
    const usage = await r.hgetall(usageKey('gbu:', 'acc_gb'));
    // The day's usage is the day count (the usage hash gets it once the day is over); the key was
    // used, so its last-used day stays.
    expect(usage).toEqual({ 'k:key_1': day });
    // Taking again counts from there: the windows are as if the given-back request never came.
    const again = await limiter.take('acc_gb', limits, 'key_1');
    expect(again.minute.remaining).toBe(3);
    // Give-backs of one event-loop turn go in one call, decided in order.
    const both = await Promise.all([
      limiter.giveBack('acc_gb', limits, again),
      limiter.giveBack('acc_gb', limits, taken),
    ]);
    expect(both.map((d) => d.minute.remaining)).toEqual([4, 5]);
    expect(await r.hmget(rateKey('gb:', 'acc_gb'), 'mc', 'dc')).toEqual(['0', '0']);
  });

  it('gives nothing back to a window that reset since the take, and never goes below zero', async () => {
    const r = connect();
    await ready(r);
    const limiter = createRedisRateLimiter(r, { keyPrefix: 'gbr:', usageKeyPrefix: 'gbru:' });
    const taken = await limiter.take('acc_gbr', limits);
    // The same request as if taken in the previous minute and day: nothing of it is in today's counts.
    const old = { ...taken, now: taken.now - 86_400 };
    const after = await limiter.giveBack('acc_gbr', limits, old);
    expect([after.minute.remaining, after.day.remaining]).toEqual([4, 9]);
    expect(await r.hmget(rateKey('gbr:', 'acc_gbr'), 'mc', 'dc')).toEqual(['1', '1']);
    await limiter.giveBack('acc_gbr', limits, taken);
    const twice = await limiter.giveBack('acc_gbr', limits, taken);
    expect([twice.minute.remaining, twice.day.remaining]).toEqual([5, 10]);
    expect(await r.hmget(rateKey('gbr:', 'acc_gbr'), 'mc', 'dc')).toEqual(['0', '0']);
  });

  it('the memory limiter gives back the same way, and the failover limiter to the limiter that counted', async () => {
    let nowMs = Date.UTC(2026, 10, 24, 12, 0, 30);
    const memory = createMemoryRateLimiter({ nowMs: () => nowMs });
    await memory.take('acc_m', limits);
    const taken = await memory.take('acc_m', limits);
    expect(taken.minute.remaining).toBe(3);
    const after = await memory.giveBack('acc_m', limits, taken);
    expect([after.minute.remaining, after.day.remaining]).toEqual([4, 9]);
    nowMs += 60_000; // the next minute: the minute count reset, the day's is still given back
    const next = await memory.take('acc_m', limits);
    const back = await memory.giveBack('acc_m', limits, taken);
    expect([next.minute.remaining, next.day.remaining]).toEqual([4, 8]);
    expect([back.minute.remaining, back.day.remaining]).toEqual([4, 9]);

    const failover = createFailoverRateLimiter({
      primary: {
        take: () => Promise.reject(new Error('down')),
        check: () => Promise.reject(new Error('down')),
        giveBack: () => Promise.reject(new Error('must not be asked')),
      },
      fallback: memory,
      logger: createLogger({ name: 'rate-int-spec', level: 'silent' }),
      nowMs: () => nowMs,
    });
    const byMemory = await failover.take('acc_f', limits);
    expect(byMemory.source).toBe('memory');
    expect((await failover.giveBack('acc_f', limits, byMemory)).minute.remaining).toBe(5);
  });
});
