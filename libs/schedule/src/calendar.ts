import type { ReleaseRule } from '@cds/contracts';
import { addDays, isBusinessDay, weekday } from './holidays.ts';
import {
  cotRelease,
  easternInstant,
  lmHg201Release,
  mondayOf,
  pinkSheetRelease,
  quarterEndReportReleases,
  sourceOfRule,
  wpsrRelease,
  type Release,
} from './releases.ts';
import { editionCalendarEntry } from './supply-demand.ts';
import { fxReferenceRelease } from './fx-reference.ts';
import { COT_CATCH_UP_MAX_DAYS, COT_CATCH_UP_TIME, cotCatchUp } from './shutdowns.ts';

/**
 * Each rule's release calendar over any range of dates: every release with the newest observation
 * date it carries (its `dataDate`, the one definition of it: freshness.ts judges with these), the
 * usual time it left when a holiday or a shutdown moved it, and the editions an agency cancelled.
 */
export interface CalendarRelease {
  rule: ReleaseRule;
  report: string;
  /** Local date in America/New_York (after any shift), YYYY-MM-DD. */
  date: string;
  /** Local time, HH:MM. */
  time: string;
  /** The instant (after any shift). */
  at: Date;
  /** The newest observation or report date the release carries, YYYY-MM-DD. */
  dataDate: string;
  /** Moved by a federal holiday or a shutdown's catch-up schedule: the usual time and why. */
  shifted?: { from: Date; reason: string };
  /** The agency cancelled it: why (`at` is then the time it had been scheduled for). */
  cancelled?: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

function entry(
  rule: ReleaseRule,
  r: Release,
  dataDate: string,
  extra: { shifted?: { from: Date; reason: string } | undefined; cancelled?: string | undefined } = {},
): CalendarRelease {
  const out: CalendarRelease = { rule, report: r.report, date: r.date, time: r.time, at: r.at, dataDate };
  if (extra.shifted !== undefined) out.shifted = extra.shifted;
  if (extra.cancelled !== undefined) out.cancelled = extra.cancelled;
  return Object.freeze(out);
}

/** The last business day on or before `date` (a Tuesday holiday makes COT use Monday's positions). */
function businessDayOnOrBefore(date: string): string {
  let d = date;
  while (!isBusinessDay(d)) d = addDays(d, -1);
  return d;
}

/**
 * The COT release of the week of `monday`: it carries that week's Tuesday positions (Monday's when
 * the Tuesday is a holiday), on Friday 15:30 ET unless a holiday moved it (cotRelease: shifted from
 * that Friday) or a shutdown's catch-up schedule did (shutdowns.ts: shifted from the release the
 * calendar had, a holiday's shift included, as the CFTC's tables state the "original publish date").
 */
function cotOfWeek(monday: string): CalendarRelease {
  const r = cotRelease(monday);
  const dataDate = businessDayOnOrBefore(addDays(monday, 1));
  const catchUp = cotCatchUp(dataDate);
  if (catchUp !== undefined) {
    const at = easternInstant(catchUp.date, COT_CATCH_UP_TIME);
    const moved = { ...r, date: catchUp.date, time: COT_CATCH_UP_TIME, at };
    const shifted = at.getTime() === r.at.getTime() ? undefined : { from: r.at, reason: catchUp.reason };
    return entry('cot-weekly', moved, dataDate, { shifted });
  }
  const usual = easternInstant(addDays(monday, 4), r.time);
  const shifted = r.shiftedBy === undefined ? undefined : { from: usual, reason: r.shiftedBy };
  return entry('cot-weekly', r, dataDate, { shifted });
}

/** The Weekly Petroleum Status Report of the week of `monday` carries the week ending the Friday before (EIA's weekly period). */
function wpsrOfWeek(monday: string): CalendarRelease {
  const r = wpsrRelease(monday);
  const shifted =
    r.shiftedBy === undefined ? undefined : { from: easternInstant(addDays(monday, 2), '10:30'), reason: r.shiftedBy };
  return entry('wpsr-weekly', r, addDays(monday, -3), { shifted });
}

/** The days of a year, in order. */
function daysOf(year: number): string[] {
  const out: string[] = [];
  for (let d = `${year}-01-01`; d.startsWith(`${year}-`); d = addDays(d, 1)) out.push(d);
  return out;
}

/** A weekly rule's releases dated in `year`: the weeks from `backWeeks` before the year (a release moved into it) to its end. */
function weeklyOfYear(ofWeek: (monday: string) => CalendarRelease, year: number, backWeeks: number): CalendarRelease[] {
  const out: CalendarRelease[] = [];
  for (
    let monday = addDays(mondayOf(`${year}-01-01`), -7 * backWeeks);
    monday <= `${year}-12-31`;
    monday = addDays(monday, 7)
  ) {
    const r = ofWeek(monday);
    if (r.date.startsWith(`${year}-`)) out.push(r);
  }
  return out;
}

/** Each rule's releases dated (after any shift) in a year, not yet sorted. */
const RELEASES_OF_YEAR: Readonly<Record<ReleaseRule, (year: number) => CalendarRelease[]>> = {
  'cot-weekly': (year) => weeklyOfYear(cotOfWeek, year, Math.ceil(COT_CATCH_UP_MAX_DAYS / 7) + 1),
  'wpsr-weekly': (year) => weeklyOfYear(wpsrOfWeek, year, 1),
  // Grain Stocks as of the first of the report's month (dated that day by the NASS mapper).
  'quarter-end-reports': (year) =>
    quarterEndReportReleases(year).map((r) => entry('quarter-end-reports', r, `${r.date.slice(0, 8)}01`)),
  // The Pink Sheet of a month carries the previous month's averages (dated its last day).
  'pink-sheet-monthly': (year) =>
    Array.from({ length: 12 }, (_, i) => {
      const r = pinkSheetRelease(year, i + 1);
      return entry('pink-sheet-monthly', r, addDays(`${year}-${pad(i + 1)}-01`, -1));
    }),
  // LM_HG201 of a weekday carries the slaughter of the weekday before (Friday's on Monday).
  'lm-hg201-daily': (year) =>
    daysOf(year)
      .filter((d) => weekday(d) >= 1 && weekday(d) <= 5)
      .map((d) => entry('lm-hg201-daily', lmHg201Release(d), addDays(d, weekday(d) === 1 ? -3 : -1))),
  // A WASDE edition carries its own month's edition, dated the first of the month (as the sync's cursor dates it).
  'supply-demand-monthly': (year) =>
    Array.from({ length: 12 }, (_, i) => {
      const e = editionCalendarEntry(year, i + 1);
      return entry('supply-demand-monthly', e.release, `${year}-${pad(i + 1)}-01`, e);
    }),
  // The reference rates of a TARGET day carry that day's rates.
  'fx-reference-daily': (year) =>
    daysOf(year).flatMap((d) => {
      const r = fxReferenceRelease(d);
      return r === undefined ? [] : [entry('fx-reference-daily', r, d)];
    }),
};

/**
 * Each rule's releases per year, kept: they depend on the rule and year alone, and the gateway asks
 * for them per request and per observation. The lists are shared and frozen, never changed.
 */
const YEARS_KEPT = 512;
const yearsKept = new Map<string, readonly CalendarRelease[]>();

function releasesOfYear(rule: ReleaseRule, year: number): readonly CalendarRelease[] {
  const key = `${rule} ${year}`;
  let list = yearsKept.get(key);
  if (list === undefined) {
    if (yearsKept.size >= YEARS_KEPT) yearsKept.clear();
    list = Object.freeze(RELEASES_OF_YEAR[rule](year).sort((a, b) => a.at.getTime() - b.at.getTime()));
    yearsKept.set(key, list);
  }
  return list;
}

/** A calendar release as a Release of its rule's source (`shiftedBy` the shift's reason), with its data date. */
export function scheduledRelease(r: CalendarRelease): Release & { dataDate: string } {
  return {
    source: sourceOfRule(r.rule),
    report: r.report,
    date: r.date,
    time: r.time,
    at: r.at,
    dataDate: r.dataDate,
    ...(r.shifted !== undefined ? { shiftedBy: r.shifted.reason } : {}),
  };
}

/** Whether `date` is a real calendar date YYYY-MM-DD of the years 1900 to 2999 (the years a calendar is computed for). */
function isDay(date: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || date < '1900' || date >= '3000') return false;
  const t = Date.parse(`${date}T00:00:00Z`);
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === date;
}

