import { cotReportPublishedAt } from './releases.ts';

/** Whether `day` is a real calendar date YYYY-MM-DD. */
function isDay(day: string): boolean {
  const t = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : Number.NaN;
  return !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day;
}

/**
 * The publication a COT report of `reportDate` gets when it states none: the CFTC's release
 * calendar (estimated: no time is stated), as the event's fields. The ingest stamps its events
 * with it; the projector falls back to it for an event that came without one. Nothing for a date
 * that is not one (the record's validation rejects it).
 */
export function cotReportStamp(reportDate: string): { published_at?: string; published_at_estimated?: true } {
  if (!isDay(reportDate)) return {};
  return { published_at: cotReportPublishedAt(reportDate).toISOString(), published_at_estimated: true };
}
