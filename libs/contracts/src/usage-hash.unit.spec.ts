import { describe, expect, it } from 'vitest';
import {
  RATE_HASH_FIELDS,
  RateHash,
  USAGE_HASH_KEY_FIELD_PREFIX,
  UsageHash,
  currentRateCounts,
  rateHashKey,
  usageByDay,
  usageHashKey,
} from './usage-hash.ts';

describe('the rate hash', () => {
  it('names the four fields the gateway writes', () => {
    expect(RATE_HASH_FIELDS).toEqual({ minute: 'm', minuteCount: 'mc', day: 'd', dayCount: 'dc' });
    expect(Object.keys(RateHash.shape).sort()).toEqual(['d', 'dc', 'm', 'mc']);
  });

  it('reads the whole numbers Redis returns, each field optional', () => {
    expect(RateHash.parse({ m: '29659200', mc: '7', d: '20596', dc: '321' })).toEqual({
      m: 29_659_200,
      mc: 7,
      d: 20_596,
      dc: 321,
    });
    expect(RateHash.parse({})).toEqual({});
    expect(RateHash.parse({ m: '5', mc: '0' })).toEqual({ m: 5, mc: 0 });
  });

  it('ignores fields it does not name', () => {
    expect(RateHash.parse({ m: '1', mc: '2', later: 'x' })).toEqual({ m: 1, mc: 2 });
  });

  it.each([['abc'], [''], ['-1'], ['1.5'], ['07'], ['1e3'], ['1234567890123456']])('refuses %j as a count', (v) => {
    const result = RateHash.safeParse({ m: '1', mc: v });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['mc']);
  });

  it('counts only the current windows', () => {
    const now = 20_596 * 86_400 + 3_600 + 30; // 01:00:30 UTC
    const hash = RateHash.parse({ m: String(Math.floor(now / 60)), mc: '7', d: '20596', dc: '321' });
    expect(currentRateCounts(hash, now)).toEqual({ minute: 7, day: 321 });
    expect(currentRateCounts(hash, now + 60)).toEqual({ minute: 0, day: 321 });
    expect(currentRateCounts(hash, now + 86_400)).toEqual({ minute: 0, day: 0 });
    expect(currentRateCounts({}, now)).toEqual({ minute: 0, day: 0 });
    // A window written without its count (never by the gateway) counts 0, not NaN.
    expect(currentRateCounts({ d: 20_596 }, now)).toEqual({ minute: 0, day: 0 });
  });

  it('lives under the account hash tag', () => {
    expect(rateHashKey('cds:rl:', 'acc_1')).toBe('cds:rl:{acc_1}');
    expect(usageHashKey('cds:usage:', 'acc_1')).toBe('cds:usage:{acc_1}');
  });
});

describe('the usage hash', () => {
  it('splits day counts from keys’ last days', () => {
    const parsed = UsageHash.parse({
      '20596': '321',
      '20595': '50',
      [`${USAGE_HASH_KEY_FIELD_PREFIX}key_abcdefgh12`]: '20596',
    });
    expect(parsed.days).toEqual(
      new Map([
        [20_596, 321],
        [20_595, 50],
      ]),
    );
    expect(parsed.keys).toEqual(new Map([['key_abcdefgh12', 20_596]]));
    expect(UsageHash.parse({})).toEqual({ days: new Map(), keys: new Map() });
  });

  it.each<[Record<string, string>, string]>([
    [{ today: '1' }, 'a field that is neither a day nor a key'],
    [{ 'k:': '1' }, 'a key field without a key id'],
    [{ '-3': '1' }, 'a negative day'],
    [{ '20596': 'x' }, 'a count that is not a number'],
    [{ 'k:key_1': '1.5' }, 'a last day that is not whole'],
  ])('refuses %j (%s)', (hash) => {
    expect(UsageHash.safeParse(hash).success).toBe(false);
  });
});

describe("an account's usage per day", () => {
  const usage = UsageHash.parse({ '20590': '12', '20594': '40', 'k:key_abcdefgh12': '20594' }).days;

  it("is the usage hash's days with the rate hash's day over them", () => {
    // Today, counted in the window hash only.
    expect(usageByDay(RateHash.parse({ d: '20596', dc: '321' }), usage)).toEqual(
      new Map([
        [20_590, 12],
        [20_594, 40],
        [20_596, 321],
      ]),
    );
    // The last active day, four days ago: its count has not reached the usage hash yet.
    expect(usageByDay(RateHash.parse({ d: '20592', dc: '8' }), usage).get(20_592)).toBe(8);
  });

  it("takes the window's count where the usage hash has the same day (the window's is current)", () => {
    expect(usageByDay(RateHash.parse({ d: '20594', dc: '41' }), usage).get(20_594)).toBe(41);
  });

  it('is the usage hash alone when the rate hash holds no day or no count', () => {
    expect(usageByDay({}, usage)).toEqual(usage);
    expect(usageByDay(RateHash.parse({ d: '20596' }), usage)).toEqual(usage);
    expect(usageByDay({}, new Map())).toEqual(new Map());
  });

  it('leaves the parsed usage days as they were', () => {
    usageByDay(RateHash.parse({ d: '20596', dc: '321' }), usage);
    expect([...usage.keys()]).toEqual([20_590, 20_594]);
  });
});
