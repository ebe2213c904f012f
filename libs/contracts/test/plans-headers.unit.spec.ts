import { describe, expect, it } from 'vitest';
import { PLANS, addMonths, earliestAllowedDate, rateLimitHeaders } from '../src/index.ts';

describe('plans', () => {
  it('matches the plan table of docs/decisions.md', () => {
    expect(PLANS.free).toEqual({
      perMinute: 10,
      perDay: 1000,
      historyMonths: 12,
      cotLegacy: false,
      cotDisaggregated: false,
      // Not in the spec's table: the cap on active keys (docs/decisions.md, "Keys: bounded per account").
      maxActiveKeys: 3,
    });
    for (const plan of ['professional', 'business', 'enterprise'] as const) expect(PLANS[plan].maxActiveKeys).toBe(50);
    expect(PLANS.professional).toMatchObject({
      perMinute: 100,
      perDay: 100000,
      historyMonths: null,
      cotLegacy: true,
      cotDisaggregated: false,
    });
    expect(PLANS.business).toMatchObject({ perMinute: 500, perDay: 500000, cotLegacy: true, cotDisaggregated: true });
    expect(PLANS.enterprise).toMatchObject({
      perMinute: 1000,
      perDay: 1000000,
      cotLegacy: true,
      cotDisaggregated: true,
    });
  });
  it('free history starts 12 months before today, clamped at month ends and leap days', () => {
    expect(earliestAllowedDate('free', '2026-11-21')).toBe('2025-11-21');
    expect(earliestAllowedDate('free', '2024-02-29')).toBe('2023-02-28');
    expect(earliestAllowedDate('enterprise', '2026-11-21')).toBeNull();
    expect(addMonths('2025-03-31', -1)).toBe('2025-02-28');
    expect(addMonths('2025-01-15', -13)).toBe('2023-12-15');
    expect(addMonths('2025-12-31', 2)).toBe('2026-02-28');
  });
});

describe('rateLimitHeaders', () => {
  const now = 1_700_000_000;
  const minute = { name: 'minute' as const, limit: 100, remaining: 40, reset: now + 20, seconds: 60 };
  it('describes the minute window when it binds', () => {
    const day = { name: 'day' as const, limit: 100000, remaining: 5000, reset: now + 3600, seconds: 86400 };
    expect(rateLimitHeaders(minute, day, now)).toEqual({
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '40',
      'X-RateLimit-Reset': String(now + 20),
      'RateLimit-Policy': '"minute";q=100;w=60, "day";q=100000;w=86400',
      RateLimit: '"minute";r=40;t=20',
    });
  });
  it('describes the day window when fewer requests are left in the day', () => {
    const day = { name: 'day' as const, limit: 1000, remaining: 3, reset: now + 3600, seconds: 86400 };
    expect(rateLimitHeaders(minute, day, now)).toMatchObject({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '3',
      'X-RateLimit-Reset': String(now + 3600),
      RateLimit: '"day";r=3;t=3600',
    });
  });
});
