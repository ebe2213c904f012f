import { describe, expect, it } from 'vitest';
import { calendarReleases, estimatedFirstRelease } from './index.ts';

const iso = (d: Date | undefined) => d?.toISOString();

describe('calendarReleases: cot-weekly with the shutdown catch-up schedules', () => {
  it('lists the 2025 catch-up releases at 15:30 ET, each shifted from its usual Friday', () => {
    const rows = calendarReleases('cot-weekly', '2025-11-17', '2025-11-30');
    expect(rows.map((r) => [r.dataDate, r.date, r.time])).toEqual([
      ['2025-09-30', '2025-11-19', '15:30'],
      ['2025-10-07', '2025-11-21', '15:30'],
      ['2025-10-14', '2025-11-25', '15:30'],
    ]);
    expect(rows[0]!.shifted).toEqual({
      from: new Date('2025-10-03T19:30:00Z'),
      reason: '2025 federal government shutdown: CFTC catch-up schedule',
    });
  });
});

describe('estimatedFirstRelease', () => {
  it('an EIA daily price of Wednesday 2025-03-05 came with the WPSR of Wednesday 2025-03-12 10:30 ET', () => {
    expect(iso(estimatedFirstRelease('wpsr-weekly', '2025-03-05'))).toBe('2025-03-12T14:30:00.000Z');
  });
});
