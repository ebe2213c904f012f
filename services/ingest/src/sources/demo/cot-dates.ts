import { addDays, cotRelease, easternInstant, holidayOn, localParts, mondayOf } from '@cds/schedule';

/**
 * The report date of a COT week: the week's Tuesday, whose positions the CFTC reports, or the
 * Monday when the Tuesday is a federal holiday (the report then uses Monday's positions).
 */
export function cotReportDateOfWeek(date: string): string {
  const monday = mondayOf(date);
  const tuesday = addDays(monday, 1);
  return holidayOn(tuesday) === undefined ? tuesday : monday;
}

/**
 * The report date of the newest COT report the CFTC had released at `asOf`: the week of the last
 * release (Friday 15:30 America/New_York, moved by federal holidays, see `cotRelease`) whose
 * time has come. A demo COT report is never dated after it.
 */
export function lastReleasedCotDate(asOf: Date): string {
  const today = localParts(asOf).date;
  // a holiday moves a release at most to the Monday after its Friday: three weeks back always hold one
  for (let w = 0; w <= 3; w++) {
    const week = addDays(today, -7 * w);
    if (cotRelease(week).at.getTime() <= asOf.getTime()) return cotReportDateOfWeek(week);
  }
  throw new Error(`no COT release in the three weeks before ${asOf.toISOString()}`);
}

/** The instant the demo's COT cut-off is computed at for a given last day: that day's end in New York. */
export function endOfEasternDay(date: string): Date {
  return easternInstant(date, '23:59');
}
