import type { CommodityDefinition } from '../../catalog/index.ts';
import { eiaOf, type EiaSeriesMapping } from './mapping.ts';
import {
  fetchPages,
  IncompletePageError,
  parseJsonBody,
  requireFields,
  SchemaChangeError,
} from '../common/sync/pages.ts';
import { syncFrom } from '../common/sync/plans.ts';
import { EIA_INITIAL_LOOKBACK_DAYS, EIA_MAX_PAGE, EIA_OVERLAP_DAYS, expectedEiaRows } from './plans.ts';
import { collectItems, type SeriesTask } from '../common/sync/task.ts';
import { stampFromCalendar } from '../common/published.ts';
import type { SourceItem } from '../types.ts';
import { eiaQueryUrl } from './fetch.ts';
import { parseEiaApiJson } from './parse-api.ts';

/** EIA API v2: one task per mapped series, paged by offset until the announced total. */
export function eiaTasks(defs: readonly CommodityDefinition[]): SeriesTask[] {
  return defs.flatMap((c) => (eiaOf(c)?.series ?? []).map((s) => eiaTask(c.entry.id, s)));
}

function eiaTask(commodityId: string, s: EiaSeriesMapping): SeriesTask {
  const what = `eia ${s.id}`;
  return {
    source: 'eia',
    series: s.id,
    commodityId,
    overlapDays: EIA_OVERLAP_DAYS[s.frequency],
    from: (newest, today, since) =>
      syncFrom({
        newest,
        overlapDays: EIA_OVERLAP_DAYS[s.frequency],
        lookbackDays: EIA_INITIAL_LOOKBACK_DAYS,
        today,
        since,
      }),
    async fetch(from, ctx) {
      const apiKey = ctx.apiKey;
      if (!apiKey) throw new Error('EIA_API_KEY is not set');
      const pageSize = Math.min(ctx.pageSize ?? EIA_MAX_PAGE, EIA_MAX_PAGE);
      let total: number | undefined;
      const bodies = await fetchPages(
        ctx.client,
        (offset) =>
          eiaQueryUrl(
            { apiKey, start: from, ...(ctx.baseUrl !== undefined ? { baseUrl: ctx.baseUrl } : {}) },
            s,
            offset,
            pageSize,
          ),
        (body, offset) => {
          const doc = parseJsonBody(body, `${what} offset ${offset}`) as {
            response?: { total?: unknown; data?: unknown };
          };
          const data = doc.response?.data;
          const pageTotal = Number(doc.response?.total);
          if (!Array.isArray(data) || doc.response?.total === undefined || !Number.isInteger(pageTotal))
            throw new SchemaChangeError(`${what}: the answer has no response.data array with a response.total`);
          requireFields(data, ['period', 'value'], what);
          if (total !== undefined && pageTotal !== total)
            throw new IncompletePageError(`${what}: total changed from ${total} to ${pageTotal} while paging`);
          const expected = expectedEiaRows(pageTotal, offset, pageSize);
          if (data.length !== expected)
            throw new IncompletePageError(
              `${what}: page at offset ${offset} has ${data.length} rows, expected ${expected} of ${pageTotal}`,
            );
          return { body, rows: data.length, total: pageTotal };
        },
        (page, offset) => {
          total = page.total;
          const after = offset + page.rows;
          return page.rows === 0 || after >= total ? undefined : after;
        },
        ctx.retry,
      );
      const items: SourceItem[] = [];
      for (const { body, offset } of bodies)
        await collectItems(
          parseEiaApiJson([body], {
            file: `eia:${s.id}`,
            series: s.id,
            catalog: ctx.catalog,
            stats: ctx.stats,
            offset,
          }),
          items,
        );
      // EIA's answer has no release time: the last scheduled release (WPSR) the fetch can have seen
      return stampFromCalendar(items, 'eia', ctx.now ?? new Date());
    },
  };
}
