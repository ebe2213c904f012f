import { RELEASE_RULES } from '@cds/contracts';
import { calendarReleases, scheduledRelease } from './calendar.ts';
import type { Release } from './releases.ts';

/**
 * Every release of every rule dated (after any holiday shift or shutdown catch-up) in `year`, the
 * cancelled ones left out, sorted by time: the rules' calendars (calendar.ts), each as a Release of
 * its rule's source.
 */
export function releasesOfYear(year: number): Release[] {
  return RELEASE_RULES.flatMap((rule) =>
    calendarReleases(rule, `${year}-01-01`, `${year}-12-31`)
      .filter((r) => r.cancelled === undefined)
      .map(scheduledRelease),
  ).sort((a, b) => a.at.getTime() - b.at.getTime());
}
