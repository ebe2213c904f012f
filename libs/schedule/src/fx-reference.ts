import { addDays, isoDate, weekday } from './holidays.ts';
import { releaseAt, zonedInstant, type Release } from './releases.ts';

/**
 * The ECB's euro foreign exchange reference rates: published every TARGET day at about 16:00
 * Frankfurt time (Europe/Berlin), with that day's rates. TARGET (the euro payment system) is open
 * Monday to Friday except New Year's Day, Good Friday, Easter Monday, 1 May (Labour Day), Christmas
 * Day and 26 December. Over the ECB's whole history file (1999-01-04 to 2026-04-13) the rule
 * gives exactly the days with rates from 2002 on; before, 31 December 1999 and 2001 had none and
 * Easter 1999 had rates (the rule judges freshness now, never the past).
 */
export const FX_REFERENCE_REPORT = 'Euro foreign exchange reference rates';
/** Where and when the rates come out: about 16:00 in Frankfurt. */
export const FX_REFERENCE_TIME_ZONE = 'Europe/Berlin';
export const FX_REFERENCE_TIME = '16:00';

const pad = (n: number) => String(n).padStart(2, '0');

/** Easter Sunday of a year in the Gregorian calendar (the anonymous Gregorian algorithm, "Meeus/Jones/Butcher"). */
export function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${pad(month)}-${pad(day)}`;
}

/** Good Friday and Easter Monday of each year asked, kept (a year of days asks for them daily). */
const easterDays = new Map<number, { goodFriday: string; easterMonday: string }>();

/** The TARGET closing day a weekday date is, by name, or undefined. */
export function targetHolidayOn(date: string): string | undefined {
  const year = Number(date.slice(0, 4));
  const md = date.slice(5);
  if (md === '01-01') return "New Year's Day";
  if (md === '05-01') return 'Labour Day';
  if (md === '12-25') return 'Christmas Day';
  if (md === '12-26') return '26 December';
  let easter = easterDays.get(year);
  if (easter === undefined) {
    const sunday = easterSunday(year);
    easter = { goodFriday: addDays(sunday, -2), easterMonday: addDays(sunday, 1) };
    easterDays.set(year, easter);
  }
  if (date === easter.goodFriday) return 'Good Friday';
  if (date === easter.easterMonday) return 'Easter Monday';
  return undefined;
}

/** Monday to Friday and not a TARGET closing day: a day the ECB publishes reference rates. */
export function isTargetDay(date: string): boolean {
  const dow = weekday(date);
  return dow !== 0 && dow !== 6 && targetHolidayOn(date) === undefined;
}

/**
 * When the reference rates of a date became public: 16:00 Frankfurt that day. A reader asking as of
 * an instant knows a day's rates from then on, whatever stamp the event that carried them has (a
 * backfilled year goes out as one event, stamped at its last day).
 */
export function referenceRatesPublishedAt(date: string): Date {
  return zonedInstant(date, FX_REFERENCE_TIME, FX_REFERENCE_TIME_ZONE);
}

/** The reference-rate release of a TARGET day (16:00 Frankfurt), or undefined on a day without one. */
export function fxReferenceRelease(date: string): Release | undefined {
  if (!isTargetDay(date)) return undefined;
  return releaseAt('fx-reference-daily', FX_REFERENCE_REPORT, referenceRatesPublishedAt(date));
}

/** Every reference-rate release of a year, in order. */
export function fxReferenceReleasesOfYear(year: number): Release[] {
  const out: Release[] = [];
  for (let d = isoDate(new Date(Date.UTC(year, 0, 1))); d.startsWith(`${year}-`); d = addDays(d, 1)) {
    const r = fxReferenceRelease(d);
    if (r !== undefined) out.push(r);
  }
  return out;
}
