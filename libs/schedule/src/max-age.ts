import { LATE_GRACE_MS, nextRelease, SYNCED_SOURCES, type SyncedSource } from './freshness.ts';

/**
 * How long a client may keep an answer without asking again (`Cache-Control: private, max-age=N`):
 * never past the next scheduled update of the data it holds.
 *
 * MAX_AGE_CAP_SECONDS, one hour, bounds every answer, because the release calendar is not the only
 * way data changes. The syncs run more often than the releases nextRelease knows (the CFTC catch-up
 * run Monday to Thursday, EIA's daily spot prices every weekday evening, NASS Crop Production on the
 * candidate days 8-12 of each month), a publisher revises published numbers, and an operator can
 * backfill at any time. An hour keeps the stale window of such an update short, while a client that
 * revalidates with its ETag gets a 304 that costs little and does not count against its rate
 * windows; a longer cap would save little and let a revision go unseen for a day or a week.
 *
 * Right after a scheduled release the new data is still being synced (the CronJob starts 5 minutes
 * after the release and a publisher can post late): from the release time until its grace
 * (LATE_GRACE_MS, two hours) has passed, answers get the short SYNC_WINDOW_MAX_AGE_SECONDS, so a
 * client sees the release within a minute of it landing, not up to an hour later.
 *
 * Sources without a schedule (demo, ohlcv, an unknown or absent source) get the short
 * UNSCHEDULED_MAX_AGE_SECONDS: they change whenever an operator loads data.
 */
export const MAX_AGE_CAP_SECONDS = 3600;
export const SYNC_WINDOW_MAX_AGE_SECONDS = 60;
export const UNSCHEDULED_MAX_AGE_SECONDS = 60;

/**
 * The synced source a provenance names: `cftc:legacy:067651` → cftc, `eia:RWTC` → eia, `nass` →
 * nass; undefined for demo, ohlcv, anything else, or no source.
 */
export function syncedSourceOf(source: string | undefined): SyncedSource | undefined {
  if (source === undefined) return undefined;
  const name = source.split(':', 1)[0]!;
  return (SYNCED_SOURCES as readonly string[]).includes(name) ? (name as SyncedSource) : undefined;
}

/**
 * The max-age, in whole seconds, of an answer holding data from `source` (a source name or a
 * provenance such as `eia:RWTC`) at `now`: the seconds until the source's next scheduled release,
 * rounded down, at least 0 and at most MAX_AGE_CAP_SECONDS; SYNC_WINDOW_MAX_AGE_SECONDS while a
 * release is being synced; UNSCHEDULED_MAX_AGE_SECONDS for a source without a schedule. Pure.
 */
export function maxAgeSeconds(source: string | undefined, now: Date): number {
  const synced = syncedSourceOf(source);
  if (synced === undefined) return UNSCHEDULED_MAX_AGE_SECONDS;
  const t = now.getTime();
  // A release after (now - grace) that is not after now: its sync may still be landing.
  if (nextRelease(synced, new Date(t - LATE_GRACE_MS[synced])).at.getTime() <= t) {
    return Math.min(SYNC_WINDOW_MAX_AGE_SECONDS, MAX_AGE_CAP_SECONDS);
  }
  const untilNext = Math.floor((nextRelease(synced, now).at.getTime() - t) / 1000);
  return Math.min(MAX_AGE_CAP_SECONDS, Math.max(0, untilNext));
}

/**
 * The max-age of an answer mixing several sources (the commodity list, a detail with many series):
 * the smallest of theirs, so it outlives no source's next update; UNSCHEDULED_MAX_AGE_SECONDS when
 * there are none.
 */
export function maxAgeSecondsOf(sources: Iterable<string | undefined>, now: Date): number {
  let min: number | undefined;
  for (const s of sources) {
    const age = maxAgeSeconds(s, now);
    if (min === undefined || age < min) min = age;
  }
  return min ?? UNSCHEDULED_MAX_AGE_SECONDS;
}
