import { AccountId, rateHashKey, usageHashKey } from '@cds/contracts';
import type { Redis } from '@cds/redis';
import { describe, expect, it } from 'vitest';
import { CLUSTER_SLOTS, crc16, keySlot } from './key-slot.ts';
import { createRedisRateLimiter, rateKey, usageKey } from './redis-limiter.ts';
import type { RateLimiter } from './windows.ts';

// Redis Cluster runs a script only when every key it is called with hashes to one slot (else
// CROSSSLOT). These specs compute the slots the rate scripts' keys land in, for several accounts,
// and check every call the limiter makes stays within one slot when it must.

const ACCOUNTS = [
  'acc_0123456789abcdef',
  'acc_demo0001',
  'acc_zzzzzzzz',
  'acc_00000000',
  'acc_1a2b3c4d5e6f7a8b9c0d',
  'acc_k3y5l0t5',
  'acc_9999999999999999999999999999999999999999',
];

describe('CRC16 key slots (Redis Cluster)', () => {
  it('matches the CRC16-XMODEM check value', () => {
    expect(crc16(new TextEncoder().encode('123456789'))).toBe(0x31c3);
  });

  it('matches CLUSTER KEYSLOT of redis-server 7.0.15', () => {
    const asked: [string, number][] = [
      ['123456789', 12739],
      ['foo', 12182],
      ['somekey', 11058],
      ['hello', 866],
      ['cds:rl:{acc_0123456789abcdef}', 14490],
      ['cds:usage:{acc_0123456789abcdef}', 14490],
      ['acc_demo0001', 10198],
      ['cds:rl:{acc_zzzzzzzz}', 3034],
      // An empty tag is no tag; only the first {...} counts; a } before the first { is ignored.
      ['x{}y', 16116],
      ['{}', 15257],
      ['a{b}c{d}', 3300],
      ['{a}{b}', 15495],
      ['}{x}', 16287],
    ];
    for (const [key, slot] of asked) expect(keySlot(key), key).toBe(slot);
  });

  it('hashes only the tag when there is one', () => {
    for (const id of ACCOUNTS) {
      expect(keySlot(`anything:{${id}}:else`)).toBe(keySlot(id));
      expect(keySlot(id)).toBeGreaterThanOrEqual(0);
      expect(keySlot(id)).toBeLessThan(CLUSTER_SLOTS);
    }
  });
});

describe("an account's rate and usage hashes", () => {
  it('share one slot, the account id being the hash tag, whatever the prefixes', () => {
    const prefixes: [string, string][] = [
      ['cds:rl:', 'cds:usage:'],
      ['exact:', 'u1:usage:'],
      ['tenant-b:rl:', 'tenant-b:usage:'],
    ];
    const slots = new Set<number>();
    for (const id of ACCOUNTS) {
      expect(AccountId.safeParse(id).success, id).toBe(true);
      for (const [rp, up] of prefixes) {
        // The gateway writes and the dashboard reads through the same contract functions.
        expect(rateKey(rp, id)).toBe(rateHashKey(rp, id));
        expect(usageKey(up, id)).toBe(usageHashKey(up, id));
        expect(keySlot(rateHashKey(rp, id))).toBe(keySlot(id));
        expect(keySlot(usageHashKey(up, id))).toBe(keySlot(id));
      }
      slots.add(keySlot(id));
    }
    // The accounts spread over slots: a batch of several accounts would span slots.
    expect(slots.size).toBe(ACCOUNTS.length);
  });

  it('refuses a prefix with a brace, which would take the hash tag off the account', () => {
    const redis = fakeRedis(false).redis;
    expect(() => createRedisRateLimiter(redis, { keyPrefix: 'cds:{rl}:' })).toThrow(/brace/);
    expect(() => createRedisRateLimiter(redis, { usageKeyPrefix: 'cds:usage{' })).toThrow(/brace/);
  });
});

interface Call {
  script: string;
  keys: string[];
  args: (string | number)[];
}

/**
 * A Redis that records each script call and answers it as the scripts would for counts held in
 * memory: every take and check admitted, a take counting one up, a give-back one down.
 */
