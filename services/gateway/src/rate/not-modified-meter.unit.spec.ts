import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from './memory-limiter.ts';
import { NOT_MODIFIED_PER_COUNTED, createNotModifiedMeter } from './not-modified-meter.ts';
import { createRefusalMemo } from './refusal-memo.ts';
import type { RateDecision, RateLimiter, RateLimits } from './windows.ts';

// The 304 meter in front of the refusal memo and a limiter that stands for Redis (the in-memory
// limiter on the test's clock, relabelled 'redis', every call counted), as the gateway wires them:
// the windows step asks the meter for a cached 304 and tells it every decision.

const FREE: RateLimits = { perMinute: 10, perDay: 1_000 };

function setUp(startMs = Date.UTC(2026, 11, 6, 12, 0, 5)) {
  let nowMs = startMs;
  const windows = createMemoryRateLimiter({ nowMs: () => nowMs });
  const calls: string[] = [];
  const asRedis = (d: RateDecision): RateDecision => ({ ...d, source: 'redis' });
  const redis: RateLimiter = {
    take: async (a, l) => (calls.push('take'), asRedis(await windows.take(a, l))),
    check: async (a, l) => (calls.push('check'), asRedis(await windows.check(a, l))),
    giveBack: async (a, l, t) => (
      calls.push('giveBack'),
      asRedis(await windows.giveBack(a, l, { ...t, source: 'memory' }))
    ),
  };
  const limiter = createRefusalMemo(redis, { nowMs: () => nowMs });
  const meter = createNotModifiedMeter(limiter, { nowMs: () => nowMs });
  /** One request the cache answers 304, as the windows step decides it. */
  const cached304 = async (account = 'acc_a', keyId = 'key_a', limits = FREE) => {
    const d = await meter.cached(account, limits, keyId);
    meter.saw(account, limits, keyId, d);
    return d;
  };
  /** One ordinary request (a 200), as the windows step decides it. */
  const ok = async (account = 'acc_a', keyId = 'key_a', limits = FREE) => {
    const d = await limiter.take(account, limits, keyId);
    meter.saw(account, limits, keyId, d);
    return d;
  };
  /** One request the query service answers 304: taken by the windows step, then given back (or not). */
  const upstream304 = async (account = 'acc_a', keyId = 'key_a', limits = FREE) => {
    let d = await ok(account, keyId, limits);
    if (d.admitted && meter.givesBack(account)) {
      d = await limiter.giveBack(account, limits, d);
      meter.saw(account, limits, keyId, d);
    }
    return d;
  };
  return { meter, calls, cached304, ok, upstream304, advance: (ms: number) => (nowMs += ms) };
}

