import { addDays, isBusinessDay } from './holidays.ts';
import {
  cftcCotRelease,
  eiaWpsrRelease,
  localParts,
  mondayOf,
  nassQuarterEndReleases,
  type Release,
} from './releases.ts';

export type SyncedSource = Release['source'];
export const SYNCED_SOURCES: readonly SyncedSource[] = ['cftc', 'eia', 'nass'];

/** A scheduled release and the observation date its newest data carries. */
export interface ScheduledRelease extends Release {
  /** The newest observation date the release publishes, YYYY-MM-DD. */
  dataDate: string;
}

/**
 * How long after a release's scheduled time the synced data may still lack it before the source
 * counts as late: the CronJob runs 5 minutes after the release, a sync takes minutes, and the
 * publishers sometimes post late; two hours (CFTC: 17:30 ET on a Friday) leave room for a retry.
 */
export const LATE_GRACE_MS: Readonly<Record<SyncedSource, number>> = {
  cftc: 2 * 3_600_000,
  eia: 2 * 3_600_000,
  nass: 2 * 3_600_000,
};

/** The last business day on or before `date` (a Tuesday holiday makes COT use Monday's positions). */
function businessDayOnOrBefore(date: string): string {
  let d = date;
  while (!isBusinessDay(d)) d = addDays(d, -1);
  return d;
}

/**
 * The COT release of the week holding `date` carries that week's Tuesday positions (Monday's when
 * the Tuesday is a holiday).
 */
function cftcScheduled(date: string): ScheduledRelease {
  const tuesday = addDays(mondayOf(date), 1);
  return { ...cftcCotRelease(date), dataDate: businessDayOnOrBefore(tuesday) };
}

/** The Weekly Petroleum Status Report carries the week ending the Friday before its Wednesday (EIA's weekly period). */
function eiaScheduled(date: string): ScheduledRelease {
  return { ...eiaWpsrRelease(date), dataDate: addDays(mondayOf(date), -3) };
}

/**
 * NASS's quarter-end reports carry Grain Stocks as of the first of their month (dated that day by
 * the NASS mapper); an annual value (dated December 31) is newer still and also satisfies it.
 */
function nassScheduled(year: number): ScheduledRelease[] {
  return nassQuarterEndReleases(year).map((r) => ({ ...r, dataDate: `${r.date.slice(0, 8)}01` }));
}

/** The releases of a source from a few weeks (weekly) or a year (NASS) around `at`, sorted by time. */
function releasesAround(source: SyncedSource, at: Date): ScheduledRelease[] {
  const today = localParts(at).date;
  if (source === 'nass') {
    const year = Number(today.slice(0, 4));
    return [year - 1, year, year + 1].flatMap(nassScheduled);
  }
  const weekly = source === 'cftc' ? cftcScheduled : eiaScheduled;
  const out: ScheduledRelease[] = [];
  // A holiday can push a release into the following week, so look two weeks each way.
  for (let w = -2; w <= 2; w++) out.push(weekly(addDays(today, 7 * w)));
  return out.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** The latest release of `source` whose scheduled time plus the grace has passed at `now`. */
export function lastDueRelease(source: SyncedSource, now: Date): ScheduledRelease {
  const due = releasesAround(source, now).filter((r) => r.at.getTime() + LATE_GRACE_MS[source] <= now.getTime());
  const last = due.at(-1);
  if (last === undefined) throw new Error(`no ${source} release due before ${now.toISOString()}`);
  return last;
}

/** The first release of `source` scheduled after `now`. */
export function nextRelease(source: SyncedSource, now: Date): ScheduledRelease {
  const next = releasesAround(source, now).find((r) => r.at.getTime() > now.getTime());
  if (next === undefined) throw new Error(`no ${source} release after ${now.toISOString()}`);
  return next;
}

export interface Freshness {
  /** The last release that should be in the data by now (its time plus the grace has passed). */
  due: ScheduledRelease;
  next: ScheduledRelease;
  /** The newest data date is older than the due release's data date (or there is no data at all). */
  late: boolean;
}

/**
 * Whether a source's newest synced observation is as new as its schedule says it must be at `now`:
 * late when it is older than the data date of the last release due (scheduled time + grace), or
 * when nothing was ever synced. Releases the rules cannot compute (NASS Crop Production, EIA daily
 * spot prices) are not judged; the weekly and quarter-end releases are.
 */
export function freshnessOf(source: SyncedSource, newestDataDate: string | null, now: Date): Freshness {
  const due = lastDueRelease(source, now);
  return { due, next: nextRelease(source, now), late: newestDataDate === null || newestDataDate < due.dataDate };
}
