import { addDays, isBusinessDay, weekday } from './holidays.ts';
import {
  cftcCotRelease,
  eiaWpsrRelease,
  localParts,
  mondayOf,
  nassQuarterEndReleases,
  worldBankPinkSheetRelease,
  amsLmHg201Release,
  type Release,
} from './releases.ts';

export type SyncedSource = Release['source'];
export const SYNCED_SOURCES: readonly SyncedSource[] = ['cftc', 'eia', 'nass', 'worldbank', 'ams'];

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
  /** The Pink Sheet has no announced hour and was seen posted late in the afternoon: until 18:00 ET the next day. */
  worldbank: 30 * 3_600_000,
  ams: 2 * 3_600_000,
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

/** The Pink Sheet of a month (months past 12 or below 1 roll the year) carries the previous month's averages. */
function worldBankScheduled(year: number, month: number): ScheduledRelease {
  const y = year + Math.floor((month - 1) / 12);
  const m = ((((month - 1) % 12) + 12) % 12) + 1;
  return { ...worldBankPinkSheetRelease(y, m), dataDate: addDays(`${y}-${String(m).padStart(2, '0')}-01`, -1) };
}

/** The AMS daily hog report of a weekday carries the slaughter of the weekday before (Friday's on Monday). */
function amsScheduled(date: string): ScheduledRelease {
  const back = weekday(date) === 1 ? 3 : 1;
  return { ...amsLmHg201Release(date), dataDate: addDays(date, -back) };
}

/** The releases of a source from a few weeks (weekly) or a year (NASS) around `at`, sorted by time. */
function releasesAround(source: SyncedSource, at: Date): ScheduledRelease[] {
  const today = localParts(at).date;
  if (source === 'ams') {
    const days = Array.from({ length: 15 }, (_, i) => addDays(today, i - 7));
    return days.filter((d) => weekday(d) >= 1 && weekday(d) <= 5).map(amsScheduled);
  }
  if (source === 'worldbank') {
    const [y, m] = today.split('-').map(Number) as [number, number];
    return [-2, -1, 0, 1].map((k) => worldBankScheduled(y, m + k));
  }
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

/**
 * The latest release of `source` scheduled at or before `now`, without the lateness grace: what a
 * fetch at `now` can have seen at the earliest (a sync runs minutes after its release).
 */
export function lastReleaseAtOrBefore(source: SyncedSource, now: Date): ScheduledRelease {
  const past = releasesAround(source, now).filter((r) => r.at.getTime() <= now.getTime());
  const last = past.at(-1);
  if (last === undefined) throw new Error(`no ${source} release at or before ${now.toISOString()}`);
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
