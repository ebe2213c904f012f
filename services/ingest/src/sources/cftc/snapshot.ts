import { cotReportStamp } from '../common/published.ts';
import type { PublicationStamp } from '../types.ts';

/** A snapshot's CFTC open interest point was published on its report's release calendar, as the CFTC files are stamped. */
export function cftcSnapshotStamp(date: string): PublicationStamp | undefined {
  const cot = cotReportStamp(date);
  return cot.published_at !== undefined ? { at: cot.published_at, estimated: true } : undefined;
}