/** The most years one call lists (a range beyond it is refused, not computed). */
export const CALENDAR_MAX_YEARS = 100;

/**
 * Every release of a rule scheduled on local dates startDate..endDate (inclusive, New York), sorted
 * by `at`, cancelled ones included. An empty list when endDate is before startDate. The releases
 * are shared and frozen, and so are their `at` Dates by contract: do not change them. Throws a
 * RangeError for a date that is not one (or not of the years 1900 to 2999) and for a range of more
 * than CALENDAR_MAX_YEARS.
 */
export function calendarReleases(rule: ReleaseRule, startDate: string, endDate: string): CalendarRelease[] {
  if (!isDay(startDate) || !isDay(endDate)) throw new RangeError(`not a date range: ${startDate}..${endDate}`);
  if (Number(endDate.slice(0, 4)) - Number(startDate.slice(0, 4)) >= CALENDAR_MAX_YEARS)
    throw new RangeError(`a calendar of more than ${CALENDAR_MAX_YEARS} years: ${startDate}..${endDate}`);
  const out: CalendarRelease[] = [];
  for (let year = Number(startDate.slice(0, 4)); year <= Number(endDate.slice(0, 4)); year++) {
    for (const r of releasesOfYear(rule, year)) if (r.date >= startDate && r.date <= endDate) out.push(r);
  }
  return out;
}

