import { describe, expect, it } from 'vitest';
import { RELEASE_RULES } from '@cds/contracts';
import { addDays, calendarReleases, cotReportPublishedAt, estimatedFirstRelease, weekday } from './index.ts';

const iso = (d: Date | undefined) => d?.toISOString();
const SHUTDOWN_2025 = '2025 federal government shutdown: catch-up schedule';
const SHUTDOWN_2019 = '2018-19 federal government shutdown: catch-up schedule';

describe('calendarReleases: cot-weekly and the CFTC shutdown catch-up schedules', () => {
  it('lists the 2025 catch-up (report date -> publish date), each at 15:30 ET, shifted from its usual Friday', () => {
    const rows = calendarReleases('cot-weekly', '2025-11-19', '2026-01-23');
    expect(rows.map((r) => `${r.dataDate}>${r.date}`)).toEqual([
      '2025-09-30>2025-11-19',
      '2025-10-07>2025-11-21',
      '2025-10-14>2025-11-25',
      '2025-10-21>2025-12-02',
      '2025-10-28>2025-12-05',
      '2025-11-04>2025-12-09',
      '2025-11-10>2025-12-12',
      '2025-11-18>2025-12-16',
      '2025-11-25>2025-12-19',
      '2025-12-02>2025-12-23',
      '2025-12-09>2025-12-30',
      '2025-12-16>2026-01-06',
      '2025-12-23>2026-01-09',
      '2025-12-30>2026-01-13',
      '2026-01-06>2026-01-16',
      '2026-01-13>2026-01-20',
      '2026-01-20>2026-01-23',
    ]);
    expect(rows.every((r) => r.time === '15:30' && r.cancelled === undefined)).toBe(true);
    // 15:30 EST = 20:30Z; the usual Friday of the 09-30 report, 10-03, was in EDT (19:30Z)
    expect(rows[0]).toMatchObject({
      at: new Date('2025-11-19T20:30:00Z'),
      shifted: { from: new Date('2025-10-03T19:30:00Z'), reason: SHUTDOWN_2025 },
    });
    // Monday positions (Veterans Day Tuesday), usually out on Friday 11-14
    expect(rows[6]!.shifted).toEqual({ from: new Date('2025-11-14T20:30:00Z'), reason: SHUTDOWN_2025 });
    // Shifted from the release the calendar had: Thanksgiving moved the 11-25 report's to Monday 12-01
    // (the CFTC's table says "original publish date" 12/01/2025), as Christmas did the 12-23 one's
    expect(rows[8]!.shifted!.from).toEqual(new Date('2025-12-01T20:30:00Z'));
    expect(rows[12]!.shifted!.from).toEqual(new Date('2025-12-29T20:30:00Z'));
    // Back on the normal schedule: the last row is the usual Friday, not a shift
    expect(rows.at(-1)!.shifted).toBeUndefined();
    expect(rows.slice(0, -1).every((r) => r.shifted?.reason === SHUTDOWN_2025)).toBe(true);
  });

  it('has nothing while the shutdown held the reports back, and the normal release on each side', () => {
    expect(calendarReleases('cot-weekly', '2025-09-27', '2025-11-18')).toEqual([]);
    expect(calendarReleases('cot-weekly', '2025-09-22', '2025-09-26')).toMatchObject([
      { date: '2025-09-26', dataDate: '2025-09-23' },
    ]);
    expect(calendarReleases('cot-weekly', '2026-01-24', '2026-02-06').map((r) => [r.date, r.dataDate])).toEqual([
      ['2026-01-30', '2026-01-27'],
      ['2026-02-06', '2026-02-03'],
    ]);
  });

  it('lists the 2019 catch-up: Tuesdays and Fridays from 02-01 until the normal release of 03-08', () => {
    const rows = calendarReleases('cot-weekly', '2018-12-22', '2019-03-08');
    expect(rows.map((r) => `${r.dataDate}>${r.date}`)).toEqual([
      '2018-12-24>2019-02-01',
      '2018-12-31>2019-02-05',
      '2019-01-08>2019-02-08',
      '2019-01-15>2019-02-12',
      '2019-01-22>2019-02-15',
      '2019-01-29>2019-02-19',
      '2019-02-05>2019-02-22',
      '2019-02-12>2019-02-26',
      '2019-02-19>2019-03-01',
      '2019-02-26>2019-03-05',
      '2019-03-05>2019-03-08',
    ]);
    // Monday 2018-12-24 positions (Christmas Tuesday), usually out on Friday 2018-12-28 15:30 EST
    expect(rows[0]!.shifted).toEqual({ from: new Date('2018-12-28T20:30:00Z'), reason: SHUTDOWN_2019 });
    expect(rows.at(-1)!.shifted).toBeUndefined();
    expect(calendarReleases('cot-weekly', '2018-12-15', '2019-01-31').map((r) => r.date)).toEqual(['2018-12-21']);
  });

  it('says which report a reader as of an instant in the catch-up can have (point in time)', () => {
    const asOf = new Date('2025-11-20T12:00:00Z');
    expect(cotReportPublishedAt('2025-09-30').getTime()).toBeLessThanOrEqual(asOf.getTime());
    expect(cotReportPublishedAt('2025-10-07').getTime()).toBeGreaterThan(asOf.getTime());
    expect(iso(estimatedFirstRelease('cot-weekly', '2025-10-07'))).toBe('2025-11-21T20:30:00.000Z');
    // A date between two reports is first carried by the next report (10-07's)
    expect(iso(estimatedFirstRelease('cot-weekly', '2025-10-01'))).toBe('2025-11-21T20:30:00.000Z');
    expect(iso(estimatedFirstRelease('cot-weekly', '2019-01-08'))).toBe('2019-02-08T20:30:00.000Z');
  });
});