function fakeRedis(isCluster: boolean): { redis: Redis; calls: Call[] } {
  const calls: Call[] = [];
  const counts = new Map<string, number>();
  const fake: Record<string, unknown> = {
    isCluster,
    defineCommand(name: string) {
      fake[name] = (numberOfKeys: number, ...rest: (string | number)[]) => {
        const keys = rest.slice(0, numberOfKeys).map(String);
        calls.push({ script: name, keys, args: rest.slice(numberOfKeys) });
        const reply: number[] = [];
        // The give-back names each request's window hash; the others its usage hash too.
        const perItem = name === 'cdsRateGiveBack' ? 1 : 2;
        for (let i = 0; i < keys.length / perItem; i++) {
          const key = keys[perItem * i]!;
          const n = counts.get(key) ?? 0;
          if (name === 'cdsRateWindows') {
            counts.set(key, n + 1);
            reply.push(1, n + 1, n + 1);
          } else if (name === 'cdsRateCheck') {
            reply.push(1, n, n);
          } else {
            counts.set(key, Math.max(0, n - 1));
            reply.push(Math.max(0, n - 1), Math.max(0, n - 1));
          }
        }
        reply.push(1_700_000_000);
        return Promise.resolve(reply);
      };
    },
  };
  return { redis: fake as unknown as Redis, calls };
}

const LIMITS = { perMinute: 100, perDay: 1000 };

/** Three requests per account, all in one turn of the event loop, so the limiter batches them. */
async function burst(limiter: RateLimiter, op: 'take' | 'check' | 'giveBack'): Promise<Map<string, number[]>> {
  const pending: [string, Promise<{ minute: { remaining: number } }>][] = [];
  for (let round = 0; round < 3; round++) {
    for (const id of ACCOUNTS) {
      const taken = { admitted: true, now: 1_700_000_000 } as Parameters<RateLimiter['giveBack']>[2];
      const p =
        op === 'take'
          ? limiter.take(id, LIMITS, `key_${round}`)
          : op === 'check'
            ? limiter.check(id, LIMITS, `key_${round}`)
            : limiter.giveBack(id, LIMITS, taken);
      pending.push([id, p]);
    }
  }
  const remaining = new Map<string, number[]>();
  for (const [id, p] of pending) remaining.set(id, [...(remaining.get(id) ?? []), (await p).minute.remaining]);
  return remaining;
}

function slotsOf(call: Call): Set<number> {
  return new Set(call.keys.map(keySlot));
}

describe('the rate scripts, called on a Redis Cluster', () => {
  for (const op of ['take', 'check', 'giveBack'] as const) {
    it(`${op}: one slot per call, an account's requests in order in its call`, async () => {
      const { redis, calls } = fakeRedis(true);
      const remaining = await burst(createRedisRateLimiter(redis), op);
      expect(calls.length).toBe(ACCOUNTS.length);
      for (const call of calls) {
        expect(slotsOf(call).size, call.keys.join(' ')).toBe(1);
        // Three requests of one account: its window and usage hashes (the give-back, its window hash).
        const perItem = op === 'giveBack' ? 1 : 2;
        expect(call.keys).toHaveLength(3 * perItem);
        expect(new Set(call.keys).size).toBe(perItem);
      }
      const expected = { take: [99, 98, 97], check: [100, 100, 100], giveBack: [100, 100, 100] }[op];
      for (const id of ACCOUNTS) expect(remaining.get(id), id).toEqual(expected);
    });
  }

  it('takes one slot per call when asked to, on any client', async () => {
    const { redis, calls } = fakeRedis(false);
    await burst(createRedisRateLimiter(redis, { oneSlotPerCall: true }), 'take');
    expect(calls.length).toBe(ACCOUNTS.length);
    for (const call of calls) expect(slotsOf(call).size).toBe(1);
  });

  it('on a single Redis, one call for the whole turn, across slots (fewer round trips)', async () => {
    const { redis, calls } = fakeRedis(false);
    const remaining = await burst(createRedisRateLimiter(redis), 'take');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.keys).toHaveLength(2 * 3 * ACCOUNTS.length);
    expect(slotsOf(calls[0]!).size).toBe(ACCOUNTS.length);
    for (const id of ACCOUNTS) expect(remaining.get(id)).toEqual([99, 98, 97]);
  });
});