/**
 * The first year each rule's calendar speaks for: before it the agency published on another
 * schedule, or the rule is not known to hold, and no first release is estimated. Where older
 * releases came at another time of day it was earlier than the rule's (the WPSR, the ECB), so
 * those estimates err late (an `as_of` sees the data a little after it was out), not early.
 * - cot-weekly: the CFTC has published the COT weekly (Friday, with Tuesday's positions) since
 *   2000, every two weeks before; 2001 is the first whole year.
 * - wpsr-weekly: EIA has released the WPSR on Wednesday mornings since February 1994 (09:00, moved
 *   after API's survey went to Wednesdays in January 2003, per EIA's note to editors; 10:30 by its
 *   notice of June 2008): the rule's 10:30 is never earlier. 1995 is the first whole year.
 * - quarter-end-reports: the NASS history the sync loads (from 2000), at 08:30 ET before 2013.
 * - pink-sheet-monthly: the 2nd business day is what every vintage seen shows (from 2022).
 * - lm-hg201-daily: the LM_HG201 rows recorded (from 2019; the sync loads from 2020).
 * - supply-demand-monthly: USDA's dated editions (supply-demand.ts) start in 2010.
 * - fx-reference-daily: the ECB's rates start in January 1999 (16:00 Frankfurt is their time since
 *   July 2016; about 14:30 before, so earlier estimates are late by an hour and a half).
 */
const FIRST_YEAR: Readonly<Record<ReleaseRule, number>> = {
  'cot-weekly': 2001,
  'wpsr-weekly': 1995,
  'quarter-end-reports': 2000,
  'pink-sheet-monthly': 2022,
  'lm-hg201-daily': 2019,
  'supply-demand-monthly': 2010,
  'fx-reference-daily': 1999,
};

/** How far past an observation's date its first release may lie, in years of the calendar searched. */
const SEARCH_YEARS = 1;

const firstKept = new Map<string, Date | null>();
const FIRST_KEPT = 200_000;

/** The index of the first release dated on or after `date` in a year's list (sorted by time, so by date). */
function firstOnOrAfter(list: readonly CalendarRelease[], date: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.date < date) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The first non-cancelled release carrying `date` (its dataDate on or after it). A release never
 * carries data newer than its own date, so the search starts at the first release dated `date`.
 */
function firstReleaseOf(rule: ReleaseRule, date: string): Date | null {
  const year = Number(date.slice(0, 4));
  if (year < FIRST_YEAR[rule]) return null;
  for (let y = year; y <= year + SEARCH_YEARS; y++) {
    const list = releasesOfYear(rule, y);
    for (let i = y === year ? firstOnOrAfter(list, date) : 0; i < list.length; i++) {
      const r = list[i]!;
      if (r.cancelled === undefined && r.dataDate >= date) return r.at;
    }
  }
  return null;
}

/**
 * When an observation dated `date` was first published by the rule's calendar (an estimate): the
 * time of the first non-cancelled release whose dataDate is on or after `date`. Undefined when the
 * calendar cannot say (before the rule's first year, or after `now`: not yet released) and for a
 * date that is not one. Kept per rule and date; the Date is shared: do not change it.
 */
export function estimatedFirstRelease(rule: ReleaseRule, date: string, now: Date = new Date()): Date | undefined {
  const key = `${rule} ${date}`;
  let at = firstKept.get(key);
  if (at === undefined) {
    if (!isDay(date)) return undefined;
    if (firstKept.size >= FIRST_KEPT) firstKept.clear();
    at = firstReleaseOf(rule, date);
    firstKept.set(key, at);
  }
  return at === null || at.getTime() > now.getTime() ? undefined : at;
}
