import { rateHashKey, usageHashKey } from '@cds/contracts';
import type { RedisClient } from '@cds/redis';
import { keySlot } from './key-slot.ts';
import { DAY, MINUTE, decide, type RateDecision, type RateLimiter, type RateLimits } from './windows.ts';

/**
 * The take and the check decide alike and differ only in what an admitted request writes (`admit`,
 * Lua run with `key`, `usage`, `keyId`, `record`, `minute`, `day`, `mc`, `dc`, the hash's minute
 * and day indexes `m` and `d` and its fields as read `v` in scope): each request's window hash is
 * read, its counts are those of the current minute and day, and it is admitted while both are under
 * its limits. `record` is whether the key's last-used day is to be written: a key id is given and
 * the day the gateway last recorded for it (its fourth argument) is not today.
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
  local keyId = ARGV[4 * i - 1]
  local record = keyId ~= '' and tonumber(ARGV[4 * i]) ~= day
  local v = redis.call('HMGET', key, 'm', 'mc', 'd', 'dc')
  local mc = 0
  local dc = 0
  local m = tonumber(v[1])
  if m == minute then mc = tonumber(v[2]) or 0 end
  local d = tonumber(v[3])
  if d == day then dc = tonumber(v[4]) or 0 end
  local admitted = 0
  if mc < tonumber(ARGV[4 * i - 3]) and dc < tonumber(ARGV[4 * i - 2]) then
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
 * whatever its own clock says. Only an admitted request is counted. Within a minute already
 * counted in, an admitted request writes the two counts alone.
 *
 * The day count is also the account's usage of that day, which the usage hash (same `{account}`
 * hash tag, so the same slot) keeps for 31 days: field `<day index>` = the day's admitted count,
 * written when the day is over, by the account's first admitted request of a later day (`dc` = 1),
 * from the window hash's `d` and `dc` as it found them. Until then the window hash holds the day's
 * count, so a reader takes the day `d` from there (libs/contracts usage-hash.ts). The same first
 * request of a day sets both hashes to expire 35 days after it ends and prunes the days older
 * than 31. `k:<key id>` = the day index of the key's last admitted request, written when the
 * gateway has not recorded it today (`record`): one write a key a day, per replica, which sets the
 * usage hash's expiry too (the hash may not have existed before it).
 *
 * One call takes the windows of a whole batch of requests: KEYS[2i-1], KEYS[2i] = request i's
 * window and usage hashes; ARGV[4i-3], ARGV[4i-2] = its per-minute and per-day limits, ARGV[4i-1]
 * its key id ('' records no key), ARGV[4i] the day index this gateway last recorded for that key
 * (-1 for none). They are decided in order and atomically, so two requests of one account in a
 * batch count one after the other exactly as two calls would. Returns { admitted_1, minute
 * count_1, day count_1, ..., admitted_n, minute count_n, day count_n, now }.
 */
export const RATE_WINDOW_SCRIPT = windowScript(`
    mc = mc + 1
    dc = dc + 1
    if m == minute and d == day then
      redis.call('HSET', key, 'mc', mc, 'dc', dc)
    else
      redis.call('HSET', key, 'm', minute, 'mc', mc, 'd', day, 'dc', dc)
    end
    if dc == 1 then
      if d ~= nil and d < day then redis.call('HSET', usage, d, tonumber(v[4]) or 0) end
      redis.call('EXPIREAT', key, (day + 36) * 86400)
      redis.call('EXPIREAT', usage, (day + 36) * 86400)
      local fields = redis.call('HKEYS', usage)
      for _, f in ipairs(fields) do
        local old = tonumber(f)
        if old ~= nil and old <= day - 31 then redis.call('HDEL', usage, f) end
      end
    end
    if record then
      redis.call('HSET', usage, 'k:' .. keyId, day)
      redis.call('EXPIREAT', usage, (day + 36) * 86400)
    end`);

/**
 * Gives back admitted requests (304s), a batch per call like the take: KEYS[i] = request i's window
 * hash, ARGV[2i-1], ARGV[2i] = the minute and day indexes its take counted it in. The minute count
 * goes down only while the hash still holds that minute, the day count only while it holds that
 * day (a window that reset since has nothing of it to give back). The usage hash is not touched:
 * a day's count reaches it from the window hash once the day is over, and the key's last-used day
 * stays (the key was used). Returns { minute count_1, day count_1, ..., now }, each as it is after
 * the give-back for the current minute and day (0 for a window that reset since the take).
 */
