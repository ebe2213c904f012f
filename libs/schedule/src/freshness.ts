import { SOURCES, SYNC_SOURCE_NAMES, type ReleaseRule, type SyncSourceName } from '@cds/contracts';
import { addDays, isBusinessDay, weekday } from './holidays.ts';
import {
  cotRelease,
  lmHg201Release,
  localParts,
  mondayOf,
  pinkSheetRelease,
  quarterEndReportReleases,
  wpsrRelease,
  type Release,
} from './releases.ts';
import { editionRelease } from './supply-demand.ts';
import { fxReferenceRelease } from './fx-reference.ts';

/** A source `ingest sync` keeps up to date on its calendar (the contracts' SOURCES rows with `synced`). */
export type SyncedSource = SyncSourceName;
export const SYNCED_SOURCES: readonly SyncedSource[] = SYNC_SOURCE_NAMES;

/** A scheduled release and the observation date its newest data carries. */
export interface ScheduledRelease extends Release {
  /** The newest observation date the release publishes, YYYY-MM-DD. */
  dataDate: string;
}

/**
 * How long after a release's scheduled time the synced data may still lack it before the source
 * counts as late: its calendar's `lateGraceHours` (the contracts' SOURCES).
 */
export const LATE_GRACE_MS = Object.fromEntries(
  SYNC_SOURCE_NAMES.map((n) => [n, SOURCES[n].calendar.lateGraceHours * 3_600_000]),
) as Readonly<Record<SyncedSource, number>>;

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
function cotScheduled(date: string): ScheduledRelease {
  const tuesday = addDays(mondayOf(date), 1);
  return { ...cotRelease(date), dataDate: businessDayOnOrBefore(tuesday) };
}

/** The Weekly Petroleum Status Report carries the week ending the Friday before its Wednesday (EIA's weekly period). */
function wpsrScheduled(date: string): ScheduledRelease {
  return { ...wpsrRelease(date), dataDate: addDays(mondayOf(date), -3) };
}

/**
 * NASS's quarter-end reports carry Grain Stocks as of the first of their month (dated that day by
 * the NASS mapper); an annual value (dated December 31) is newer still and also satisfies it.
 */
function quarterEndScheduled(year: number): ScheduledRelease[] {
  return quarterEndReportReleases(year).map((r) => ({ ...r, dataDate: `${r.date.slice(0, 8)}01` }));
}

/** The Pink Sheet of a month (months past 12 or below 1 roll the year) carries the previous month's averages. */
function pinkSheetScheduled(year: number, month: number): ScheduledRelease {
  const y = year + Math.floor((month - 1) / 12);
  const m = ((((month - 1) % 12) + 12) % 12) + 1;
  return { ...pinkSheetRelease(y, m), dataDate: addDays(`${y}-${String(m).padStart(2, '0')}-01`, -1) };
}

/** The AMS daily hog report of a weekday carries the slaughter of the weekday before (Friday's on Monday). */
function lmHg201Scheduled(date: string): ScheduledRelease {
  const back = weekday(date) === 1 ? 3 : 1;
  return { ...lmHg201Release(date), dataDate: addDays(date, -back) };
}

/**
 * WASDE editions (`supply-demand-monthly`) of the months three before to two after a date: each carries
 * its own month's edition, dated the first of the month (as the sync's cursor dates an edition).
 * A cancelled month has no release, so it is never due.
 */
function supplyDemandAround(today: string): ScheduledRelease[] {
  const [y, m] = today.split('-').map(Number) as [number, number];
  return [-3, -2, -1, 0, 1, 2].flatMap((k) => {
    const r = editionRelease(y, m + k);
    return r === undefined ? [] : [{ ...r, dataDate: `${r.date.slice(0, 8)}01` }];
  });
}

/** A weekly rule's releases two weeks each way of `today` (a holiday can push one into the following week). */
function weeklyAround(weekly: (date: string) => ScheduledRelease, today: string): ScheduledRelease[] {
  const out: ScheduledRelease[] = [];
  for (let w = -2; w <= 2; w++) out.push(weekly(addDays(today, 7 * w)));
  return out.sort((a, b) => a.at.getTime() - b.at.getTime());
}

/** Each rule's releases from a few weeks (daily, weekly), months or years around a local date, sorted by time. */
const RELEASES_AROUND: Readonly<Record<ReleaseRule, (today: string) => ScheduledRelease[]>> = {
  'cot-weekly': (today) => weeklyAround(cotScheduled, today),
  'wpsr-weekly': (today) => weeklyAround(wpsrScheduled, today),
  'quarter-end-reports': (today) => {
    const year = Number(today.slice(0, 4));
    return [year - 1, year, year + 1].flatMap(quarterEndScheduled);
  },
  'pink-sheet-monthly': (today) => {
    const [y, m] = today.split('-').map(Number) as [number, number];
    return [-2, -1, 0, 1].map((k) => pinkSheetScheduled(y, m + k));
  },
  'lm-hg201-daily': (today) => {
    const days = Array.from({ length: 15 }, (_, i) => addDays(today, i - 7));
    return days.filter((d) => weekday(d) >= 1 && weekday(d) <= 5).map(lmHg201Scheduled);
  },
  'supply-demand-monthly': supplyDemandAround,
  // The reference rates of a TARGET day carry that day's rates.
  'fx-reference-daily': (today) =>
    Array.from({ length: 15 }, (_, i) => fxReferenceRelease(addDays(today, i - 7)))
      .filter((r) => r !== undefined)
      .map((r) => ({ ...r, dataDate: r.date })),
};

/**
 * The releases of each rule around a local date, kept: they depend on the date alone, and an answer's
 * max-age asks for them on every request (a daily rule's are 15 days of time-zone arithmetic). The
 * few dates in use are kept; the lists are shared, never changed by a caller.
 */
const AROUND_KEPT = 64;
const aroundKept = new Map<string, readonly ScheduledRelease[]>();

/** The releases of a source around `at`, by the rule of its calendar, sorted by time. */
function releasesAround(source: SyncedSource, at: Date): readonly ScheduledRelease[] {
  const rule = SOURCES[source].calendar.rule;
  const today = localParts(at).date;
  const key = `${rule} ${today}`;
  let releases = aroundKept.get(key);
  if (releases === undefined) {
    if (aroundKept.size >= AROUND_KEPT) aroundKept.clear();
    releases = RELEASES_AROUND[rule](today);
    aroundKept.set(key, releases);
  }
  return releases;
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
