import type { Frequency } from '@cds/contracts';
import type { CommodityDefinition } from '../../catalog/index.ts';
import { amsOf, type AmsMapping } from './mapping.ts';
import { getCheckedPage, parseJsonBody } from '../common/sync/pages.ts';
import { syncFrom } from '../common/sync/plans.ts';
import type { SeriesTask } from '../common/sync/task.ts';
import { stampFromCalendar } from '../common/published.ts';
import type { SourceItem } from '../types.ts';
import { amsQueryUrls } from './fetch.ts';
import { amsSectionRows, parseAmsJson } from './parse.ts';
import { amsReport } from './reports.ts';

/** USDA AMS by frequency: LM_HG201 daily 30 days; LM_CT150 weekly 8 weeks; FMMO monthly 6 months (the sync's overlap). */
const OVERLAP_DAYS = { daily: 30, weekly: 56, monthly: 183 } satisfies Record<Frequency, number>;
/** How far back a first sync asks. */
const INITIAL_LOOKBACK_DAYS = 3 * 365;

/** USDA AMS datamart (LMR, FMMO): one task per mapped report. */
export function amsTasks(defs: readonly CommodityDefinition[]): SeriesTask[] {
  return defs.flatMap((c) => (amsOf(c)?.series ?? []).map((a) => amsTask(c.entry.id, a)));
}

function amsTask(commodityId: string, mapping: AmsMapping): SeriesTask {
  const what = `ams ${mapping.report}`;
  const spec = amsReport(mapping.report);
  const overlapDays = OVERLAP_DAYS[mapping.frequency];
  return {
    source: 'ams',
    series: mapping.report,
    commodityId,
    overlapDays,
    from: (newest, today, since) =>
      syncFrom({ newest, overlapDays, lookbackDays: INITIAL_LOOKBACK_DAYS, today, since }),
    async fetch(from, ctx) {
      if (!spec) throw new Error(`${what}: the service has no parser for this report`);
      const items: SourceItem[] = [];
      // one query per 180-day window (LMR) or per year (FMMO), oldest first; no key
      for (const url of amsQueryUrls(mapping, from, ctx.today, ctx.baseUrl)) {
        const body = await getCheckedPage(
          ctx.client,
          url,
          (text) => {
            // a truncated body is fetched again; a changed layout or a renamed field fails the series
            amsSectionRows(parseJsonBody(text, what), spec, what);
            return text;
          },
          ctx.retry,
        );
        for await (const item of parseAmsJson([body], {
          file: `ams:${mapping.report}`,
          report: mapping.report,
          catalog: ctx.catalog,
          stats: ctx.stats,
        }))
          if (item.kind === 'rejected' || item.commodity_id === commodityId) items.push(item);
      }
      // rows without a report date of their own (FMMO) take AMS's last scheduled release
      return stampFromCalendar(items, 'ams', ctx.now ?? new Date());
    },
  };
}