describe('calendarReleases: holiday shifts', () => {
  it('moves a Thanksgiving-week COT release to Monday, shifted from the usual Friday', () => {
    expect(calendarReleases('cot-weekly', '2024-11-25', '2024-12-02')).toEqual([
      {
        rule: 'cot-weekly',
        report: 'Commitments of Traders',
        date: '2024-12-02',
        time: '15:30',
        at: new Date('2024-12-02T20:30:00Z'),
        dataDate: '2024-11-26',
        shifted: { from: new Date('2024-11-29T20:30:00Z'), reason: 'Thanksgiving Day' },
      },
    ]);
  });

  it('moves the WPSR of a Monday-holiday week to Thursday 11:00, shifted from Wednesday 10:30', () => {
    const [r] = calendarReleases('wpsr-weekly', '2025-01-20', '2025-01-26');
    expect(r).toMatchObject({
      date: '2025-01-23',
      time: '11:00',
      dataDate: '2025-01-17',
      shifted: { from: new Date('2025-01-22T15:30:00Z'), reason: 'Birthday of Martin Luther King, Jr.' },
    });
    expect(calendarReleases('wpsr-weekly', '2025-03-10', '2025-03-16')[0]!.shifted).toBeUndefined();
  });
});

describe('calendarReleases: WASDE editions, cancelled and moved', () => {
  it('lists the cancelled October 2025 edition (at its scheduled time) and November moved to the 14th', () => {
    const rows = calendarReleases('supply-demand-monthly', '2025-09-01', '2025-12-31');
    expect(rows.map((r) => [r.date, r.dataDate, r.cancelled !== undefined])).toEqual([
      ['2025-09-12', '2025-09-01', false],
      ['2025-10-09', '2025-10-01', true],
      ['2025-11-14', '2025-11-01', false],
      ['2025-12-09', '2025-12-01', false],
    ]);
    expect(rows[1]).toMatchObject({
      at: new Date('2025-10-09T16:00:00Z'),
      cancelled: '2025 federal government shutdown: USDA cancelled the edition',
    });
    expect(rows[1]!.shifted).toBeUndefined();
    expect(rows[2]!.shifted).toEqual({
      from: new Date('2025-11-10T17:00:00Z'),
      reason: '2025 federal government shutdown: USDA moved the edition',
    });
    // October's data first came with November's edition
    expect(iso(estimatedFirstRelease('supply-demand-monthly', '2025-10-01'))).toBe('2025-11-14T17:00:00.000Z');
  });

  it('lists October 2013 and January 2019 as cancelled on their scheduled Fridays, 08:30 ET before 2013', () => {
    const cancelled = ['2013', '2019'].flatMap((y) =>
      calendarReleases('supply-demand-monthly', `${y}-01-01`, `${y}-12-31`).filter((r) => r.cancelled !== undefined),
    );
    expect(cancelled.map((r) => [r.date, r.time])).toEqual([
      ['2013-10-11', '12:00'],
      ['2019-01-11', '12:00'],
    ]);
    expect(calendarReleases('supply-demand-monthly', '2012-12-01', '2013-01-31').map((r) => r.time)).toEqual([
      '08:30',
      '12:00',
    ]);
  });
});

