import { easternInstant, lastReleaseAtOrBefore, type SyncedSource } from '@cds/schedule';
import type { PublicationStamp, SourceItem } from '../types.ts';

/** Whether `day` is a real calendar date YYYY-MM-DD. */
function isDay(day: string): boolean {
  const t = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day;
}

// A COT report's calendar stamp has its one home in libs/schedule (the projector uses it too).
export { cotReportStamp } from '@cds/schedule';

/** A date the source states as its publication (the Pink Sheet's "Updated on"): the start of that day, UTC. */
export function statedDayStamp(day: string): PublicationStamp {
  return { at: new Date(`${day}T00:00:00.000Z`).toISOString(), estimated: false };
}

/** A wall-clock time of US Eastern (`YYYY-MM-DD HH:MM[:SS[.fff]]`, NASS's load_time) as a stamp the source states. */
export function easternStamp(text: string): PublicationStamp | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(text.trim());
  if (!m) return undefined;
  const [, date, h, min, sec = '0', frac = '0'] = m;
  if (Number(h) > 23 || Number(min) > 59 || Number(sec) > 59) return undefined;
  if (!isDay(date!)) return undefined;
  const minute = easternInstant(date!, `${h}:${min}`);
  const at = new Date(minute.getTime() + Number(sec) * 1000 + Number(frac.padEnd(3, '0')));
  return { at: at.toISOString(), estimated: false };
}

/**
 * Stamps the series items a fetch at `now` got without a publication time of their own with the
 * source's last scheduled release at or before `now` (estimated). A point dated on or after that
 * release's day cannot have come with it (a daily series the calendar does not list): it stays
 * unstamped, and its event carries the ingest time. A stamp the source gave later than `now` is
 * not believed (nothing fetched was published after the fetch): it goes the same way.
 */
export function stampFromCalendar(items: SourceItem[], source: SyncedSource, now: Date): SourceItem[] {
  const release = lastReleaseAtOrBefore(source, now);
  const stamp: PublicationStamp = { at: release.at.toISOString(), estimated: true };
  const limit = now.toISOString();
  for (const item of items) {
    if (item.kind !== 'series') continue;
    if (item.published !== undefined && item.published.at > limit) delete item.published;
    if (item.published === undefined && item.point.date < release.date) item.published = stamp;
  }
  return items;
}
