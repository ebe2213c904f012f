import { addDays } from '@cds/schedule';
import { syncFrom } from '../common/sync/plans.ts';
import type { SeriesTask } from '../common/sync/task.ts';
import { fetchRateFile, HISTORY_FILE, RECENT_FILE, RECENT_FILE_DAYS } from './fetch.ts';
import { rateItems, readRateFile } from './parse.ts';

/** Ten days asked again each run: a late correction of a recent rate is caught. */
export const RATE_OVERLAP_DAYS = 10;
/** A first sync takes the whole history: it is one file (1999-01-04 on). */
export const RATE_FIRST_DATE = '1999-01-04';

/**
 * The sync's one task: every currency the file quotes (the rates are no catalog commodities; a
 * currency the ECB adds comes with its first file), one cursor (`ecb/rates`) over all of them.
 * From within the last 85 days it reads the 90-day XML, from further back the whole history.
 */
export function rateTasks(): SeriesTask[] {
  return [
    {
      source: 'ecb',
      series: 'rates',
      commodityId: 'FX_EUR',
      overlapDays: RATE_OVERLAP_DAYS,
      from: (newest, today, since) =>
        since !== undefined || newest !== undefined
          ? syncFrom({ newest, overlapDays: RATE_OVERLAP_DAYS, lookbackDays: 0, today, since })
          : RATE_FIRST_DATE,
      async fetch(from, ctx) {
        const file = from >= addDays(ctx.today, -RECENT_FILE_DAYS) ? RECENT_FILE : HISTORY_FILE;
        const bytes = await fetchRateFile(ctx.client, file, ctx.baseUrl);
        // a file that is not the rates (a changed layout, an error page) fails the sync whole
        return rateItems(readRateFile(bytes, `ecb:${file}`), { file: `ecb:${file}`, stats: ctx.stats, from });
      },
    },
  ];
}
