import { defineScript, isRedisUnavailable, type RedisClient } from '@cds/redis';
import type { Logger } from '@cds/telemetry';

/**
 * Concurrent SSE streams per account (SSE_STREAMS_PER_PLAN), counted across gateway replicas: one
 * sorted set per account whose members are the open streams' slots (filter.ts `slotMember`) scored
 * by the time they expire. A replica refreshes its streams' slots every heartbeat, so the slot of a
 * replica that died without closing its streams expires after `ttlMs` (three heartbeats).
 */
export interface StreamSlots {
  /** Takes a slot when fewer than `limit` live slots exist; `count` is the live slots after the decision. */
  acquire(accountId: string, member: string, limit: number): Promise<{ admitted: boolean; count: number }>;
  /** Frees the slot of a stream that ended. */
  release(accountId: string, member: string): Promise<void>;
  /** Extends the slots of the streams still open on this replica (every heartbeat). */
  refresh(slots: readonly { accountId: string; member: string }[]): Promise<void>;
  /** The account's live slots, on every replica when Redis answers, else this replica's. */
  members(accountId: string): Promise<string[]>;
}

/**
 * Drops expired slots, counts the live ones and adds the new slot when the count is under the
 * limit, atomically, with Redis's clock (replicas agree on expiry whatever their own clocks say).
 * KEYS[1] the account's set; ARGV: member, ttl ms, limit. Returns { admitted, live count }.
 */
export const STREAM_SLOT_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local count = redis.call('ZCARD', KEYS[1])
local ttl = tonumber(ARGV[2])
local admitted = 0
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  admitted = 1
elseif count < tonumber(ARGV[3]) then
  admitted = 1
  count = count + 1
end
if admitted == 1 then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return { admitted, count }
`;

/** Extends slots (re-adds one a Redis outage lost). KEYS[1] the account's set; ARGV: ttl ms, members... */
const REFRESH_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + ttl, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ttl)
return #ARGV - 1
`;

/** The live slots. KEYS[1] the account's set. */
const MEMBERS_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZRANGE', KEYS[1], 0, -1)
`;

export function slotKey(prefix: string, accountId: string): string {
  return `${prefix}{${accountId}}`;
}

/** The Redis slots alone (errors reach the caller): see `createStreamSlots` for the one the gateway uses. */
export function createRedisStreamSlots(redis: RedisClient, opts: { keyPrefix: string; ttlMs: number }): StreamSlots {
  const acquire = defineScript<[number, number]>(redis, {
    name: 'cdsSseSlot',
    lua: STREAM_SLOT_SCRIPT,
    numberOfKeys: 1,
  });
  const refresh = defineScript<number>(redis, { name: 'cdsSseRefresh', lua: REFRESH_SCRIPT, numberOfKeys: 1 });
  const members = defineScript<string[]>(redis, { name: 'cdsSseMembers', lua: MEMBERS_SCRIPT, numberOfKeys: 1 });
  const key = (accountId: string) => slotKey(opts.keyPrefix, accountId);
  return {
    async acquire(accountId, member, limit) {
      const [admitted, count] = await acquire([key(accountId)], [member, opts.ttlMs, limit]);
      return { admitted: admitted === 1, count };
    },
    async release(accountId, member) {
      await redis.zrem(key(accountId), member);
    },
    async refresh(slots) {
      const byAccount = new Map<string, string[]>();
      for (const s of slots) byAccount.set(s.accountId, [...(byAccount.get(s.accountId) ?? []), s.member]);
      await Promise.all([...byAccount].map(([accountId, list]) => refresh([key(accountId)], [opts.ttlMs, ...list])));
    },
    members: (accountId) => members([key(accountId)], []),
  };
}

/**
 * The gateway's slots: Redis across replicas; while Redis is unavailable, this replica's own count
 * with the same limit (an account can then hold the limit on each replica; docs/reliability.md).
 * The replica always knows its own open streams, so it can count them the moment Redis fails, and
 * re-adds them to Redis on the next heartbeat after it is back.
 */
export function createStreamSlots(opts: { redis?: StreamSlots; logger: Logger; onFallback?: () => void }): StreamSlots {
  const local = new Map<string, Set<string>>();
  const mine = (accountId: string) => {
    let set = local.get(accountId);
    if (set === undefined) local.set(accountId, (set = new Set()));
    return set;
  };
  const unavailable = (err: unknown, what: string): void => {
    if (!isRedisUnavailable(err)) opts.logger.warn({ err }, `stream slots: ${what} failed`);
    else opts.logger.debug({ err: (err as Error).message }, `stream slots: Redis unavailable (${what})`);
  };
  return {
    async acquire(accountId, member, limit) {
      const set = mine(accountId);
      if (opts.redis !== undefined) {
        try {
          const decision = await opts.redis.acquire(accountId, member, limit);
          if (decision.admitted) set.add(member);
          else if (set.size === 0) local.delete(accountId);
          return decision;
        } catch (err) {
          unavailable(err, 'acquire');
          opts.onFallback?.();
        }
      }
      if (set.size >= limit) return { admitted: false, count: set.size };
      set.add(member);
      return { admitted: true, count: set.size };
    },
    async release(accountId, member) {
      const set = local.get(accountId);
      set?.delete(member);
      if (set?.size === 0) local.delete(accountId);
      await opts.redis?.release(accountId, member).catch((err: unknown) => unavailable(err, 'release'));
    },
    async refresh(slots) {
      await opts.redis?.refresh(slots).catch((err: unknown) => unavailable(err, 'refresh'));
    },
    async members(accountId) {
      if (opts.redis !== undefined) {
        try {
          return await opts.redis.members(accountId);
        } catch (err) {
          unavailable(err, 'members');
        }
      }
      return [...(local.get(accountId) ?? [])];
    },
  };
}
