import { describe, expect, it } from 'vitest';
import {
  easterSunday,
  freshnessOf,
  fxReferenceRelease,
  fxReferenceReleasesOfYear,
  isTargetDay,
  lastDueRelease,
  nextRelease,
  releasesOfYear,
  targetHolidayOn,
} from './index.ts';

const iso = (d: Date | undefined) => d?.toISOString();

describe('TARGET days: the days the ECB publishes reference rates', () => {
  it('computes Easter Sunday (Gregorian)', () => {
    expect(easterSunday(2026)).toBe('2026-04-05');
    expect(easterSunday(2025)).toBe('2025-04-20');
    expect(easterSunday(2024)).toBe('2024-03-31');
    expect(easterSunday(2019)).toBe('2019-04-21');
    expect(easterSunday(2000)).toBe('2000-04-23');
    expect(easterSunday(2038)).toBe('2038-04-25');
    expect(easterSunday(2285)).toBe('2285-03-22');
  });

  it('closes on Good Friday and Easter Monday (2026: 3 and 6 April), 1 January, 1 May, 25 and 26 December', () => {
    expect(targetHolidayOn('2026-04-03')).toBe('Good Friday');
    expect(targetHolidayOn('2026-04-06')).toBe('Easter Monday');
    for (const d of ['2026-01-01', '2026-04-03', '2026-04-06', '2026-05-01', '2026-12-25', '2027-12-31'])
      expect(isTargetDay(d), d).toBe(d === '2027-12-31');
    // 26 December 2025 is a Friday, closed; 2026's is a Saturday
    expect(isTargetDay('2025-12-26')).toBe(false);
    expect(targetHolidayOn('2025-12-26')).toBe('26 December');
  });

  it('is open on the US holidays and the other weekdays, closed at weekends', () => {
    expect(isTargetDay('2026-04-13')).toBe(true); // a Monday, the rates of the bundled daily file
    expect(isTargetDay('2026-04-02')).toBe(true); // Maundy Thursday
    expect(isTargetDay('2026-07-03')).toBe(true); // US Independence Day observed
    expect(isTargetDay('2026-11-26')).toBe(true); // Thanksgiving
    expect(isTargetDay('2026-04-11')).toBe(false); // Saturday
    expect(isTargetDay('2026-04-12')).toBe(false); // Sunday
  });
});

describe('fxReferenceRelease: 16:00 Frankfurt on each TARGET day', () => {
  it('is 14:00Z in summer, 15:00Z in winter, and read in New York as the other releases are', () => {
    const summer = fxReferenceRelease('2026-04-13')!;
    expect(iso(summer.at)).toBe('2026-04-13T14:00:00.000Z');
    expect(summer).toMatchObject({ source: 'ecb', date: '2026-04-13', time: '10:00' });
    expect(iso(fxReferenceRelease('2026-01-15')?.at)).toBe('2026-01-15T15:00:00.000Z');
    // 2026-03-09 to 2026-03-27: New York on summer time, Frankfurt not yet: 11:00 there
    expect(fxReferenceRelease('2026-03-10')).toMatchObject({ date: '2026-03-10', time: '11:00' });
    expect(iso(fxReferenceRelease('2026-03-10')?.at)).toBe('2026-03-10T15:00:00.000Z');
    // the first Monday of Frankfurt summer time
    expect(iso(fxReferenceRelease('2026-03-30')?.at)).toBe('2026-03-30T14:00:00.000Z');
    expect(fxReferenceRelease('2026-05-01')).toBeUndefined();
  });

  it('counts the releases of a year: 2026 has 256 TARGET days (261 weekdays, five closing days on one)', () => {
    const year = fxReferenceReleasesOfYear(2026);
    expect(year).toHaveLength(256);
    expect(year.map((r) => r.date)).not.toContain('2026-04-03');
    expect(releasesOfYear(2026).filter((r) => r.source === 'ecb')).toHaveLength(256);
  });
});

describe('the ecb source judged on its calendar', () => {
  it('is due the day after 18:00 Frankfurt (16:00 + 2 hours grace), with that day as its data date', () => {
    const before = lastDueRelease('ecb', new Date('2026-04-13T15:59:00Z'));
    expect(before.date).toBe('2026-04-10');
    const after = lastDueRelease('ecb', new Date('2026-04-13T16:00:00Z'));
    expect([after.date, after.dataDate]).toEqual(['2026-04-13', '2026-04-13']);
    expect(freshnessOf('ecb', '2026-04-10', new Date('2026-04-13T16:30:00Z')).late).toBe(true);
    expect(freshnessOf('ecb', '2026-04-13', new Date('2026-04-13T16:30:00Z')).late).toBe(false);
  });

  it('skips Easter: after Maundy Thursday the next release is Tuesday 7 April 2026', () => {
    expect(nextRelease('ecb', new Date('2026-04-02T15:00:00Z')).date).toBe('2026-04-07');
    expect(freshnessOf('ecb', '2026-04-02', new Date('2026-04-06T20:00:00Z')).late).toBe(false);
  });
});
