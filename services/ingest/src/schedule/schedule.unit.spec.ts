import { describe, expect, it } from 'vitest';
import {
  addDays,
  lmHg201Release,
  freshnessOf,
  cotRelease,
  easternInstant,
  wpsrRelease,
  federalHolidays,
  isBusinessDay,
  localParts,
  quarterEndReportReleases,
  parseCron,
  releasesOfYear,
  SYNC_SCHEDULES,
} from './index.ts';

describe('federal holidays (observed)', () => {
  it('2026', () => {
    expect(federalHolidays(2026).map((h) => h.date)).toEqual([
      '2026-01-01',
      '2026-01-19',
      '2026-02-16',
      '2026-05-25',
      '2026-06-19',
      '2026-07-03', // July 4 is a Saturday
      '2026-09-07',
      '2026-10-12',
      '2026-11-11',
      '2026-11-26',
      '2026-12-25',
    ]);
  });
  it('2027, with the weekend rule both ways and New Year 2028 observed on Dec 31', () => {
    expect(federalHolidays(2027).map((h) => `${h.date} ${h.name}`)).toEqual([
      "2027-01-01 New Year's Day",
      '2027-01-18 Birthday of Martin Luther King, Jr.',
      "2027-02-15 Washington's Birthday",
      '2027-05-31 Memorial Day',
      '2027-06-18 Juneteenth National Independence Day', // Saturday -> Friday
      '2027-07-05 Independence Day', // Sunday -> Monday
      '2027-09-06 Labor Day',
      '2027-10-11 Columbus Day',
      '2027-11-11 Veterans Day',
      '2027-11-25 Thanksgiving Day',
      '2027-12-24 Christmas Day', // Saturday -> Friday
      "2027-12-31 New Year's Day", // Jan 1 2028 is a Saturday
    ]);
    expect(federalHolidays(2028).map((h) => h.date)).not.toContain('2027-12-31');
    expect(isBusinessDay('2027-12-31')).toBe(false);
    expect(isBusinessDay('2027-12-30')).toBe(true);
    expect(isBusinessDay('2026-07-04')).toBe(false);
  });
});

const cot = (d: string) => {
  const r = cotRelease(d);
  return `${r.date} ${r.time}`;
};
const wpsr = (d: string) => {
  const r = wpsrRelease(d);
  return `${r.date} ${r.time}`;
};

describe('CFTC Commitments of Traders: Friday 15:30 ET, next business day after a Wed-Fri holiday', () => {
  it.each([
    // [a day of the holiday week, release]
    ['2025-12-29', '2026-01-05 15:30'], // New Year Thu (the CFTC's own 2026 schedule: Jan 5)
    ['2026-01-19', '2026-01-23 15:30'], // MLK Mon: no shift (CFTC: Jan 23)
    ['2026-02-16', '2026-02-20 15:30'],
    ['2026-05-25', '2026-05-29 15:30'],
    ['2026-06-19', '2026-06-22 15:30'], // Juneteenth Fri
    ['2026-07-03', '2026-07-06 15:30'], // July 4 observed Fri
    ['2026-09-07', '2026-09-11 15:30'],
    ['2026-10-12', '2026-10-16 15:30'],
    ['2026-11-11', '2026-11-16 15:30'], // Veterans Day Wed
    ['2026-11-26', '2026-11-30 15:30'], // Thanksgiving
    ['2026-12-25', '2026-12-28 15:30'], // Christmas Fri
    ['2027-01-01', '2027-01-04 15:30'], // New Year Fri
    ['2027-01-18', '2027-01-22 15:30'],
    ['2027-02-15', '2027-02-19 15:30'],
    ['2027-05-31', '2027-06-04 15:30'],
    ['2027-06-18', '2027-06-21 15:30'], // Juneteenth observed Fri
    ['2027-07-05', '2027-07-09 15:30'], // July 4 observed Mon: no shift
    ['2027-09-06', '2027-09-10 15:30'],
    ['2027-10-11', '2027-10-15 15:30'],
    ['2027-11-11', '2027-11-15 15:30'], // Veterans Day Thu
    ['2027-11-25', '2027-11-29 15:30'],
    ['2027-12-24', '2027-12-27 15:30'], // Christmas observed Fri
    ['2027-12-31', '2028-01-03 15:30'], // New Year 2028 observed Fri Dec 31
    ['2026-03-10', '2026-03-13 15:30'], // an ordinary week
  ])('week of %s -> %s', (day, expected) => {
    expect(cot(day)).toBe(expected);
  });
  it('names the holiday that moved it', () => {
    expect(cotRelease('2026-11-26').shiftedBy).toBe('Thanksgiving Day');
    expect(cotRelease('2026-01-19').shiftedBy).toBeUndefined();
  });
});

