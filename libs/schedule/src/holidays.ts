/**
 * US federal holidays (5 U.S.C. 6103) as observed by federal agencies: a holiday on a Saturday is
 * observed on the Friday before, one on a Sunday on the Monday after. New Year's Day of the next
 * year falling on a Saturday is therefore observed on December 31 of this year.
 * Dates are calendar dates `YYYY-MM-DD` (no time zone: they are days in Washington).
 */

export interface Holiday {
  /** Observed date, YYYY-MM-DD. */
  date: string;
  name: string;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** YYYY-MM-DD of a UTC-midnight Date. */
export function isoDate(d: Date): string {
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

const DAY_MS = 86_400_000;

/** The decimal number written by the digits s[from..to), or -1 when one is not a digit. */
function digits(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/**
 * The UTC midnight of a date YYYY-MM-DD, in ms (read digit by digit: calendars read hundreds of
 * thousands of dates, and a regex match and a Date each are garbage). Throws for what is not one.
 */
function utcMidnight(date: string): number {
  const shaped = date.length === 10 && date.charCodeAt(4) === 45 && date.charCodeAt(7) === 45;
  const y = shaped ? digits(date, 0, 4) : -1;
  const m = digits(date, 5, 7);
  const d = digits(date, 8, 10);
  if (y < 0 || m < 0 || d < 0) throw new Error(`not a date: ${date}`);
  return Date.UTC(y, m - 1, d);
}

/** The calendar date as a Date at UTC midnight (dates are handled as UTC days: no DST to trip on). */
export function dateOf(date: string): Date {
  return new Date(utcMidnight(date));
}

export function addDays(date: string, days: number): string {
  return isoDate(new Date(utcMidnight(date) + days * DAY_MS));
}

/** 0 = Sunday ... 6 = Saturday. */
export function weekday(date: string): number {
  // 1970-01-01 was a Thursday (4)
  return (((Math.floor(utcMidnight(date) / DAY_MS) + 4) % 7) + 7) % 7;
}

/** The n-th (1-based) given weekday of a month; n = -1 for the last. */
function nthWeekday(year: number, month: number, dow: number, n: number): string {
  if (n > 0) {
    const first = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
    return isoDate(new Date(Date.UTC(year, month - 1, 1 + ((dow - first + 7) % 7) + 7 * (n - 1))));
  }
  const last = new Date(Date.UTC(year, month, 0));
  const back = (last.getUTCDay() - dow + 7) % 7;
  return isoDate(new Date(Date.UTC(year, month - 1, last.getUTCDate() - back)));
}

function observed(date: string): string {
  const dow = weekday(date);
  if (dow === 6) return addDays(date, -1);
  if (dow === 0) return addDays(date, 1);
  return date;
}

const fixed = (year: number, month: number, day: number) => `${year}-${pad(month)}-${pad(day)}`;

/** The holidays of one calendar year by their legal date (before the weekend rule). */
function legalHolidays(year: number): Holiday[] {
  return [
    { date: fixed(year, 1, 1), name: "New Year's Day" },
    { date: nthWeekday(year, 1, 1, 3), name: 'Birthday of Martin Luther King, Jr.' },
    { date: nthWeekday(year, 2, 1, 3), name: "Washington's Birthday" },
    { date: nthWeekday(year, 5, 1, -1), name: 'Memorial Day' },
    { date: fixed(year, 6, 19), name: 'Juneteenth National Independence Day' },
    { date: fixed(year, 7, 4), name: 'Independence Day' },
    { date: nthWeekday(year, 9, 1, 1), name: 'Labor Day' },
    { date: nthWeekday(year, 10, 1, 2), name: 'Columbus Day' },
    { date: fixed(year, 11, 11), name: 'Veterans Day' },
    { date: nthWeekday(year, 11, 4, 4), name: 'Thanksgiving Day' },
    { date: fixed(year, 12, 25), name: 'Christmas Day' },
  ];
}

const cache = new Map<number, Holiday[]>();

/** The observed federal holidays falling in `year` (sorted), including a Dec 31 New Year observance. */
export function federalHolidays(year: number): Holiday[] {
  let list = cache.get(year);
  if (!list) {
    list = [...legalHolidays(year), ...legalHolidays(year + 1).slice(0, 1)]
      .map((h) => ({ date: observed(h.date), name: h.name }))
      .filter((h) => h.date.startsWith(`${year}-`))
      .sort((a, b) => a.date.localeCompare(b.date));
    cache.set(year, list);
  }
  return list;
}

export function holidayOn(date: string): Holiday | undefined {
  return federalHolidays(Number(date.slice(0, 4))).find((h) => h.date === date);
}

/** Monday to Friday and not an observed federal holiday. */
export function isBusinessDay(date: string): boolean {
  const dow = weekday(date);
  return dow !== 0 && dow !== 6 && holidayOn(date) === undefined;
}

export function nextBusinessDay(date: string): string {
  let d = addDays(date, 1);
  while (!isBusinessDay(d)) d = addDays(d, 1);
  return d;
}