describe('calendarReleases: ranges', () => {
  it('crosses a year end, inclusive at both ends, sorted by time', () => {
    // Christmas and New Year on Fridays move the COT releases to the Mondays after
    expect(calendarReleases('cot-weekly', '2026-12-28', '2027-01-04').map((r) => [r.date, r.dataDate])).toEqual([
      ['2026-12-28', '2026-12-22'],
      ['2027-01-04', '2026-12-29'],
    ]);
    // TARGET closes on 25 and 26 December and 1 January
    expect(calendarReleases('fx-reference-daily', '2025-12-24', '2026-01-02').map((r) => r.date)).toEqual([
      '2025-12-24',
      '2025-12-29',
      '2025-12-30',
      '2025-12-31',
      '2026-01-02',
    ]);
  });

  it('is empty for an end before the start, and refuses what is not a date', () => {
    expect(calendarReleases('lm-hg201-daily', '2025-03-10', '2025-03-09')).toEqual([]);
    expect(() => calendarReleases('lm-hg201-daily', '2025-3-1', '2025-03-09')).toThrow(RangeError);
    expect(() => calendarReleases('lm-hg201-daily', '2025-02-29', '2025-03-09')).toThrow(/not a date range/);
    expect(() => calendarReleases('lm-hg201-daily', '1850-01-01', '1850-03-09')).toThrow(/not a date range/);
    expect(() => calendarReleases('cot-weekly', '1950-01-01', '2050-01-01')).toThrow(/more than 100 years/);
    expect(calendarReleases('cot-weekly', '2999-12-18', '2999-12-24').map((r) => weekday(r.date))).toEqual([5]);
  });

  it('lists every rule over 366 days, each release inside the range and in time order', () => {
    for (const rule of RELEASE_RULES) {
      const rows = calendarReleases(rule, '2024-03-01', '2025-03-01');
      expect(rows.length).toBeGreaterThan(0);
      for (const [i, r] of rows.entries()) {
        expect(r.rule).toBe(rule);
        expect(r.date >= '2024-03-01' && r.date <= '2025-03-01').toBe(true);
        expect(r.dataDate <= r.date).toBe(true);
        if (i > 0) expect(r.at.getTime()).toBeGreaterThanOrEqual(rows[i - 1]!.at.getTime());
      }
    }
  });
});

describe('estimatedFirstRelease', () => {
  it('an EIA daily price of Wednesday 2025-03-05 came with the WPSR of Wednesday 2025-03-12 10:30 ET', () => {
    // That WPSR carries the week ending Friday 2025-03-07; the one of 03-05 ended on 02-28.
    expect(iso(estimatedFirstRelease('wpsr-weekly', '2025-03-05'))).toBe('2025-03-12T14:30:00.000Z');
    expect(iso(estimatedFirstRelease('wpsr-weekly', '2025-02-28'))).toBe('2025-03-05T15:30:00.000Z');
  });

  it('an ECB day: 16:00 Frankfurt the same day; a weekend or TARGET holiday with the next TARGET day', () => {
    expect(iso(estimatedFirstRelease('fx-reference-daily', '2025-03-05'))).toBe('2025-03-05T15:00:00.000Z');
    expect(iso(estimatedFirstRelease('fx-reference-daily', '2025-03-08'))).toBe('2025-03-10T15:00:00.000Z');
    // Good Friday 2025-04-18 and Easter Monday: Tuesday 04-22, 16:00 CEST = 14:00Z
    expect(iso(estimatedFirstRelease('fx-reference-daily', '2025-04-18'))).toBe('2025-04-22T14:00:00.000Z');
  });

  it('a Pink Sheet month (dated its last day) came on the 2nd business day of the next month', () => {
    // 2025-11-01 is a Saturday: Monday 11-03 is the 1st business day, Tuesday 11-04 the 2nd (12:00 EST)
    expect(iso(estimatedFirstRelease('pink-sheet-monthly', '2025-10-31'))).toBe('2025-11-04T17:00:00.000Z');
  });

  it('cannot say before the rule first held, nor for a release after `now`', () => {
    expect(estimatedFirstRelease('cot-weekly', '1995-01-03')).toBeUndefined();
    expect(estimatedFirstRelease('pink-sheet-monthly', '2010-05-31')).toBeUndefined();
    const now = new Date('2026-12-02T00:00:00Z');
    expect(estimatedFirstRelease('cot-weekly', '2026-12-01', now)).toBeUndefined();
    expect(iso(estimatedFirstRelease('cot-weekly', '2026-12-01', new Date('2026-12-05T00:00:00Z')))).toBe(
      '2026-12-04T20:30:00.000Z',
    );
    expect(estimatedFirstRelease('cot-weekly', 'not-a-date')).toBeUndefined();
    expect(estimatedFirstRelease('cot-weekly', '2025-02-30')).toBeUndefined();
    expect(estimatedFirstRelease('fx-reference-daily', '2999-12-31', new Date(8.64e15))).toBeDefined();
  });

  it('is never before the observation and never earlier for a later date (every day of 2024, every rule)', () => {
    for (const rule of RELEASE_RULES) {
      let last = 0;
      for (let d = '2024-01-01'; d <= '2024-12-31'; d = addDays(d, 1)) {
        const at = estimatedFirstRelease(rule, d);
        expect(at, `${rule} ${d}`).toBeDefined();
        expect(at!.getTime()).toBeGreaterThanOrEqual(Date.parse(`${d}T00:00:00Z`));
        expect(at!.getTime()).toBeGreaterThanOrEqual(last);
        last = at!.getTime();
      }
    }
  });
});