describe('EIA Weekly Petroleum Status Report: Wednesday 10:30 ET, Thursday 11:00 after a Mon-Wed holiday', () => {
  it.each([
    ['2025-12-29', '2025-12-31 10:30'], // New Year Thu: no shift
    ['2026-01-19', '2026-01-22 11:00'], // MLK
    ['2026-02-16', '2026-02-19 11:00'],
    ['2026-05-25', '2026-05-28 11:00'],
    ['2026-06-19', '2026-06-17 10:30'], // Juneteenth Fri: no shift
    ['2026-07-03', '2026-07-01 10:30'],
    ['2026-09-07', '2026-09-10 11:00'],
    ['2026-10-12', '2026-10-15 11:00'],
    ['2026-11-11', '2026-11-12 11:00'], // Veterans Day Wed
    ['2026-11-26', '2026-11-25 10:30'],
    ['2026-12-25', '2026-12-23 10:30'],
    ['2027-01-01', '2026-12-30 10:30'],
    ['2027-01-18', '2027-01-21 11:00'],
    ['2027-02-15', '2027-02-18 11:00'],
    ['2027-05-31', '2027-06-03 11:00'],
    ['2027-06-18', '2027-06-16 10:30'],
    ['2027-07-05', '2027-07-08 11:00'],
    ['2027-09-06', '2027-09-09 11:00'],
    ['2027-10-11', '2027-10-14 11:00'],
    ['2027-11-11', '2027-11-10 10:30'], // Veterans Day Thu: no shift
    ['2027-11-25', '2027-11-24 10:30'],
    ['2027-12-24', '2027-12-22 10:30'],
    ['2027-12-31', '2027-12-29 10:30'],
  ])('week of %s -> %s', (day, expected) => {
    expect(wpsr(day)).toBe(expected);
  });
});

describe('NASS quarter-end reports: 12:00 ET on the last business day of March, June, September', () => {
  it('2026 and 2027', () => {
    expect(quarterEndReportReleases(2026).map((r) => r.date)).toEqual(['2026-03-31', '2026-06-30', '2026-09-30']);
    expect(quarterEndReportReleases(2027).map((r) => r.date)).toEqual(['2027-03-31', '2027-06-30', '2027-09-30']);
    expect(quarterEndReportReleases(2029).map((r) => r.date)).toEqual(['2029-03-30', '2029-06-29', '2029-09-28']);
  });
});

describe('Eastern time', () => {
  it('follows daylight saving time (2026: Mar 8 - Nov 1)', () => {
    expect(easternInstant('2026-03-04', '10:30').toISOString()).toBe('2026-03-04T15:30:00.000Z');
    expect(easternInstant('2026-03-11', '10:30').toISOString()).toBe('2026-03-11T14:30:00.000Z');
    expect(easternInstant('2026-11-06', '15:30').toISOString()).toBe('2026-11-06T20:30:00.000Z');
    expect(localParts(new Date('2026-07-01T14:30:00Z'))).toEqual({ date: '2026-07-01', time: '10:30', dow: 3 });
  });
});

