import { SOURCES, SYNC_SOURCE_NAMES, type ReleaseRule, type SyncSourceName } from '@cds/contracts';
import { addDays, dateOf, holidayOn, isBusinessDay, isoDate, nextBusinessDay, weekday } from './holidays.ts';
import { COT_CATCH_UP_TIME, cotCatchUp } from './shutdowns.ts';
import { wallClockMs } from './zone-offsets.ts';

/** Every publisher we sync releases on US Eastern time. */
export const RELEASE_TIME_ZONE = 'America/New_York';

/** A scheduled publication: its local date and time in America/New_York and the UTC instant. */
export interface Release {
  /** The synced source whose calendar (its row of the contracts' SOURCES) follows the rule. */
  source: SyncSourceName;
  report: string;
  /** Local date in America/New_York, YYYY-MM-DD. */
  date: string;
  /** Local time, HH:MM. */
  time: string;
  at: Date;
  /** Why the release left its usual day, when it did. */
  shiftedBy?: string;
}

/** The local wall-clock of an instant in a time zone (America/New_York unless told): date YYYY-MM-DD, time HH:MM, weekday. */
export function localParts(
  at: Date,
  timeZone: string = RELEASE_TIME_ZONE,
): { date: string; time: string; dow: number } {
  const wall = new Date(wallClockMs(at.getTime(), timeZone));
  const time = `${String(wall.getUTCHours()).padStart(2, '0')}:${String(wall.getUTCMinutes()).padStart(2, '0')}`;
  return { date: isoDate(wall), time, dow: wall.getUTCDay() };
}

/** The UTC instant of a wall-clock time in a time zone (DST by the tz database, via Intl). */
export function zonedInstant(date: string, time: string, timeZone: string): Date {
  const [h, m] = time.split(':').map(Number) as [number, number];
  const wall = dateOf(date).getTime() + (h * 60 + m) * 60_000;
  // Guess with the offset at the wall time read as UTC, then correct once (DST changes at night).
  let at = wall;
  for (let i = 0; i < 2; i++) at += wall - wallClockMs(at, timeZone);
  return new Date(at);
}

/** The UTC instant of a wall-clock time in America/New_York. */
export function easternInstant(date: string, time: string): Date {
  return zonedInstant(date, time, RELEASE_TIME_ZONE);
}

/** The Monday of the week holding `date` (weeks run Monday to Sunday). */
export function mondayOf(date: string): string {
  return addDays(date, -((weekday(date) + 6) % 7));
}

// Built backwards so that the first source of a rule, in table order, is the one kept.
const SOURCE_OF_RULE = new Map(SYNC_SOURCE_NAMES.map((n) => [SOURCES[n].calendar.rule, n] as const).reverse());

/** The synced source whose calendar follows a rule (the first in the table). */
export function sourceOfRule(rule: ReleaseRule): SyncSourceName {
  const source = SOURCE_OF_RULE.get(rule);
  if (source === undefined) throw new Error(`no synced source follows the release rule ${rule}`);
  return source;
}

/** A release of a rule at a local date and time in New York (its source is the one following the rule). */
export function release(rule: ReleaseRule, report: string, date: string, time: string, shiftedBy?: string): Release {
  return {
    source: sourceOfRule(rule),
    report,
    date,
    time,
    at: easternInstant(date, time),
    ...(shiftedBy !== undefined ? { shiftedBy } : {}),
  };
}

/**
 * A release of a rule at an instant fixed in another time zone (the ECB's 16:00 Frankfurt): its
 * date and time are then read in New York, as every Release states them.
 */
export function releaseAt(rule: ReleaseRule, report: string, at: Date): Release {
  const local = localParts(at);
  return { source: sourceOfRule(rule), report, date: local.date, time: local.time, at };
}

function holidaysIn(dates: string[]): string | undefined {
  const names = dates.map((d) => holidayOn(d)?.name).filter((n): n is string => n !== undefined);
  return names.length > 0 ? names.join(', ') : undefined;
}

/**
 * The Commitments of Traders release of the week holding `date`: Friday 15:30 ET with Tuesday's
 * positions. The CFTC's published schedules (e.g. 2024: Juneteenth Wed -> Mon Jun 24, July 4 Thu ->
 * Mon Jul 8, Thanksgiving -> Mon Dec 2, Christmas Wed -> Mon Dec 30; 2025/26: Christmas Thu -> Mon
 * Dec 29, New Year Thu -> Mon Jan 5) show the practice: a federal holiday on the Wednesday, Thursday
 * or Friday of the week moves the release to the next business day after that Friday. A Monday
 * holiday does not move it, and a Tuesday holiday only makes the report use Monday's positions.
 */
export function cotRelease(date: string): Release {
  const monday = mondayOf(date);
  const friday = addDays(monday, 4);
  const cause = holidaysIn([2, 3, 4].map((i) => addDays(monday, i)));
  if (cause === undefined) return release('cot-weekly', 'Commitments of Traders', friday, '15:30');
  return release('cot-weekly', 'Commitments of Traders', nextBusinessDay(friday), '15:30', cause);
}

