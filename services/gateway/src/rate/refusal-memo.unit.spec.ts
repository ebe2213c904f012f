import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from './memory-limiter.ts';
import { createRefusalMemo } from './refusal-memo.ts';
import type { RateDecision, RateLimiter, RateLimits } from './windows.ts';

// The refusal memo in front of a limiter that stands for Redis: the in-memory limiter (exact fixed
// windows on the test's clock), relabelled 'redis', with every call counted.

const LIMITS: RateLimits = { perMinute: 3, perDay: 100 };

function setUp(startMs = Date.UTC(2026, 10, 28, 12, 0, 10)) {
  let nowMs = startMs;
  const windows = createMemoryRateLimiter({ nowMs: () => nowMs });
  const calls: string[] = [];
  const asRedis = (d: RateDecision): RateDecision => ({ ...d, source: 'redis' });
  const redis: RateLimiter = {
    take: async (a, l) => (calls.push(`take ${a}`), asRedis(await windows.take(a, l))),
    check: async (a, l) => (calls.push(`check ${a}`), asRedis(await windows.check(a, l))),
    giveBack: async (a, l, t) => (
      calls.push(`giveBack ${a}`),
      asRedis(await windows.giveBack(a, l, { ...t, source: 'memory' }))
    ),
  };
  const memo = createRefusalMemo(redis, { nowMs: () => nowMs, maxAccounts: 2 });
  return { memo, calls, advance: (ms: number) => (nowMs += ms) };
}

async function spend(memo: RateLimiter, account: string, limits = LIMITS): Promise<RateDecision> {
  for (let i = 0; i < limits.perMinute; i += 1) expect((await memo.take(account, limits)).admitted).toBe(true);
  return memo.take(account, limits);
}

describe('refusal memo', () => {
  it('keeps a refusal until a second before its window resets, asking the limiter nothing meanwhile', async () => {
    const { memo, calls, advance } = setUp();
    const refused = await spend(memo, 'acc_a');
    expect(refused).toMatchObject({ admitted: false, refusedBy: 'minute', source: 'redis', retryAfter: 50 });
    calls.length = 0;
    advance(20_000);
    const kept = await memo.take('acc_a', LIMITS);
    expect(kept).toMatchObject({ admitted: false, refusedBy: 'minute', source: 'kept', retryAfter: 30 });
    expect(kept.now).toBe(refused.now + 20);
    expect((await memo.check('acc_a', LIMITS)).source).toBe('kept');
    expect(calls).toEqual([]);
    // In the window's last second the limiter decides again (still refused), and in the next window it admits.
    advance(29_000);
    expect((await memo.take('acc_a', LIMITS)).source).toBe('redis');
    advance(1_000);
    expect(await memo.take('acc_a', LIMITS)).toMatchObject({ admitted: true, source: 'redis' });
    expect(calls).toEqual(['take acc_a', 'take acc_a']);
  });

  it('keeps a day refusal until a second before the UTC day ends', async () => {
    const { memo, calls, advance } = setUp(Date.UTC(2026, 10, 28, 23, 58, 0));
    const tight = { perMinute: 10, perDay: 2 };
    await memo.take('acc_d', tight);
    await memo.take('acc_d', tight);
    expect(await memo.take('acc_d', tight)).toMatchObject({ admitted: false, refusedBy: 'day' });
    calls.length = 0;
    advance(118_000);
    expect(await memo.take('acc_d', tight)).toMatchObject({ admitted: false, source: 'kept', retryAfter: 2 });
    advance(1_000);
    expect((await memo.take('acc_d', tight)).source).toBe('redis');
    expect(calls).toEqual(['take acc_d']);
  });

  it('asks again after a change of plan, and after a give-back', async () => {
    const { memo, calls } = setUp();
    await spend(memo, 'acc_p');
    calls.length = 0;
    // An upgrade: other limits, the limiter decides (and admits).
    expect(await memo.take('acc_p', { perMinute: 10, perDay: 1_000 })).toMatchObject({
      admitted: true,
      source: 'redis',
    });
    expect(calls).toEqual(['take acc_p']);
    const { memo: m2, calls: c2 } = setUp();
    const taken = await m2.take('acc_g', LIMITS);
    await m2.take('acc_g', LIMITS);
    await m2.take('acc_g', LIMITS);
    expect((await m2.take('acc_g', LIMITS)).admitted).toBe(false);
    await m2.giveBack('acc_g', LIMITS, taken);
    c2.length = 0;
    // The window has room again: the limiter admits one more.
    expect(await m2.take('acc_g', LIMITS)).toMatchObject({ admitted: true, source: 'redis' });
    expect(c2).toEqual(['take acc_g']);
  });

  it("keeps only the limiter's own refusals (not admissions, not the fallback's), and at most maxAccounts", async () => {
    const fallback = createMemoryRateLimiter({ nowMs: () => Date.now() });
    let calls = 0;
    const local: RateLimiter = {
      take: (a, l) => ((calls += 1), fallback.take(a, l)),
      check: (a, l) => ((calls += 1), fallback.check(a, l)),
      giveBack: (a, l, t) => fallback.giveBack(a, l, t),
    };
    const memo = createRefusalMemo(local, { nowMs: () => Date.now() });
    await spend(memo, 'acc_f');
    await memo.take('acc_f', LIMITS);
    // Source 'memory': every request went to the limiter.
    expect(calls).toBe(LIMITS.perMinute + 2);

    const { memo: m, calls: c } = setUp();
    for (const a of ['acc_1', 'acc_2', 'acc_3']) await spend(m, a);
    c.length = 0;
    // Room for two: acc_1, the oldest, was dropped (asked last: keeping it again drops the oldest then).
    for (const a of ['acc_3', 'acc_2', 'acc_1']) await m.take(a, LIMITS);
    expect(c).toEqual(['take acc_1']);
  });
});
