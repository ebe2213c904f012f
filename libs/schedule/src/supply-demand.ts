import { addDays, isBusinessDay } from './holidays.ts';
import { release, usdaCropReportTime, type Release } from './releases.ts';

/**
 * USDA's World Agricultural Supply and Demand Estimates: one edition a month at 12:00 New York
 * (08:30 before 2013-01-11), on the dates of the World Agricultural Outlook Board's published
 * calendar (no weekday rule reproduces them: the 8th to the 12th, the 14th once). The day of each month's release, per
 * year; 0 marks a month with no edition at all (a lapse in federal funding cancelled it).
 *
 * Where the dates come from (public copies; cross-checked where they overlap):
 * - July 2010 to May 2025: the day each real WASDE XML file was released, as the files of
 *   rossi-diego/wasde-monthly-report (data/wasde_files/<release day>_<file>.xml, downloaded from
 *   USDA's catalog: 181 files, one per edition, re-posts under their original day) are named. They
 *   show October 2013 missing (the 2013 shutdown, October 1-16, cancelled it) and January 2019
 *   missing (the 2018-19 shutdown: the next edition came out on February 8).
 * - January to June 2010: a futures-research calendar module's `WASDE_Dates` list (2010-2017), which
 *   agrees with every file-dated release of July 2010 to 2017.
 * - June to December 2025: a grain-futures research script's `WASDE` list ("no October report -
 *   shutdown; Nov moved to the 14th"), which agrees with the files up to May 2025 and with a second
 *   research calendar's fourteen dated rows from April 2025 to June 2026 (2025-11-14 and 2025-12-09
 *   after the 2025 shutdown, which cancelled October 2025).
 * - 2026: USDA's published 2026 calendar (January 12 ... December 10).
 * The years before 2010 and from 2027 have no table: their releases are estimated
 * (estimatedEditionRelease), and an edition's release instant is unknown (editionReleaseAt answers
 * undefined).
 */
const EDITION_DAYS: Readonly<Record<number, readonly number[]>> = {
  2010: [12, 9, 10, 9, 11, 10, 9, 12, 10, 8, 9, 10],
  2011: [12, 9, 10, 8, 11, 9, 12, 11, 12, 12, 9, 9],
  2012: [12, 9, 9, 10, 10, 12, 11, 10, 12, 11, 9, 11],
  2013: [11, 8, 8, 10, 10, 12, 11, 12, 12, 0, 8, 10],
  2014: [10, 10, 10, 9, 9, 11, 11, 12, 11, 10, 10, 10],
  2015: [12, 10, 10, 9, 12, 10, 10, 12, 11, 9, 10, 9],
  2016: [12, 9, 9, 12, 10, 10, 12, 12, 12, 12, 9, 9],
  2017: [12, 9, 9, 11, 10, 9, 12, 10, 12, 12, 9, 12],
  2018: [12, 8, 8, 10, 10, 12, 12, 10, 12, 11, 8, 11],
  2019: [0, 8, 8, 9, 10, 11, 11, 12, 12, 10, 8, 10],
  2020: [10, 11, 10, 9, 12, 11, 10, 12, 11, 9, 10, 10],
  2021: [12, 9, 9, 9, 12, 10, 12, 12, 10, 12, 9, 9],
  2022: [12, 9, 9, 8, 12, 10, 12, 12, 12, 12, 9, 9],
  2023: [12, 8, 8, 11, 12, 9, 12, 11, 12, 12, 9, 8],
  2024: [12, 8, 8, 11, 10, 12, 12, 12, 12, 11, 8, 10],
  2025: [10, 11, 11, 10, 12, 12, 11, 12, 12, 0, 14, 9],
  2026: [12, 10, 10, 9, 12, 11, 10, 12, 11, 9, 10, 10],
};

/** The report's title, as the releases name it. */
export const SUPPLY_DEMAND_REPORT = 'World Agricultural Supply and Demand Estimates';
/** The local time of every edition's release in New York since 2013-01-11 (08:30 before: usdaCropReportTime). */
export const EDITION_RELEASE_TIME = '12:00';

/** A release of the report at its date, at the time of day USDA released it then. */
function editionAt(report: string, date: string): Release {
  return release('supply-demand-monthly', report, date, usdaCropReportTime(date));
}

