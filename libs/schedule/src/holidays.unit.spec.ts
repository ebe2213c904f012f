import { describe, expect, it } from 'vitest';
import { addDays, dateOf, isBusinessDay, weekday } from './holidays.ts';

describe('the date helpers', () => {
  it('add days across months, leap days and years, both ways', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2025-02-28', 1)).toBe('2025-03-01');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
    expect(addDays('1970-01-01', -1)).toBe('1969-12-31');
    expect(addDays('2025-03-09', 366)).toBe('2026-03-10');
  });

  it('name the weekday (0 Sunday ... 6 Saturday), before 1970 too', () => {
    expect(weekday('1970-01-01')).toBe(4);
    expect(weekday('1969-12-31')).toBe(3);
    expect(weekday('1900-01-01')).toBe(1);
    expect(weekday('2025-11-19')).toBe(3);
    expect(weekday('2026-12-06')).toBe(0);
    expect(weekday('2026-12-05')).toBe(6);
  });

  it('refuse what is not a date YYYY-MM-DD', () => {
    for (const bad of ['2025-1-01', '2025-01-0x', ' 2025-01-01', '2025/01/01', '2025-01-011', '', '+025-01-01'])
      expect(() => dateOf(bad), bad).toThrow(/not a date/);
    expect(() => weekday('nope')).toThrow(/not a date/);
    expect(() => addDays('2025-13', 1)).toThrow(/not a date/);
  });

  it('counts observed federal holidays out of business days', () => {
    expect(isBusinessDay('2027-12-31')).toBe(false); // New Year 2028 (a Saturday) observed
    expect(isBusinessDay('2025-11-11')).toBe(false);
    expect(isBusinessDay('2025-11-12')).toBe(true);
  });
});