describe('304 meter', () => {
  it('counts every tenth 304 of an account and decides the others without asking Redis', async () => {
    const { calls, cached304, ok } = setUp();
    expect((await ok()).minute.remaining).toBe(9);
    calls.length = 0;
    const decisions: RateDecision[] = [];
    for (let i = 0; i < 2 * NOT_MODIFIED_PER_COUNTED; i++) decisions.push(await cached304());
    // The first of the streak is checked (nothing kept yet), the tenth and twentieth are taken.
    expect(calls).toEqual(['check', 'take', 'take']);
    expect(decisions.every((d) => d.admitted)).toBe(true);
    expect(decisions.map((d) => d.minute.remaining)).toEqual([...Array(9).fill(9), ...Array(10).fill(8), 7]);
    expect(decisions[1]!.source).toBe('kept');
  });

  it('refuses a client looping If-None-Match 429, with Retry-After, then costs Redis nothing more', async () => {
    const { calls, cached304, advance } = setUp();
    let first: RateDecision | undefined;
    let sent = 0;
    while (first === undefined && sent < 1_000) {
      const d = await cached304();
      sent++;
      if (!d.admitted) first = d;
    }
    // Ten counted 304s fill the free minute; the next one is refused.
    expect(sent).toBe(10 * NOT_MODIFIED_PER_COUNTED + 1);
    expect(first).toMatchObject({ admitted: false, refusedBy: 'minute', retryAfter: 55 });
    const redisCalls = calls.length;
    expect(redisCalls).toBeLessThanOrEqual(12);
    // Thousands more in the same minute: all refused, from memory.
    for (let i = 0; i < 5_000; i++) {
      const d = await cached304();
      expect(d.admitted).toBe(false);
      if (i % 1_000 === 0) advance(1_000);
    }
    expect(calls.length).toBe(redisCalls);
    // The next minute admits again.
    advance(60_000);
    expect((await cached304()).admitted).toBe(true);
  });

  it('counts every tenth upstream 304 (not given back), the others given back', async () => {
    const { calls, upstream304 } = setUp();
    const remaining: number[] = [];
    for (let i = 0; i < 2 * NOT_MODIFIED_PER_COUNTED; i++) remaining.push((await upstream304()).minute.remaining);
    expect(remaining).toEqual([...Array(9).fill(10), ...Array(10).fill(9), 8]);
    expect(calls.filter((c) => c === 'giveBack')).toHaveLength(18);
    // A client looping on upstream 304s fills its window at a tenth of the rate, then is refused.
    let refused: RateDecision | undefined;
    for (let i = 0; i < 200 && refused === undefined; i++) {
      const d = await upstream304();
      if (!d.admitted) refused = d;
    }
    expect(refused).toMatchObject({ admitted: false, refusedBy: 'minute' });
  });

  it('shares one streak between cached and upstream 304s, per account', async () => {
    const { calls, cached304, upstream304 } = setUp();
    for (let i = 0; i < 5; i++) await cached304('acc_a');
    for (let i = 0; i < 4; i++) await upstream304('acc_a');
    for (let i = 0; i < 9; i++) await cached304('acc_b', 'key_b');
    calls.length = 0;
    // acc_a's tenth 304 counts; acc_b's ninth did not.
    expect((await upstream304('acc_a')).minute.remaining).toBe(9);
    expect(calls).toEqual(['take']);
  });

  it('asks Redis again for another key, another plan, or in the last second of the minute', async () => {
    const { calls, cached304, advance } = setUp();
    await cached304();
    calls.length = 0;
    await cached304('acc_a', 'key_other');
    await cached304('acc_a', 'key_other');
    expect(calls).toEqual(['check']);
    calls.length = 0;
    const pro = { perMinute: 100, perDay: 100_000 };
    await cached304('acc_a', 'key_other', pro);
    await cached304('acc_a', 'key_other', pro);
    expect(calls).toEqual(['check']);
    calls.length = 0;
    advance(54_000); // 12:00:59, the minute's last second
    await cached304('acc_a', 'key_other', pro);
    expect(calls).toEqual(['check']);
  });

  it('asks Redis when the last decision left no room (a 304 is never admitted past the limit here)', async () => {
    const { calls, cached304, ok } = setUp();
    await cached304();
    for (let i = 0; i < 10; i++) await ok();
    calls.length = 0;
    expect((await cached304()).admitted).toBe(false);
    expect(calls).toEqual(['check']);
  });

  it('follows at most maxAccounts accounts and only those with a 304', async () => {
    const limiter = createMemoryRateLimiter({ nowMs: () => 0 });
    const meter = createNotModifiedMeter(limiter, { nowMs: () => 0, maxAccounts: 2 });
    const d = await limiter.take('acc_x', FREE);
    meter.saw('acc_x', FREE, 'k', d); // no 304 yet: not followed
    for (const a of ['acc_a', 'acc_b', 'acc_c']) for (let i = 0; i < 9; i++) expect(meter.givesBack(a)).toBe(true);
    // acc_a was dropped (the least recently seen): its streak starts again.
    expect(meter.givesBack('acc_a')).toBe(true);
    expect(meter.givesBack('acc_c')).toBe(false);
  });
});
