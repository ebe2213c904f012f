// The rate and usage hashes are a contract with the dashboard (libs/contracts usage-hash.ts): the
// scripts may spell no other field, and what they write to real Redis parses with its schemas.
import {
  RATE_HASH_FIELDS,
  RateHash,
  USAGE_HASH_KEY_FIELD_PREFIX,
  UsageHash,
  currentRateCounts,
  rateHashKey,
  usageByDay,
  usageHashKey,
} from '@cds/contracts';
import { createRedis, type Redis } from '@cds/redis';
import { getTestInfra, uniqueName } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as limiterModule from './redis-limiter.ts';
import { createRedisRateLimiter } from './redis-limiter.ts';
import type { RateDecision, RateLimits } from './windows.ts';

const scripts = Object.entries(limiterModule as Record<string, unknown>).flatMap(([name, value]) =>
  name.endsWith('_SCRIPT') && typeof value === 'string' ? [[name, value] as [string, string]] : [],
);
const contractFields = new Set<string>([...Object.values(RATE_HASH_FIELDS), USAGE_HASH_KEY_FIELD_PREFIX]);

describe("the rate scripts' text", () => {
  it('has the scripts to check', () => {
    expect(scripts.map(([name]) => name)).toEqual(
      expect.arrayContaining(['RATE_WINDOW_SCRIPT', 'RATE_GIVE_BACK_SCRIPT']),
    );
  });

  it.each(scripts)('%s names only the fields of the contract', (_name, lua) => {
    // Every quoted literal that is not a Redis command (or the empty key id) is a hash field name.
    const literals = [...lua.matchAll(/'([^']*)'/g)].map((m) => m[1]!);
    const fields = literals.filter((l) => l !== '' && !/^[A-Z]+$/.test(l));
    expect(fields.length).toBeGreaterThan(0);
    for (const field of fields) expect(contractFields).toContain(field);
  });

  it.each(scripts)('%s reads the windows in the order its positions assume', (_name, lua) => {
    // v[1]..v[4] are used as minute, minute count, day, day count.
    const reads = [...lua.matchAll(/'HMGET',\s*[^,]+,((?:\s*'[^']*',?)+)\)/g)];
    expect(reads.length).toBeGreaterThan(0);
    for (const m of reads) {
      expect([...m[1]!.matchAll(/'([^']*)'/g)].map((f) => f[1])).toEqual([
        RATE_HASH_FIELDS.minute,
        RATE_HASH_FIELDS.minuteCount,
        RATE_HASH_FIELDS.day,
        RATE_HASH_FIELDS.dayCount,
      ]);
    }
  });

  it('builds the keys the contract builds', () => {
    expect(limiterModule.rateKey('cds:rl:', 'acc_1')).toBe(rateHashKey('cds:rl:', 'acc_1'));
    expect(limiterModule.usageKey('cds:usage:', 'acc_1')).toBe(usageHashKey('cds:usage:', 'acc_1'));
  });
});

describe('what the rate script writes to Redis', () => {
  let redis: Redis;
  const ratePrefix = `${uniqueName('hash-rl')}:`;
  const usagePrefix = `${uniqueName('hash-usage')}:`;
  const limits: RateLimits = { perMinute: 50, perDay: 1_000 };
  const counted = (d: RateDecision) => ({
    minute: limits.perMinute - d.minute.remaining,
    day: limits.perDay - d.day.remaining,
  });
  const read = async (accountId: string) => ({
    rate: RateHash.parse(await redis.hgetall(rateHashKey(ratePrefix, accountId))),
    usage: UsageHash.parse(await redis.hgetall(usageHashKey(usagePrefix, accountId))),
  });

  beforeAll(() => {
    redis = createRedis({ url: getTestInfra().redisUrl, name: 'usage-hash-int-spec' });
  });
  afterAll(() => {
    redis?.disconnect();
  });

  it('parses after takes with and without a key id, with the counts the takes decided', async () => {
    const limiter = createRedisRateLimiter(redis, { keyPrefix: ratePrefix, usageKeyPrefix: usagePrefix });
    const keyId = 'key_usagehash01';
    await limiter.take('acc_hash', limits, keyId);
    await limiter.take('acc_hash', limits, keyId);
    const last = await limiter.take('acc_hash', limits);
    expect(last.admitted).toBe(true);

    const { rate, usage } = await read('acc_hash');
    const day = Math.floor(last.now / 86_400);
    expect(rate).toEqual({
      m: Math.floor(last.now / 60),
      mc: counted(last).minute,
      d: day,
      dc: counted(last).day,
    });
    expect(currentRateCounts(rate, last.now)).toEqual(counted(last));
    expect(counted(last).day).toBe(3);
    // Today's count is in the window hash until a later day begins.
    expect(usage.days).toEqual(new Map());
    expect(usageByDay(rate, usage.days)).toEqual(new Map([[day, 3]]));
    expect(usage.keys).toEqual(new Map([[keyId, day]]));
  });

  it('parses after a give-back, with the counts it resolved to', async () => {
    const limiter = createRedisRateLimiter(redis, { keyPrefix: ratePrefix, usageKeyPrefix: usagePrefix });
    await limiter.take('acc_back', limits, 'key_usagehash02');
    const taken = await limiter.take('acc_back', limits, 'key_usagehash02');
    const after = await limiter.giveBack('acc_back', limits, taken);

    const { rate, usage } = await read('acc_back');
    expect(currentRateCounts(rate, after.now)).toEqual(counted(after));
    const day = Math.floor(after.now / 86_400);
    if (rate.d === day) expect(usageByDay(rate, usage.days).get(day)).toBe(counted(after).day);
    expect(usage.keys.get('key_usagehash02')).toBe(Math.floor(taken.now / 86_400));
  });

  it('leaves no hash for an account the script never admitted', async () => {
    const limiter = createRedisRateLimiter(redis, { keyPrefix: ratePrefix, usageKeyPrefix: usagePrefix });
    const refused = await limiter.take('acc_none', { perMinute: 0, perDay: 0 }, 'key_usagehash03');
    expect(refused.admitted).toBe(false);
    expect(await read('acc_none')).toEqual({ rate: {}, usage: { days: new Map(), keys: new Map() } });
  });
});
