import { rateHashKey, usageHashKey } from '@cds/contracts';
import type { RedisClient } from '@cds/redis';
import { keySlot } from './key-slot.ts';
import { DAY, MINUTE, decide, type RateDecision, type RateLimiter, type RateLimits } from './windows.ts';

/**
 * The take and the check decide alike and differ only in what an admitted request writes
 * (`admit`, Lua run with `key`, `usage`, `keyId`, `record`, `want`, `perMinute`, `perDay`,
 * `minute`, `day`, `mc`, `dc`, `now`, the hash's minute and day indexes `m` and `d` and its fields
 * as read `v` in scope): each request's window hash is read, its counts are those of the current
 * minute and day, and it is admitted while both are under its limits. `record` is whether the
 * key's last-used day is to be written: a key id is given and the day the gateway last recorded
 * for it (its fourth argument) is not today. Each request has `stride` arguments: the take's fifth
 * is `want`, the size of the block it asks for (1 for none).
 */
function windowScript(admit: string, stride: number): string {
  return `
local t = redis.call('TIME')
local now = tonumber(t[1])
local minute = math.floor(now / 60)
local day = math.floor(now / 86400)
local out = {}
for i = 1, #KEYS / 2 do
  local key = KEYS[2 * i - 1]
  local usage = KEYS[2 * i]
  local at = ${stride} * (i - 1)
  local perMinute = tonumber(ARGV[at + 1])
  local perDay = tonumber(ARGV[at + 2])
  local keyId = ARGV[at + 3]
  local record = keyId ~= '' and tonumber(ARGV[at + 4]) ~= day
  local want = tonumber(ARGV[at + 5]) or 1
  local v = redis.call('HMGET', key, 'm', 'mc', 'd', 'dc', 'o')
  local mc = 0
  local dc = 0
  local o = 0
  local m = tonumber(v[1])
  if m == minute then
    mc = tonumber(v[2]) or 0
    o = tonumber(v[5]) or 0
  end
  local d = tonumber(v[3])
  if d == day then dc = tonumber(v[4]) or 0 end
  local admitted = 0
  if mc < perMinute and dc < perDay then
    admitted = 1${admit}
  elseif o > 0 then
    admitted = -1
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
 * Blocks (docs/decisions.md "Rate limits"): an account of a plan of BLOCK_MIN_PER_MINUTE or more a
 * minute that asks again on a replica within BLOCK_TTL_MS gets BLOCK_SIZE admissions of both its
 * windows at once, counted in Redis as they are handed out, while both windows keep at least half
 * their limit after them and its minute has more than BLOCK_SAFE_SECONDS left (by Redis's clock).
 * The replica spends them on the account's next requests for at most BLOCK_TTL_MS, then gives back
 * the unspent rest, so the counts are exact once it is back, and never more are admitted than the
 * limit. A block ends well inside its minute: BLOCK_TTL_MS is under BLOCK_SAFE_SECONDS.
 */
export const BLOCK_SIZE = 8;
export const BLOCK_MIN_PER_MINUTE = 300;
export const BLOCK_TTL_MS = 1000;
export const BLOCK_SAFE_SECONDS = 2;
/** Longest a request that finds a window full waits for the blocks out to come back. */
export const BLOCK_WAIT_MS = 2000;

/**
 * Both windows of each account in one hash per account: the minute and day indexes and their
 * counts. Time comes from Redis (TIME), so every gateway replica agrees on window boundaries
 * whatever its own clock says. Only an admitted request is counted. Within a minute already
 * counted in, an admitted request writes the two counts alone. `o` is the minute's admissions
 * handed out in blocks and not yet settled: a request that finds a window full while `o` is above
 * zero is answered -1 (not refused: the replica asks again once the blocks are back).
 *
 * The day count is also the account's usage of that day, which the usage hash (same `{account}`
 * hash tag, so the same slot) keeps for 31 days: field `<day index>` = the day's admitted count,
 * written when the day is over, by the account's first admitted request of a later day (`dc` = g),
 * from the window hash's `d` and `dc` as it found them. Until then the window hash holds the day's
 * count, so a reader takes the day `d` from there (libs/contracts usage-hash.ts). The same first
 * request of a day sets both hashes to expire 35 days after it ends and prunes the days older
 * than 31. `k:<key id>` = the day index of the key's last admitted request, written when the
 * gateway has not recorded it today (`record`): one write a key a day, per replica, which sets the
 * usage hash's expiry too (the hash may not have existed before it).
 *
 * One call takes the windows of a whole batch of requests: KEYS[2i-1], KEYS[2i] = request i's
 * window and usage hashes; ARGV[5i-4], ARGV[5i-3] = its per-minute and per-day limits, ARGV[5i-2]
 * its key id ('' records no key), ARGV[5i-1] the day index this gateway last recorded for that key
 * (-1 for none), ARGV[5i] the block it asks for (1: none). An admitted request counts `g`: the
 * block when the windows allow it (above), else 1. They are decided in order and atomically, so
 * two requests of one account in a batch count one after the other exactly as two calls would.
 * Returns { g_1 (0: refused), minute count_1, day count_1, ..., g_n, minute count_n, day count_n,
 * now }, the counts as they are after the request.
 */
export const RATE_WINDOW_SCRIPT = windowScript(
  `
    local g = 1
    if want > 1 and now % 60 <= ${59 - BLOCK_SAFE_SECONDS} and perMinute - mc - want >= perMinute / 2
      and perDay - dc - want >= perDay / 2 then
      g = want
    end
    admitted = g
    mc = mc + g
    dc = dc + g
    if m ~= minute or d ~= day then
      redis.call('HSET', key, 'm', minute, 'mc', mc, 'd', day, 'dc', dc, 'o', g - 1)
    elseif g > 1 then
      redis.call('HSET', key, 'mc', mc, 'dc', dc, 'o', o + g - 1)
    else
      redis.call('HSET', key, 'mc', mc, 'dc', dc)
    end
    if dc == g then
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
    end`,
  5,
);

/**
 * Gives back admitted requests (304s) and ends blocks, a batch per call like the take: KEYS[i] =
 * request i's window hash, ARGV[4i-3], ARGV[4i-2] = the minute and day indexes its take counted it
 * in, ARGV[4i-1] how many to give back (1 for a request, a block's unspent rest), ARGV[4i] the
 * admissions a block held beyond its first (its `o` share; 0 for a request). The minute count and
 * `o` go down only while the hash still holds that minute, the day count only while it holds that
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
  local minute = tonumber(ARGV[4 * i - 3])
  local day = tonumber(ARGV[4 * i - 2])
  local units = tonumber(ARGV[4 * i - 1])
  local held = tonumber(ARGV[4 * i])
  local v = redis.call('HMGET', key, 'm', 'mc', 'd', 'dc', 'o')
  local m = tonumber(v[1])
  local mc = tonumber(v[2]) or 0
  local d = tonumber(v[3])
  local dc = tonumber(v[4]) or 0
  if m == minute and mc > 0 and units > 0 then
    mc = math.max(0, mc - units)
    redis.call('HSET', key, 'mc', mc)
  end
  if m == minute and held > 0 then
    redis.call('HSET', key, 'o', math.max(0, (tonumber(v[5]) or 0) - held))
  end
  if d == day and dc > 0 and units > 0 then
    dc = math.max(0, dc - units)
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
 * like the take, with its KEYS and its ARGV but the block (four a request): admitted while both windows have room, as the take
 * decides, but no count changes, so the windows are as a take and a give-back would leave them, in
 * one call instead of two. An admitted request records the key's last-used day (the key was used)
 * when the take would (`record`), and then keeps the usage hash for 35 days after today, as the
 * take does. Returns { admitted_1, minute count_1, day count_1, ..., now }.
 */
export const RATE_CHECK_SCRIPT = windowScript(
  `
    if record then
      redis.call('HSET', usage, 'k:' .. keyId, day)
      redis.call('EXPIREAT', usage, (day + 36) * 86400)
    end`,
  4,
);

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
  /** The block asked for (BLOCK_SIZE), or 1 for none. */
  want: number;
  /** When it was asked (performance.now()): before Redis's clock was read for it. */
  at?: number;
}

interface GiveBack extends Item {
  minute: number;
  day: number;
  units: number;
  /** A block's admissions beyond its first (its share of `o`), 0 for a request. */
  held: number;
}

/** Admissions of an account's windows that Redis counted and this replica spends (BLOCK_SIZE). */
interface Block {
  limits: RateLimits;
  minute: number;
  day: number;
  /** Its admissions beyond the first, as handed out, and those not spent yet. */
  held: number;
  left: number;
  /** The minute and day counts after the last request it admitted, as this replica knows them. */
  mc: number;
  dc: number;
  /**
   * Redis's time when it was handed out (Unix seconds), and this process's when it was asked for
   * (performance.now(), earlier): it is spent until BLOCK_TTL_MS after `at`, so by Redis's clock
   * never more than BLOCK_TTL_MS after it was handed out, whatever delayed the reply.
   */
  now: number;
  at: number;
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
    onFailure: (items: readonly T[]) => void,
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
          onFailure(batch.map((w) => w.item));
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
  const pushCheck = (args: (string | number)[], t: Take): void => {
    args.push(t.limits.perMinute, t.limits.perDay, t.keyId, keyDays.get(t.keyId) ?? -1);
  };
  const pushTake = (args: (string | number)[], t: Take): void => {
    pushCheck(args, t);
    args.push(t.want);
  };

  /** The block each account holds on this replica. */
  const blocks = new Map<string, Block>();
  /** When each account last asked this replica to take (performance.now()); past MAX_KEY_DAYS, it starts again. */
  const lastTake = new Map<string, number>();
  /** Accounts whose block is being asked for: their other requests meanwhile ask for none. */
  const asking = new Set<string>();

  const live = (b: Block, t: number): boolean => t - b.at < BLOCK_TTL_MS;
  /** Whether the account's block can admit this request: a key is spent from it once recorded today. */
  const spendable = (b: Block | undefined, limits: RateLimits, keyId: string, t: number): b is Block =>
    b !== undefined &&
    b.left > 0 &&
    b.limits === limits &&
    live(b, t) &&
    (keyId === '' || keyDays.get(keyId) === b.day);
  const fromBlock = (b: Block, limits: RateLimits): RateDecision => decide(true, b.mc, b.dc, b.now, limits, 'redis');

  /** Answers of a full window while blocks were out (-1): asked again (`untilBlocksBack`). */
  const blocksOut = new WeakSet<RateDecision>();
  const decideTake = (reply: number[], i: number, t: Take, now: number): RateDecision => {
    const granted = reply[3 * i]!;
    const admitted = granted > 0;
    if (granted < 0) {
      const refused = decide(false, reply[3 * i + 1]!, reply[3 * i + 2]!, now, t.limits, 'redis');
      blocksOut.add(refused);
      return refused;
    }
    if (admitted && t.keyId !== '') {
      if (keyDays.size >= MAX_KEY_DAYS) keyDays.clear();
      keyDays.set(t.keyId, Math.floor(now / DAY));
    }
    // The counts as this request leaves them: a block's other admissions are not spent yet.
    const rest = Math.max(0, granted - 1);
    const mc = reply[3 * i + 1]! - rest;
    const dc = reply[3 * i + 2]! - rest;
    if (t.want > 1) asking.delete(t.accountId);
    if (rest === 0) return decide(admitted, mc, dc, now, t.limits, 'redis');
    const old = blocks.get(t.accountId);
    if (old !== undefined) settle(t.accountId, old);
    const block: Block = {
      limits: t.limits,
      minute: Math.floor(now / MINUTE),
      day: Math.floor(now / DAY),
      held: rest,
      left: rest,
      mc,
      dc,
      now,
      at: t.at ?? performance.now(),
    };
    blocks.set(t.accountId, block);
    return fromBlock(block, t.limits);
  };
  const forgetKeyDays = (): void => keyDays.clear();
  const take = batched<Take>(scripts.cdsRateWindows, true, pushTake, decideTake, (items) => {
    forgetKeyDays();
    for (const t of items) if (t.want > 1) asking.delete(t.accountId);
  });
  const check = batched<Take>(scripts.cdsRateCheck, true, pushCheck, decideTake, forgetKeyDays);
  const giveBack = batched<GiveBack>(
    scripts.cdsRateGiveBack,
    false,
    (args, g) => args.push(g.minute, g.day, g.units, g.held),
    (reply, i, g, now) => decide(true, reply[2 * i]!, reply[2 * i + 1]!, now, g.limits, 'redis'),
    forgetKeyDays,
  );

  /**
   * Ends a block: its unspent rest goes back to Redis in the next give-back call, and its share of
   * `o` with it. A failed give-back leaves them counted until the minute resets (never more
   * admitted than the limit), and requests that find the window full wait BLOCK_WAIT_MS for them.
   */
  function settle(accountId: string, b: Block): void {
    if (blocks.get(accountId) === b) blocks.delete(accountId);
    const units = b.left;
    b.left = 0;
    const end = { accountId, limits: b.limits, minute: b.minute, day: b.day, units, held: b.held };
    giveBack(end).catch(() => undefined);
  }
  /**
   * A take or a check that found a window full while blocks were out is asked again every
   * BLOCK_WAIT_MS / 8 until they are back (at most 1.25 BLOCK_TTL_MS), up to BLOCK_WAIT_MS; then
   * its refusal stands.
   */
  function untilBlocksBack(
    asked: Promise<RateDecision>,
    again: () => Promise<RateDecision>,
    deadline: number,
  ): Promise<RateDecision> {
    return asked.then((d) => {
      if (!blocksOut.has(d) || performance.now() >= deadline) return d;
      const wait = new Promise<void>((r) => setTimeout(r, BLOCK_WAIT_MS / 8));
      return wait.then(() => untilBlocksBack(again(), again, deadline));
    });
  }
  // A quarter of a block's life: an unspent rest is back at most 1.25 BLOCK_TTL_MS after the block.
  setInterval(() => {
    const t = performance.now();
    for (const [accountId, b] of blocks) if (b.left === 0 || !live(b, t)) settle(accountId, b);
  }, BLOCK_TTL_MS / 4).unref();

  /** An admission from the account's block on this replica, if it has one for this request. */
  const spend = (accountId: string, limits: RateLimits, keyId: string, t: number): RateDecision | undefined => {
    const b = blocks.get(accountId);
    if (!spendable(b, limits, keyId, t)) return undefined;
    b.left -= 1;
    b.mc += 1;
    b.dc += 1;
    return fromBlock(b, limits);
  };

  return {
    take(accountId, limits, keyId = '') {
      const t = performance.now();
      const spent = spend(accountId, limits, keyId, t);
      if (spent !== undefined) return Promise.resolve(spent);
      const previous = lastTake.get(accountId);
      if (lastTake.size >= MAX_KEY_DAYS) lastTake.clear();
      lastTake.set(accountId, t);
      const block =
        limits.perMinute >= BLOCK_MIN_PER_MINUTE &&
        previous !== undefined &&
        t - previous < BLOCK_TTL_MS &&
        !asking.has(accountId);
      if (block) asking.add(accountId);
      // Asked again: this replica's own block first (its requests may be the ones waiting for it).
      const again = () => {
        const here = spend(accountId, limits, keyId, performance.now());
        return here !== undefined ? Promise.resolve(here) : take({ accountId, keyId, limits, want: 1 });
      };
      return untilBlocksBack(
        take(block ? { accountId, keyId, limits, want: BLOCK_SIZE, at: t } : { accountId, keyId, limits, want: 1 }),
        again,
        t + BLOCK_WAIT_MS,
      );
    },
    check(accountId, limits, keyId = '') {
      // While this replica holds a block with admissions left, the windows have room.
      const t = performance.now();
      const b = blocks.get(accountId);
      if (spendable(b, limits, keyId, t)) return Promise.resolve(decide(true, b.mc, b.dc, b.now, limits, 'redis'));
      const again = () => check({ accountId, keyId, limits, want: 1 });
      return untilBlocksBack(again(), again, t + BLOCK_WAIT_MS);
    },
    giveBack(accountId, limits, taken) {
      const minute = Math.floor(taken.now / MINUTE);
      const b = blocks.get(accountId);
      if (b !== undefined && b.minute === minute && b.limits === limits && live(b, performance.now())) {
        // Into the block the account holds here for the same minute (so the same day): its rest,
        // this one included, goes back to Redis when it ends, as if it had been given back now.
        b.left += 1;
        b.mc -= 1;
        b.dc -= 1;
        return Promise.resolve(decide(true, b.mc, b.dc, b.now, limits, 'redis'));
      }
      return giveBack({ accountId, limits, minute, day: Math.floor(taken.now / DAY), units: 1, held: 0 });
    },
  };
}
