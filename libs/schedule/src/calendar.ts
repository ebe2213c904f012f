import type { ReleaseRule } from '@cds/contracts';
import { addDays, isBusinessDay, weekday } from './holidays.ts';
import {
  cotRelease,
  easternInstant,
  lmHg201Release,
  mondayOf,
  pinkSheetRelease,
  quarterEndReportReleases,
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
 * the Tuesday is a holiday), on Friday 15:30 ET unless a holiday moved it (cotRelease) or a
 * shutdown's catch-up schedule did (shutdowns.ts).
 */
function cotOfWeek(monday: string): CalendarRelease {
  const r = cotRelease(monday);
  const dataDate = businessDayOnOrBefore(addDays(monday, 1));
  const usual = easternInstant(addDays(monday, 4), r.time);
  const catchUp = cotCatchUp(dataDate);
  if (catchUp !== undefined) {
    const at = easternInstant(catchUp.date, COT_CATCH_UP_TIME);
    const moved = { ...r, date: catchUp.date, time: COT_CATCH_UP_TIME, at };
    const shifted = at.getTime() === usual.getTime() ? undefined : { from: usual, reason: catchUp.reason };
    return entry('cot-weekly', moved, dataDate, { shifted });
  }
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

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Every release of a rule scheduled on local dates startDate..endDate (inclusive, New York), sorted
 * by `at`, cancelled ones included. An empty list when endDate is before startDate.
 */
export function calendarReleases(rule: ReleaseRule, startDate: string, endDate: string): CalendarRelease[] {
  if (!DAY.test(startDate) || !DAY.test(endDate)) throw new Error(`not a date range: ${startDate}..${endDate}`);
  const out: CalendarRelease[] = [];
  for (let year = Number(startDate.slice(0, 4)); year <= Number(endDate.slice(0, 4)); year++) {
    for (const r of releasesOfYear(rule, year)) if (r.date >= startDate && r.date <= endDate) out.push(r);
  }
  return out;
}

/**
 * The first year each rule's calendar speaks for: before it the agency published on another
 * schedule (or not at all), and no first release is estimated. COT: the weekly Friday release of
 * Tuesday positions (from 1992 the CFTC published weekly; the table holds it from 2000, when the
 * Friday release of Tuesday data settled). EIA's WPSR and the ECB's rates (1999) and the rest as
 * their sources' histories begin.
 */
const FIRST_YEAR: Readonly<Record<ReleaseRule, number>> = {
  'cot-weekly': 2000,
  'wpsr-weekly': 1990,
  'quarter-end-reports': 1990,
  'pink-sheet-monthly': 1990,
  'lm-hg201-daily': 2013,
  'supply-demand-monthly': 1990,
  'fx-reference-daily': 1999,
};

/** How far past an observation's date its first release may lie, in years of the calendar searched. */
const SEARCH_YEARS = 1;

const firstKept = new Map<string, Date | null>();
const FIRST_KEPT = 200_000;

function firstReleaseOf(rule: ReleaseRule, date: string): Date | null {
  const year = Number(date.slice(0, 4));
  if (year < FIRST_YEAR[rule]) return null;
  for (let y = year; y <= year + SEARCH_YEARS; y++) {
    for (const r of releasesOfYear(rule, y)) {
      if (r.cancelled === undefined && r.dataDate >= date && r.date >= date) return r.at;
    }
  }
  return null;
}

/**
 * When an observation dated `date` was first published by the rule's calendar (an estimate): the
 * time of the first non-cancelled release whose dataDate is on or after `date`. Undefined when the
 * calendar cannot say (before the rule's first year, or after `now`: not yet released).
 */
export function estimatedFirstRelease(rule: ReleaseRule, date: string, now: Date = new Date()): Date | undefined {
  const key = `${rule} ${date}`;
  let at = firstKept.get(key);
  if (at === undefined) {
    if (!DAY.test(date)) return undefined;
    if (firstKept.size >= FIRST_KEPT) firstKept.clear();
    at = firstReleaseOf(rule, date);
    firstKept.set(key, at);
  }
  return at === null || at.getTime() > now.getTime() ? undefined : at;
}
