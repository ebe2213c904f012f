import type { Redis } from 'ioredis';
import { decide, type RateDecision, type RateLimiter, type RateLimits } from './windows.ts';

/**
 * Both windows of each account in one hash per account: the minute and day indexes and their
 * counts. Time comes from Redis (TIME), so every gateway replica agrees on window boundaries
 * whatever its own clock says. Only an admitted request is counted.
 *
 * One call takes the windows of a whole batch of requests (KEYS[i] with ARGV[2i-1], ARGV[2i] =
 * its per-minute and per-day limits), in order and atomically, so two requests of one account in
 * a batch count one after the other exactly as two calls would. Returns
 * { admitted_1, minute count_1, day count_1, ..., admitted_n, minute count_n, day count_n, now }.
 */
export const RATE_WINDOW_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local minute = math.floor(now / 60)
local day = math.floor(now / 86400)
local out = {}
for i, key in ipairs(KEYS) do
  local v = redis.call('HMGET', key, 'm', 'mc', 'd', 'dc')
  local mc = 0
  local dc = 0
  if tonumber(v[1]) == minute then mc = tonumber(v[2]) or 0 end
  if tonumber(v[3]) == day then dc = tonumber(v[4]) or 0 end
  local admitted = 0
  if mc < tonumber(ARGV[2 * i - 1]) and dc < tonumber(ARGV[2 * i]) then
    mc = mc + 1
    dc = dc + 1
    admitted = 1
    redis.call('HSET', key, 'm', minute, 'mc', mc, 'd', day, 'dc', dc)
    redis.call('EXPIREAT', key, (day + 1) * 86400 + 3600)
  end
  out[#out + 1] = admitted
  out[#out + 1] = mc
  out[#out + 1] = dc
end
out[#out + 1] = now
return out
`;

type RateWindowCommand = (numberOfKeys: number, ...keysThenLimits: (string | number)[]) => Promise<number[]>;

/** Most requests whose windows go to Redis in one call. */
export const MAX_RATE_BATCH = 256;

export function rateKey(prefix: string, accountId: string): string {
  return `${prefix}{${accountId}}`;
}

interface Waiting {
  key: string;
  limits: RateLimits;
  resolve: (d: RateDecision) => void;
  reject: (err: unknown) => void;
}

/**
 * The rate windows in Redis. The requests that arrive in one turn of the event loop (several under
 * load) share one script call: one command, one reply and one Lua invocation instead of one each,
 * which is most of what the windows cost the gateway. A failed call fails every request of its
 * batch (the failover limiter then answers them).
 */
export function createRedisRateLimiter(redis: Redis, opts: { keyPrefix?: string } = {}): RateLimiter {
  const prefix = opts.keyPrefix ?? 'cds:rl:';
  if (!('cdsRateWindows' in redis)) {
    redis.defineCommand('cdsRateWindows', { lua: RATE_WINDOW_SCRIPT });
  }
  const command = (redis as unknown as { cdsRateWindows: RateWindowCommand }).cdsRateWindows.bind(redis);
  const waiting: Waiting[] = [];

  const flush = (): void => {
    const batch = waiting.splice(0, MAX_RATE_BATCH);
    if (waiting.length > 0) setImmediate(flush);
    const args: (string | number)[] = batch.map((w) => w.key);
    for (const w of batch) args.push(w.limits.perMinute, w.limits.perDay);
    command(batch.length, ...args).then(
      (reply) => {
        const now = reply[reply.length - 1]!;
        for (const [i, w] of batch.entries()) {
          w.resolve(decide(reply[3 * i] === 1, reply[3 * i + 1]!, reply[3 * i + 2]!, now, w.limits, 'redis'));
        }
      },
      (err: unknown) => {
        for (const w of batch) w.reject(err);
      },
    );
  };

  return {
    take(accountId: string, limits: RateLimits): Promise<RateDecision> {
      return new Promise((resolve, reject) => {
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ key: rateKey(prefix, accountId), limits, resolve, reject });
      });
    },
  };
}