const EDITION = /^(\d{4})-(0[1-9]|1[0-2])$/;
const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The release of an edition (`YYYY-MM`) by the table: a Release, `cancelled` for a month no
 * edition was published, or `unknown` for a year the table does not hold (or not an edition).
 */
function tabled(edition: string): Release | 'cancelled' | 'unknown' {
  const m = EDITION.exec(edition);
  if (m === null) return 'unknown';
  const day = EDITION_DAYS[Number(m[1])]?.[Number(m[2]) - 1];
  if (day === undefined) return 'unknown';
  if (day === 0) return 'cancelled';
  return editionAt(SUPPLY_DEMAND_REPORT, `${edition}-${pad(day)}`);
}

/**
 * The instant an edition (`YYYY-MM`) was (or is to be) released: 12:00 New York (08:30 before
 * 2013) on its date in USDA's calendar. Undefined for a cancelled month (October 2013, January 2019, October 2025) and
 * for a month the table does not hold (before 2010, after 2026): the caller estimates then.
 */
export function editionReleaseAt(edition: string): Date | undefined {
  const r = tabled(edition);
  return typeof r === 'string' ? undefined : r.at;
}

/**
 * An edition's release where the table does not know it: 12:00 New York on the 12th, or the
 * next business day when the 12th is not one: the latest day WASDE usually comes out, so a source
 * is not called late before the real release. Flagged by its report title.
 */
export function estimatedEditionRelease(year: number, month: number): Release {
  let day = `${year}-${pad(month)}-12`;
  while (!isBusinessDay(day)) day = addDays(day, 1);
  return editionAt(`${SUPPLY_DEMAND_REPORT} (date estimated)`, day);
}

/** The release of a month (months past 12 or below 1 roll the year), or undefined when it was cancelled. */
export function editionRelease(year: number, month: number): Release | undefined {
  const y = year + Math.floor((month - 1) / 12);
  const m = ((((month - 1) % 12) + 12) % 12) + 1;
  const r = tabled(`${y}-${pad(m)}`);
  if (r === 'cancelled') return undefined;
  return r === 'unknown' ? estimatedEditionRelease(y, m) : r;
}

/**
 * The editions a lapse in federal funding cancelled or moved, by edition (`YYYY-MM`): the date
 * USDA's calendar had scheduled and why it did not hold. USDA announced each: the Friday
 * 2013-10-11 edition was not published (the October 2013 shutdown), "those reports will not be
 * released on January 11, 2019 as originally scheduled" (the 2018-19 shutdown; the next edition
 * came out on February 8), the October 2025 edition scheduled for October 9 was suspended and never
 * published, and November 2025 came out on the 14th.
 */
const DISRUPTED: Readonly<Record<string, { usual: string; reason: string }>> = {
  '2013-10': { usual: '2013-10-11', reason: 'October 2013 federal government shutdown: USDA cancelled the edition' },
  '2019-01': { usual: '2019-01-11', reason: '2018-19 federal government shutdown: USDA cancelled the edition' },
  '2025-10': { usual: '2025-10-09', reason: '2025 federal government shutdown: USDA cancelled the edition' },
  '2025-11': { usual: '2025-11-10', reason: '2025 federal government shutdown: USDA moved the edition' },
};

/**
 * An edition as a calendar lists it: its release (for a cancelled one, at the time it had been
 * scheduled), with the usual date it left and why, or why it was cancelled.
 */
export function editionCalendarEntry(
  year: number,
  month: number,
): { release: Release; shifted?: { from: Date; reason: string }; cancelled?: string } {
  const edition = `${year}-${pad(month)}`;
  const disrupted = DISRUPTED[edition];
  const r = tabled(edition);
  if (r === 'unknown') return { release: estimatedEditionRelease(year, month) };
  const usual = disrupted === undefined ? undefined : editionAt(SUPPLY_DEMAND_REPORT, disrupted.usual);
  if (r === 'cancelled') {
    return { release: usual ?? estimatedEditionRelease(year, month), cancelled: disrupted?.reason ?? 'cancelled' };
  }
  if (usual === undefined || usual.date === r.date) return { release: r };
  return { release: r, shifted: { from: usual.at, reason: disrupted!.reason } };
}

/** Every WASDE release of a year, in order (eleven in a year with a cancelled month). */
export function editionReleasesOfYear(year: number): Release[] {
  return Array.from({ length: 12 }, (_, i) => editionRelease(year, i + 1)).filter((r) => r !== undefined);
}
