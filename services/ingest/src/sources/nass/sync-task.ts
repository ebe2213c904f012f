import type { CommodityDefinition } from '../../catalog/index.ts';
import { nassOf, type NassItemMapping } from './mapping.ts';
import {
  getCheckedPage,
  IncompletePageError,
  parseJsonBody,
  requireFields,
  SchemaChangeError,
} from '../common/sync/pages.ts';
import { NASS_MAX_RECORDS, nassFromYear, planYearRanges } from './plans.ts';
import { collectItems, type SeriesTask } from '../common/sync/task.ts';
import { SourceFetchError } from '../common/http.ts';
import { stampFromCalendar } from '../common/published.ts';
import type { SourceItem } from '../types.ts';
import { nassQueryUrl } from './fetch.ts';
import { parseNassJson } from './parse.ts';

const NASS_FIELDS = [
  'short_desc',
  'Value',
  'year',
  'reference_period_desc',
  'agg_level_desc',
  'source_desc',
  'domain_desc',
];

/** NASS Quick Stats: one task per mapped item, its years split so each query stays under the record limit. */
export function nassTasks(defs: readonly CommodityDefinition[]): SeriesTask[] {
  return defs.flatMap((c) => (nassOf(c)?.items ?? []).map((i) => nassTask(c.entry.id, i)));
}

function nassTask(commodityId: string, item: NassItemMapping): SeriesTask {
  const what = `nass "${item.short_desc}"`;
  return {
    source: 'nass',
    series: item.short_desc,
    commodityId,
    overlapDays: 800, // two marketing years of annual and point-in-time figures
    from: (newest, today, since) => String(nassFromYear(newest, today, since)),
    async fetch(from, ctx) {
      if (!ctx.apiKey) throw new Error('NASS_API_KEY is not set');
      const base = { apiKey: ctx.apiKey, ...(ctx.baseUrl !== undefined ? { baseUrl: ctx.baseUrl } : {}) };
      const toYear = Number(ctx.today.slice(0, 4));
      const queryUrl = (fromYear: number, to: number) =>
        nassQueryUrl({ ...base, fromYear, toYear: to }, item.short_desc, item);
      const noData = (err: unknown) =>
        err instanceof SourceFetchError && err.status === 400 && /no data/i.test(err.message);
      const count = async (fromYear: number, to: number) => {
        const url = queryUrl(fromYear, to);
        url.pathname = '/api/get_counts/';
        url.searchParams.delete('format');
        try {
          return await getCheckedPage(
            ctx.client,
            url,
            (body) => {
              const n = (parseJsonBody(body, `${what} count`) as { count?: unknown }).count;
              if (typeof n !== 'number' && typeof n !== 'string')
                throw new SchemaChangeError(`${what}: get_counts has no "count"`);
              return Number(n);
            },
            ctx.retry,
          );
        } catch (err) {
          if (noData(err)) return 0;
          throw err;
        }
      };
      const limit = ctx.recordLimit ?? NASS_MAX_RECORDS;
      const ranges = await planYearRanges(Number(from), toYear, count, limit);
      const items: SourceItem[] = [];
      for (const r of ranges) {
        let body: string;
        try {
          body = await getCheckedPage(
            ctx.client,
            queryUrl(r.from, r.to),
            (text) => {
              const doc = parseJsonBody(text, `${what} ${r.from}-${r.to}`) as { data?: unknown };
              if (!Array.isArray(doc.data)) throw new SchemaChangeError(`${what}: the answer has no "data" array`);
              requireFields(doc.data, NASS_FIELDS, what);
              if (doc.data.length < r.count)
                throw new IncompletePageError(
                  `${what} ${r.from}-${r.to}: ${doc.data.length} records, ${r.count} counted`,
                );
              if (doc.data.length > limit)
                throw new IncompletePageError(`${what} ${r.from}-${r.to}: ${doc.data.length} records exceed the limit`);
              return text;
            },
            ctx.retry,
          );
        } catch (err) {
          if (noData(err)) continue;
          throw err;
        }
        await collectItems(
          parseNassJson([body], { file: `nass:${item.short_desc}`, catalog: ctx.catalog, stats: ctx.stats }),
          items,
        );
      }
      // rows carry load_time; one without it takes NASS's last scheduled release
      return stampFromCalendar(items, 'nass', ctx.now ?? new Date());
    },
  };
}
