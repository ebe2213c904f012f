import { describe, expect, it } from 'vitest';
import { addDays, cotRelease, easternInstant } from '@cds/schedule';
import { cotReportDateOfWeek, lastReleasedCotDate } from './cot-dates.ts';
import { demoCotDates, generateDemoItems } from './generate.ts';

// Demo COT reports are dated like the CFTC's: Tuesday positions, released the Friday after at
// 15:30 America/New_York (moved to the next business day by a federal holiday on the Wednesday,
// Thursday or Friday), and never dated after the last release that has happened.

const et = (date: string, time: string) => easternInstant(date, time);

describe('the newest released COT report date', () => {
  it('an ordinary Friday: the Tuesday of the week from 15:30 ET on (EDT after the March change)', () => {
    expect(lastReleasedCotDate(new Date('2026-03-13T19:29:59Z'))).toBe('2026-03-03');
    expect(lastReleasedCotDate(new Date('2026-03-13T19:30:00Z'))).toBe('2026-03-10');
    // EST in January: 15:30 ET is 20:30 UTC
    expect(lastReleasedCotDate(new Date('2027-01-15T20:29:00Z'))).toBe('2027-01-05');
    expect(lastReleasedCotDate(new Date('2027-01-15T20:30:00Z'))).toBe('2027-01-12');
  });

  it.each([
    // [holiday, before the shifted release, at the shifted release, report date of the shifted week, previous one]
    ['Veterans Day Wed 2026-11-11', '2026-11-13', '2026-11-16', '2026-11-10', '2026-11-03'],
    ['Thanksgiving Thu 2026-11-26', '2026-11-27', '2026-11-30', '2026-11-24', '2026-11-17'],
    ['Christmas Fri 2026-12-25', '2026-12-25', '2026-12-28', '2026-12-22', '2026-12-15'],
    ["New Year's Day Fri 2027-01-01", '2027-01-01', '2027-01-04', '2026-12-29', '2026-12-22'],
    ['Juneteenth observed Fri 2027-06-18', '2027-06-18', '2027-06-21', '2027-06-15', '2027-06-08'],
    ['Independence Day observed Fri 2026-07-03', '2026-07-03', '2026-07-06', '2026-06-30', '2026-06-23'],
    ['Veterans Day Thu 2027-11-11', '2027-11-12', '2027-11-15', '2027-11-09', '2027-11-02'],
    ['Thanksgiving Thu 2027-11-25', '2027-11-26', '2027-11-29', '2027-11-23', '2027-11-16'],
    ["New Year's observed Fri 2027-12-31", '2027-12-31', '2028-01-03', '2027-12-28', '2027-12-21'],
  ])('%s: the release moves to the next business day and the demo waits for it', (_, friday, shifted, week, prev) => {
    expect(lastReleasedCotDate(et(friday, '16:00'))).toBe(prev);
    expect(lastReleasedCotDate(et(shifted, '15:29'))).toBe(prev);
    expect(lastReleasedCotDate(et(shifted, '15:30'))).toBe(week);
  });

  it('a Monday holiday moves nothing (MLK Day 2027-01-18, Independence Day observed Mon 2027-07-05)', () => {
    expect(lastReleasedCotDate(et('2027-01-22', '15:30'))).toBe('2027-01-19');
    expect(lastReleasedCotDate(et('2027-07-09', '15:30'))).toBe('2027-07-06');
  });

  it('a federal holiday on the Tuesday dates the report on the Monday (Veterans Day 2025)', () => {
    expect(cotReportDateOfWeek('2025-11-14')).toBe('2025-11-10');
    expect(cotReportDateOfWeek('2026-11-12')).toBe('2026-11-10');
  });

  it('every day of 2026 and 2027: the newest report is of the last release already out, never later', () => {
    for (let day = '2026-01-01'; day < '2028-01-01'; day = addDays(day, 1)) {
      for (const time of ['09:00', '15:29', '15:30', '23:59']) {
        const asOf = et(day, time);
        const date = lastReleasedCotDate(asOf);
        expect(cotRelease(date).at.getTime(), `${day} ${time}`).toBeLessThanOrEqual(asOf.getTime());
        expect(cotRelease(addDays(date, 7)).at.getTime(), `${day} ${time}`).toBeGreaterThan(asOf.getTime());
        expect(date < day).toBe(true);
      }
    }
  });
});

describe('the demo generator dates its COT like the CFTC', () => {
  it('weekly report dates from the start of the range up to the last release before the end of `today`', () => {
    const dates = demoCotDates({ today: '2026-11-27', years: 1 });
    expect(dates.at(-1)).toBe('2026-11-17'); // Thanksgiving week: released Monday Nov 30
    expect(dates[0]).toBe('2025-12-02');
    for (const [i, d] of dates.entries()) {
      if (i > 0) expect(d).toBe(addDays(dates[i - 1]!, 7));
      expect(new Date(`${d}T00:00:00Z`).getUTCDay()).toBe(2);
    }
  });

  it('the clock bounds the reports: a Friday before 15:30 ET still ends at the previous week', () => {
    const now = () => new Date('2026-11-20T20:00:00Z'); // Friday 15:00 EST
    expect(demoCotDates({ now, years: 1 }).at(-1)).toBe('2026-11-10');
    const later = () => new Date('2026-11-20T20:30:00Z'); // 15:30 EST
    expect(demoCotDates({ now: later, years: 1 }).at(-1)).toBe('2026-11-17');
  });

  it('every generated item says source "demo", and no COT report is dated after the last release', () => {
    const now = () => et('2026-12-26', '12:00');
    const items = [...generateDemoItems({ now, years: 1, commodities: ['CRUDE_OIL_WTI', 'CORN'] })];
    const cot = items.flatMap((i) => (i.kind === 'cot' ? [i] : []));
    expect(cot.length).toBeGreaterThan(100);
    for (const i of items) {
      if (i.kind === 'rejected') throw new Error(i.reason);
      expect(i.source).toBe('demo');
    }
    const newest = cot
      .map((c) => c.record.report_date)
      .sort()
      .at(-1);
    expect(newest).toBe('2026-12-15'); // Christmas Friday: the Dec 22 report comes out on Monday Dec 28
    // prices still run to today
    const prices = items.filter((i) => i.kind === 'series' && i.series_type === 'price');
    expect(prices.at(-1)).toMatchObject({ point: { date: '2026-12-25' } });
  });
});
