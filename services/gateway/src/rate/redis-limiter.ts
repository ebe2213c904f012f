import { rateHashKey, usageHashKey } from '@cds/contracts';
import type { RedisClient } from '@cds/redis';
import { keySlot } from './key-slot.ts';
import { DAY, MINUTE, decide, type RateDecision, type RateLimiter, type RateLimits } from './windows.ts';

/**
 * The take and the check decide alike and differ only in what an admitted request writes
 * (`admit`, Lua run with `key`, `usage`, `keyId`, `minute`, `day`, `mc`, `dc` in scope): each
 * request's window hash is read, its counts are those of the current minute and day, and it is
 * admitted while both are under its limits.
 */
function windowScript(admit: string): string {
  return `
local t = redis.call('TIME')
local now = tonumber(t[1])
local minute = math.floor(now / 60)
local day = math.floor(now / 86400)
local out = {}
for i = 1, #KEYS / 2 do
  local key = KEYS[2 * i - 1]
  local usage = KEYS[2 * i]
  local keyId = ARGV[3 * i]
  local v = redis.call('HMGET', key, 'm', 'mc', 'd', 'dc')
  local mc = 0
  local dc = 0
  if tonumber(v[1]) == minute then mc = tonumber(v[2]) or 0 end
  if tonumber(v[3]) == day then dc = tonumber(v[4]) or 0 end
  local admitted = 0
  if mc < tonumber(ARGV[3 * i - 2]) and dc < tonumber(ARGV[3 * i - 1]) then
    admitted = 1${admit}
  end
  out[#out + 1] = admitted
  out[#out + 1] = mc
  out[#out + 1] = dc
end
out[#out + 1] = now
return out
`;
}

/**
 * Both windows of each account in one hash per account: the minute and day indexes and their
 * counts. Time comes from Redis (TIME), so every gateway replica agrees on window boundaries
 * whatever its own clock says. Only an admitted request is counted.
 *
 * An admitted request is also recorded in the account's usage hash (same `{account}` hash tag, so
 * the same slot): field `<day index>` = the day's admitted count (the same number as `dc`), and
 * `k:<key id>` = the day index of the key's last admitted request. That is one HSET per admitted
 * request; the expiries and the pruning of days older than 31 days run only on the account's
 * first admitted request of a UTC day (`dc` = 1), since the expiry dates depend on the day alone.
 *
 * One call takes the windows of a whole batch of requests: KEYS[2i-1], KEYS[2i] = request i's
 * window and usage hashes, ARGV[3i-2], ARGV[3i-1], ARGV[3i] = its per-minute and per-day limits
 * and its key id ('' records no key). They are decided in order and atomically, so two requests
 * of one account in a batch count one after the other exactly as two calls would. Returns
 * { admitted_1, minute count_1, day count_1, ..., admitted_n, minute count_n, day count_n, now }.
 */
export const RATE_WINDOW_SCRIPT = windowScript(`
    mc = mc + 1
    dc = dc + 1
    redis.call('HSET', key, 'm', minute, 'mc', mc, 'd', day, 'dc', dc)
    if keyId == '' then
      redis.call('HSET', usage, day, dc)
    else
      redis.call('HSET', usage, day, dc, 'k:' .. keyId, day)
    end
    if dc == 1 then
      redis.call('EXPIREAT', key, (day + 1) * 86400 + 3600)
      redis.call('EXPIREAT', usage, (day + 36) * 86400)
      local fields = redis.call('HKEYS', usage)
      for _, f in ipairs(fields) do
        local d = tonumber(f)
        if d ~= nil and d <= day - 31 then redis.call('HDEL', usage, f) end
      end
    end`);

/**
 * Gives back admitted requests (304s), a batch per call like the take: KEYS[2i-1], KEYS[2i] =
 * request i's window and usage hashes, ARGV[2i-1], ARGV[2i] = the minute and day indexes its take
 * counted it in. The minute count goes down only while the hash still holds that minute, the day
 * count and that day's usage field only while it holds that day (a window that reset since has
 * nothing of it to give back); the usage field is set to the day count again, as the take sets it.
 * The key's last-used day stays (the key was used). Returns { minute count_1, day count_1, ...,
 * now }, each as it is after the give-back for the current minute and day (0 for a window that
 * reset since the take).
 */
