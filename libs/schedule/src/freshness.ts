import { SOURCES, SYNC_SOURCE_NAMES, type ReleaseRule, type SyncSourceName } from '@cds/contracts';
import { addDays } from './holidays.ts';
import { localParts, type Release } from './releases.ts';
import { calendarReleases, scheduledRelease } from './calendar.ts';
import { COT_CATCH_UP_MAX_DAYS } from './shutdowns.ts';

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

/**
 * How many days before and after a local date each rule's releases are looked at: enough that one
 * release lies before the date and one after it, across holidays, a cancelled WASDE month (two
 * months between editions) and a shutdown that held COT reports back for up to eight weeks.
 */
const AROUND_DAYS: Readonly<Record<ReleaseRule, readonly [before: number, after: number]>> = {
  // a shutdown's catch-up published a report up to COT_CATCH_UP_MAX_DAYS after its date, with none in between
  'cot-weekly': [COT_CATCH_UP_MAX_DAYS + 21, 28],
  'wpsr-weekly': [21, 21],
  'quarter-end-reports': [400, 400],
  'pink-sheet-monthly': [70, 45],
  'lm-hg201-daily': [7, 7],
  'supply-demand-monthly': [100, 75],
  'fx-reference-daily': [10, 10],
};

/** A rule's calendar releases around a local date (calendar.ts), the cancelled ones left out, sorted by time. */
function scheduledAround(rule: ReleaseRule, today: string): ScheduledRelease[] {
  const [before, after] = AROUND_DAYS[rule];
  return calendarReleases(rule, addDays(today, -before), addDays(today, after))
    .filter((r) => r.cancelled === undefined)
    .map(scheduledRelease);
}

/**
 * The releases of each source around a local date, kept: they depend on the date alone, and an
 * answer's max-age asks for them on every request. The few dates in use are kept; the lists are
 * shared, never changed by a caller.
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
    releases = scheduledAround(rule, today);
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