export const RATE_GIVE_BACK_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1])
local out = {}
for i = 1, #KEYS do
  local key = KEYS[i]
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
 * one call instead of two. An admitted request records the key's last-used day (the key was used)
 * when the take would (`record`), and then keeps the usage hash for 35 days after today, as the
 * take does. Returns { admitted_1, minute count_1, day count_1, ..., now }.
 */
export const RATE_CHECK_SCRIPT = windowScript(`
    if record then
      redis.call('HSET', usage, 'k:' .. keyId, day)
      redis.call('EXPIREAT', usage, (day + 36) * 86400)
    end`);

type ScriptCommand = (numberOfKeys: number, ...keysThenArgs: (string | number)[]) => Promise<number[]>;

/** Most requests whose windows go to Redis in one call. */
export const MAX_RATE_BATCH = 256;

/** Most keys whose recorded day one limiter remembers (`keyDays`); past it, it starts again. */
export const MAX_KEY_DAYS = 100_000;

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
   * MAX_RATE_BATCH a call; more go in the next turn): KEYS are each item's window hash and, with
   * `withUsage`, its usage hash; ARGV what `pushArgs` adds per item; `decisionOf` reads item i's
   * answer.
   */
  function batched<T extends Item>(
    command: ScriptCommand,
    withUsage: boolean,
    pushArgs: (args: (string | number)[], item: T) => void,
    decisionOf: (reply: number[], i: number, item: T, now: number) => RateDecision,
    onFailure: () => void,
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
      for (const { item } of batch) {
        args.push(rateKey(prefix, item.accountId));
        if (withUsage) args.push(usageKey(usagePrefix, item.accountId));
      }
      for (const { item } of batch) pushArgs(args, item);
      command.call(redis, (withUsage ? 2 : 1) * batch.length, ...args).then(
        (reply) => {
          const now = reply[reply.length - 1]!;
          for (const [i, w] of batch.entries()) w.resolve(decisionOf(reply, i, w.item, now));
        },
        (err: unknown) => {
          onFailure();
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

  /**
   * The day this replica last recorded each key's use (a day index of Redis TIME). The scripts skip
   * the key's field when that day is the current one, so a key costs one write a day per replica
   * instead of one per request. Forgotten on any failed call (Redis may have restarted without
   * them, or failed over before they reached the replica) and when it holds MAX_KEY_DAYS keys.
   */
  const keyDays = new Map<string, number>();
  const pushTake = (args: (string | number)[], t: Take): void => {
    args.push(t.limits.perMinute, t.limits.perDay, t.keyId, keyDays.get(t.keyId) ?? -1);
  };
  const decideTake = (reply: number[], i: number, t: Take, now: number): RateDecision => {
    const admitted = reply[3 * i] === 1;
    if (admitted && t.keyId !== '') {
      if (keyDays.size >= MAX_KEY_DAYS) keyDays.clear();
      keyDays.set(t.keyId, Math.floor(now / DAY));
    }
    return decide(admitted, reply[3 * i + 1]!, reply[3 * i + 2]!, now, t.limits, 'redis');
  };
  const forgetKeyDays = (): void => keyDays.clear();
  const take = batched<Take>(scripts.cdsRateWindows, true, pushTake, decideTake, forgetKeyDays);
  const check = batched<Take>(scripts.cdsRateCheck, true, pushTake, decideTake, forgetKeyDays);
  const giveBack = batched<GiveBack>(
    scripts.cdsRateGiveBack,
    false,
    (args, g) => args.push(Math.floor(g.taken.now / MINUTE), Math.floor(g.taken.now / DAY)),
    (reply, i, g, now) => decide(true, reply[2 * i]!, reply[2 * i + 1]!, now, g.limits, 'redis'),
    forgetKeyDays,
  );

  return {
    take: (accountId, limits, keyId = '') => take({ accountId, keyId, limits }),
    check: (accountId, limits, keyId = '') => check({ accountId, keyId, limits }),
    giveBack: (accountId, limits, taken) => giveBack({ accountId, limits, taken }),
  };
}
