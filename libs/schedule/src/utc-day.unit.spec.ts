import { describe, expect, it } from 'vitest';
import { UtcDay, utcToday } from './utc-day.ts';

describe('utcToday', () => {
  it('follows the clock across UTC midnight and backwards', () => {
    let now = new Date('2025-12-31T23:59:59.999Z');
    const today = utcToday(() => now);
    expect(today()).toBe('2025-12-31');
    now = new Date('2026-01-01T00:00:00.000Z');
    expect(today()).toBe('2026-01-01');
    now = new Date('2026-01-01T23:00:00+05:00'); // 18:00 UTC
    expect(today()).toBe('2026-01-01');
    now = new Date('2025-06-01T12:00:00Z');
    expect(today()).toBe('2025-06-01');
  });
});

describe('UtcDay', () => {
  it('gives the UTC date of epoch milliseconds, before 1970 too', () => {
    const day = new UtcDay();
    expect(day.of(Date.parse('2026-03-01T00:00:00Z') - 1)).toBe('2026-02-28');
    expect(day.of(Date.parse('2026-03-01T00:00:00Z'))).toBe('2026-03-01');
    expect(day.of(-1)).toBe('1969-12-31');
  });
});