/**
 * When the COT report of `reportDate` (its positions' date: a Tuesday, or the Monday before a
 * Tuesday holiday) was published: the release of that week (cotRelease), Friday 15:30 ET or
 * the business day after a holiday-shifted Friday; for a report a shutdown held back, 15:30 ET on
 * the day the CFTC's catch-up schedule published it (shutdowns.ts). A calendar instant: the CFTC
 * states no time.
 */
export function cotReportPublishedAt(reportDate: string): Date {
  const catchUp = cotCatchUp(reportDate);
  if (catchUp !== undefined) return easternInstant(catchUp.date, COT_CATCH_UP_TIME);
  return cotRelease(reportDate).at;
}

/**
 * The Weekly Petroleum Status Report of the week holding `date`: Wednesday 10:30 ET. A federal
 * holiday on the Monday, Tuesday or Wednesday delays it by a day, to Thursday; it then shares the
 * morning with the Weekly Natural Gas Storage Report (10:30) and comes out at 11:00 ET. (Holidays
 * later in the week do not move it.)
 */
export function wpsrRelease(date: string): Release {
  const monday = mondayOf(date);
  const cause = holidaysIn([0, 1, 2].map((i) => addDays(monday, i)));
  const wednesday = addDays(monday, 2);
  if (cause === undefined) return release('wpsr-weekly', 'Weekly Petroleum Status Report', wednesday, '10:30');
  let day = addDays(monday, 3);
  while (!isBusinessDay(day)) day = addDays(day, 1);
  return release('wpsr-weekly', 'Weekly Petroleum Status Report', day, '11:00', cause);
}

/**
 * The first release of USDA's major crop reports (WASDE, Crop Production, Grain Stocks, Acreage,
 * Prospective Plantings, Small Grains Summary) at 12:00 ET, Friday 2013-01-11; they came out at
 * 08:30 ET before (NASS's notice of 2013-01-08, "USDA to Begin Noon-time Crop Reports on January 11").
 */
export const USDA_NOON_RELEASES_SINCE = '2013-01-11';

/** The New York time USDA's major crop reports of a date come out at: 12:00, or 08:30 before 2013-01-11. */
export function usdaCropReportTime(date: string): string {
  return date < USDA_NOON_RELEASES_SINCE ? '08:30' : '12:00';
}

/** The last business day of a month (NASS's quarter-end reports: Prospective Plantings, Acreage, Grain Stocks). */
export function lastBusinessDayOf(year: number, month: number): string {
  let d = isoDate(new Date(Date.UTC(year, month, 0)));
  while (!isBusinessDay(d)) d = addDays(d, -1);
  return d;
}

/**
 * NASS's quarter-end reports at 12:00 ET (08:30 before 2013: usdaCropReportTime) on the last
 * business day of the month: Prospective Plantings and Grain Stocks (March), Acreage and Grain
 * Stocks (June), Grain Stocks (September). Crop Production (monthly, with the WASDE around the
 * 8th-12th) follows NASS's published calendar, which no rule reproduces: the CronJob runs on each
 * candidate day (see SYNC_SCHEDULES).
 */
export function quarterEndReportReleases(year: number): Release[] {
  const at = (report: string, month: number) => {
    const day = lastBusinessDayOf(year, month);
    return release('quarter-end-reports', report, day, usdaCropReportTime(day));
  };
  return [at('Prospective Plantings; Grain Stocks', 3), at('Acreage; Grain Stocks', 6), at('Grain Stocks', 9)];
}

/**
 * The World Bank's Pink Sheet (Commodity Price Data, `CMO-Historical-Data-Monthly.xlsx`) of a month:
 * on its 2nd business day, with the previous month's averages. Every vintage seen says so ("Updated
 * on" 2022-10-04, 2024-12-03, 2025-11-04, 2025-12-02, 2026-05-04, 2026-06-02: each the 2nd US
 * business day). No time is announced (files were saved from 09:39 to 16:24 ET): 12:00 ET is the
 * nominal slot, and the lateness grace (its calendar's lateGraceHours) runs into the next day.
 */
export function pinkSheetRelease(year: number, month: number): Release {
  let day = `${year}-${String(month).padStart(2, '0')}-01`;
  for (let seen = isBusinessDay(day) ? 1 : 0; seen < 2;) {
    day = addDays(day, 1);
    if (isBusinessDay(day)) seen++;
  }
  return release('pink-sheet-monthly', 'Commodity Price Data (Pink Sheet)', day, '12:00');
}

/**
 * USDA AMS LM_HG201 (National Daily Direct Prior Day Slaughtered Swine) of a weekday: by 10:00
 * Central, 11:00 ET (the hour kirkedev/mpr waits for, mpr/slaughter/report.py), with the slaughter
 * of the weekday before. The LMR reports follow the packers' week, not federal holidays: the
 * recorded LM_HG201 rows include a report of Monday 2019-02-18, Washington's Birthday.
 */
export function lmHg201Release(date: string): Release {
  return release('lm-hg201-daily', 'LM_HG201 National Daily Direct Prior Day Slaughtered Swine', date, '11:00');
}
