import { addDays, isTargetDay } from '@cds/schedule';
import type { PublicationStamp } from '../types.ts';
import { rateDayStamp } from './parse.ts';

/**
 * A snapshot's rates keep no vintage per row, so a year's points are stamped as a file's are, by
 * the year: 16:00 Frankfurt of its last TARGET day (estimated), or of the last TARGET day before
 * the build for the year the snapshot was built in. One stamp per year keeps a currency's year one
 * event, as a backfill of the ECB's file publishes it.
 */
export function rateSnapshotStamps(
  _origins: readonly { from?: string | undefined }[],
  builtAt: string,
): (date: string) => PublicationStamp | undefined {
  const byYear = new Map<string, PublicationStamp | undefined>();
  const builtDay = builtAt.slice(0, 10);
  return (date) => {
    const year = date.slice(0, 4);
    if (!byYear.has(year)) {
      let day = `${year}-12-31` < builtDay ? `${year}-12-31` : addDays(builtDay, -1);
      while (!isTargetDay(day) && day >= `${year}-01-01`) day = addDays(day, -1);
      const stamp = day < date ? undefined : rateDayStamp(day);
      byYear.set(year, stamp !== undefined && stamp.at <= builtAt ? stamp : undefined);
    }
    return byYear.get(year);
  };
}