export const RATE_GIVE_BACK_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local out = {}
for i = 1, #KEYS / 2 do
  local key = KEYS[2 * i - 1]
  local minute = tonumber(ARGV[2 * i - 1])
  local day = tonumber(ARGV[2 * i])
  local v = redis.call('HMGET', key, 'm', 'mc', 'd', 'dc')
  local m = tonumber(v[1])
  local mc = tonumber(v[2]) or 0
  local d = tonumber(v[3])
  local dc = tonumber(v[4]) or 0
  if m == minute and mc > 0 then
    mc = mc - 1
    redis.call('HSET', key, 'mc', mc)
  end
  if d == day and dc > 0 then
    dc = dc - 1
    redis.call('HSET', key, 'dc', dc)
    local usage = KEYS[2 * i]
    if redis.call('HEXISTS', usage, day) == 1 then redis.call('HSET', usage, day, dc) end
  end
  if m ~= math.floor(now / 60) then mc = 0 end
  if d ~= math.floor(now / 86400) then dc = 0 end
  out[#out + 1] = mc
  out[#out + 1] = dc
end
out[#out + 1] = now
return out
`;

/**
 * Decides requests that do not count (304s answered from the gateway's cache), a batch per call
 * like the take, with the same KEYS and ARGV: admitted while both windows have room, as the take
 * decides, but no count changes, so the windows are as a take and a give-back would leave them, in
 * one call instead of two. An admitted request with a key id records the key's last-used day (the
 * key was used) and keeps the usage hash for 36 days, as the take does. Returns { admitted_1,
 * minute count_1, day count_1, ..., now }.
 */
export const RATE_CHECK_SCRIPT = windowScript(`
    if keyId ~= '' then
      redis.call('HSET', usage, 'k:' .. keyId, day)
      redis.call('EXPIREAT', usage, (day + 36) * 86400)
    end`);

type ScriptCommand = (numberOfKeys: number, ...keysThenArgs: (string | number)[]) => Promise<number[]>;

/** Most requests whose windows go to Redis in one call. */
export const MAX_RATE_BATCH = 256;

/** The account's rate hash (libs/contracts usage-hash.ts: fields m, mc, d, dc; the dashboard reads it too). */
export const rateKey = rateHashKey;

/** The account's usage hash: `<day index>` → admitted that day, `k:<key id>` → the key's last day. */
export const usageKey = usageHashKey;

interface Waiting<T> {
  item: T;
  resolve: (d: RateDecision) => void;
  reject: (err: unknown) => void;
}

/** One request's part of a script call: its account (the keys) and its limits (the decision). */
interface Item {
  accountId: string;
  limits: RateLimits;
}

interface Take extends Item {
  keyId: string;
}

interface GiveBack extends Item {
  taken: RateDecision;
}

/**
 * The rate windows in Redis, and the per-day usage counts the dashboard reads, in the same script
 * call. The requests that arrive in one turn of the event loop (several under load) share one
 * call: one command, one reply and one Lua invocation instead of one each, which is most of what
 * the windows cost the gateway. Checks and give-backs (304s) are batched the same way in their own
 * scripts. A failed call fails every request of its batch (the failover limiter then answers them,
 * without counting usage).
 *
 * Every key a call touches must sit in one hash slot for Redis Cluster to run it. An account's two
 * hashes do (the account id is their hash tag, and a prefix may hold no brace), but a batch mixes
 * accounts, so with `oneSlotPerCall` (the default on an ioredis Cluster client) a turn's batch is
 * split into one call per slot. A single Redis, or a Sentinel-managed primary, takes the whole
 * batch in one call.
 */
export function createRedisRateLimiter(
  redis: RedisClient,
  opts: { keyPrefix?: string; usageKeyPrefix?: string; oneSlotPerCall?: boolean } = {},
): RateLimiter {
  const prefix = opts.keyPrefix ?? 'cds:rl:';
  const usagePrefix = opts.usageKeyPrefix ?? 'cds:usage:';
  for (const p of [prefix, usagePrefix]) {
    if (/[{}]/.test(p)) {
      throw new Error(`rate key prefix ${JSON.stringify(p)} holds a brace: the account id must be the keys' hash tag`);
    }
  }
  const oneSlotPerCall = opts.oneSlotPerCall ?? redis.isCluster === true;
  if (!('cdsRateWindows' in redis)) {
    redis.defineCommand('cdsRateWindows', { lua: RATE_WINDOW_SCRIPT });
  }
  if (!('cdsRateGiveBack' in redis)) {
    redis.defineCommand('cdsRateGiveBack', { lua: RATE_GIVE_BACK_SCRIPT });
  }
  if (!('cdsRateCheck' in redis)) {
    redis.defineCommand('cdsRateCheck', { lua: RATE_CHECK_SCRIPT });
  }
  const scripts = redis as unknown as {
    cdsRateWindows: ScriptCommand;
    cdsRateGiveBack: ScriptCommand;
    cdsRateCheck: ScriptCommand;
  };

  /**
   * Calls of one script that arrive in one turn of the event loop go to Redis together (at most
   * MAX_RATE_BATCH a call; more go in the next turn): KEYS are each item's window and usage
   * hashes, ARGV what `pushArgs` adds per item, and `decisionOf` reads item i's answer.
   */
  function batched<T extends Item>(
    command: ScriptCommand,
    pushArgs: (args: (string | number)[], item: T) => void,
    decisionOf: (reply: number[], i: number, item: T, now: number) => RateDecision,
  ): (item: T) => Promise<RateDecision> {
    const waiting: Waiting<T>[] = [];
    const flush = (): void => {
      const batch = waiting.splice(0, MAX_RATE_BATCH);
      if (waiting.length > 0) setImmediate(flush);
      if (!oneSlotPerCall) {
        send(batch);
        return;
      }
      // An account's requests all land in its slot's call, in arrival order.
      const bySlot = new Map<number, Waiting<T>[]>();
      for (const w of batch) {
        const slot = keySlot(rateKey(prefix, w.item.accountId));
        const group = bySlot.get(slot);
        if (group) group.push(w);
        else bySlot.set(slot, [w]);
      }
      for (const group of bySlot.values()) send(group);
    };
    const send = (batch: Waiting<T>[]): void => {
      const args: (string | number)[] = [];
      for (const { item } of batch) args.push(rateKey(prefix, item.accountId), usageKey(usagePrefix, item.accountId));
      for (const { item } of batch) pushArgs(args, item);
      command.call(redis, 2 * batch.length, ...args).then(
        (reply) => {
          const now = reply[reply.length - 1]!;
          for (const [i, w] of batch.entries()) w.resolve(decisionOf(reply, i, w.item, now));
        },
        (err: unknown) => {
          for (const w of batch) w.reject(err);
        },
      );
    };
    return (item) =>
      new Promise((resolve, reject) => {
        if (waiting.length === 0) setImmediate(flush);
        waiting.push({ item, resolve, reject });
      });
  }

  const take = batched<Take>(
    scripts.cdsRateWindows,
    (args, t) => args.push(t.limits.perMinute, t.limits.perDay, t.keyId),
    (reply, i, t, now) => decide(reply[3 * i] === 1, reply[3 * i + 1]!, reply[3 * i + 2]!, now, t.limits, 'redis'),
  );
  const check = batched<Take>(
    scripts.cdsRateCheck,
    (args, t) => args.push(t.limits.perMinute, t.limits.perDay, t.keyId),
    (reply, i, t, now) => decide(reply[3 * i] === 1, reply[3 * i + 1]!, reply[3 * i + 2]!, now, t.limits, 'redis'),
  );
  const giveBack = batched<GiveBack>(
    scripts.cdsRateGiveBack,
    (args, g) => args.push(Math.floor(g.taken.now / MINUTE), Math.floor(g.taken.now / DAY)),
    (reply, i, g, now) => decide(true, reply[2 * i]!, reply[2 * i + 1]!, now, g.limits, 'redis'),
  );

  return {
    take: (accountId, limits, keyId = '') => take({ accountId, keyId, limits }),
    check: (accountId, limits, keyId = '') => check({ accountId, keyId, limits }),
    giveBack: (accountId, limits, taken) => giveBack({ accountId, limits, taken }),
  };
}