describe('the sync CronJobs cover every release of 2026 and 2027', () => {
  const specs = SYNC_SCHEDULES.map((s) => ({ ...s, cron: parseCron(s.schedule) }));
  /** The first slot of the source's CronJobs at or after the release, within `maxMinutes`, each job on its own clock. */
  const firstRun = (source: string, at: Date, maxMinutes: number) => {
    for (let m = 0; m <= maxMinutes; m++) {
      const instant = new Date(at.getTime() + m * 60_000);
      const hit = specs.find((s) => s.source === source && s.cron.matches(localParts(instant, s.timeZone)));
      if (hit) return { minutes: m, job: hit.name };
    }
    return undefined;
  };
  // The ECB's rates come out "around 16:00" Frankfurt time, sometimes minutes later: their job waits half an hour.
  const wait = (source: string) => (source === 'ecb' ? 30 : 10);
  it('a run follows each release within 10 minutes (the reference rates within 30)', () => {
    const releases = [...releasesOfYear(2026), ...releasesOfYear(2027)];
    expect(releases.filter((r) => r.source === 'cftc').length).toBeGreaterThanOrEqual(104);
    expect(releases.filter((r) => r.source === 'ecb')).toHaveLength(256 + 258);
    for (const r of releases) {
      const run = firstRun(r.source, r.at, wait(r.source));
      expect(run, `${r.source} ${r.report} ${r.date} ${r.time}`).toBeDefined();
      expect(run!.minutes).toBeGreaterThan(0);
    }
  });
  it('the EIA daily job runs on every weekday; NASS on the Crop Production candidate days', () => {
    for (let d = '2026-01-01'; d <= '2027-12-31'; d = addDays(d, 1)) {
      const daily = firstRun('eia', easternInstant(d, '17:59'), 2);
      const dow = new Date(`${d}T12:00:00Z`).getUTCDay();
      expect(daily !== undefined, d).toBe(dow >= 1 && dow <= 5);
      const day = Number(d.slice(8));
      expect(firstRun('nass', easternInstant(d, '12:00'), 10) !== undefined, d).toBe(
        (day >= 8 && day <= 12) || (day >= 26 && ['03', '06', '09'].includes(d.slice(5, 7))),
      );
    }
  });
  it('reads cron fields like Kubernetes does', () => {
    const both = parseCron('0 12 1 * 1');
    expect(both.matches({ date: '2026-06-01', time: '12:00', dow: 1 })).toBe(true);
    expect(both.matches({ date: '2026-06-08', time: '12:00', dow: 1 })).toBe(true); // day-of-week alone
    expect(both.matches({ date: '2026-06-09', time: '12:00', dow: 2 })).toBe(false);
    expect(() => parseCron('61 * * * *')).toThrow(/out of range/);
    expect(() => parseCron('* * *')).toThrow(/5 fields/);
  });
});

describe('USDA AMS: LM_HG201 each weekday by 11:00 ET with the weekday before, federal holidays included', () => {
  it('judges the ams source on the daily hog report', () => {
    // Monday 2026-11-30, 14:00 ET: Monday's report (Friday's slaughter) is due
    const monday = freshnessOf('ams', '2026-11-27', easternInstant('2026-11-30', '14:00'));
    expect([monday.due.date, monday.due.time, monday.due.dataDate, monday.late]).toEqual([
      '2026-11-30',
      '11:00',
      '2026-11-27',
      false,
    ]);
    expect(monday.next.date).toBe('2026-12-01');
    // Washington's Birthday does not stop the LMR reports (the recorded LM_HG201 rows hold a report
    // of 2019-02-18): Tuesday's report carries Monday's slaughter. Market News closures the rule
    // does not know (Thanksgiving, Christmas) show the source late until the next report.
    expect(freshnessOf('ams', '2027-02-12', easternInstant('2027-02-16', '14:00'))).toMatchObject({
      due: { date: '2027-02-16', dataDate: '2027-02-15' },
      late: true,
    });
    expect(lmHg201Release('2026-11-26').at.toISOString()).toBe('2026-11-26T16:00:00.000Z');
  });
});
