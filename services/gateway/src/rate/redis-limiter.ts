import type { Redis } from 'ioredis';
import { decide, type RateDecision, type RateLimiter, type RateLimits } from './windows.ts';

/**
 * Both windows of an account in one hash (one key, so it works on Redis Cluster): the minute and
 * day indexes and their counts. Time comes from Redis (TIME), so every gateway replica agrees on
 * window boundaries whatever its own clock says. Only an admitted request is counted.
 * Returns { admitted, minute count, day count, now seconds }.
 */
export const RATE_WINDOW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local minute = math.floor(now / 60)
local day = math.floor(now / 86400)
local v = redis.call('HMGET', KEYS[1], 'm', 'mc', 'd', 'dc')
local mc = 0
local dc = 0
if tonumber(v[1]) == minute then mc = tonumber(v[2]) or 0 end
if tonumber(v[3]) == day then dc = tonumber(v[4]) or 0 end
local admitted = 0
if mc < tonumber(ARGV[1]) and dc < tonumber(ARGV[2]) then
  mc = mc + 1
  dc = dc + 1
  admitted = 1
  redis.call('HSET', KEYS[1], 'm', minute, 'mc', mc, 'd', day, 'dc', dc)
  redis.call('EXPIREAT', KEYS[1], (day + 1) * 86400 + 3600)
end
return {admitted, mc, dc, now}
`;

type RateWindowCommand = (key: string, perMinute: number, perDay: number) => Promise<[number, number, number, number]>;

/** Key of an account's windows; the braces make it a Redis Cluster hash tag. */
export function rateKey(prefix: string, accountId: string): string {
  return `${prefix}{${accountId}}`;
}

/** The shared, exact limiter: one EVALSHA round trip per request (ioredis reloads the script after a restart). */
export function createRedisRateLimiter(redis: Redis, opts: { keyPrefix?: string } = {}): RateLimiter {
  const prefix = opts.keyPrefix ?? 'cds:rl:';
  if (!('cdsRateWindow' in redis)) {
    redis.defineCommand('cdsRateWindow', { numberOfKeys: 1, lua: RATE_WINDOW_SCRIPT });
  }
  const command = (redis as unknown as { cdsRateWindow: RateWindowCommand }).cdsRateWindow.bind(redis);
  return {
    async take(accountId: string, limits: RateLimits): Promise<RateDecision> {
      const [admitted, mc, dc, now] = await command(rateKey(prefix, accountId), limits.perMinute, limits.perDay);
      return decide(admitted === 1, mc, dc, now, limits, 'redis');
    },
  };
}
