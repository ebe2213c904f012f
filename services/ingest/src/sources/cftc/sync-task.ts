import type { CotFormat } from '@cds/contracts';
import type { CommodityDefinition } from '../../catalog/index.ts';
import { cftcOf } from './mapping.ts';
import {
  fetchPages,
  IncompletePageError,
  parseJsonBody,
  requireFields,
  SchemaChangeError,
} from '../common/sync/pages.ts';
import { syncFrom } from '../common/sync/plans.ts';
import { collectItems, type SeriesTask } from '../common/sync/task.ts';
import type { SourceItem } from '../types.ts';
import { cftcQueryUrl, CFTC_DATASETS } from './fetch.ts';
import { COMMON_FIELDS, positionFields } from './fields.ts';
import { parseCftcSocrataJson } from './parse-socrata.ts';

/** Four weekly reports are asked again (the CFTC corrects recent reports now and then). */
const OVERLAP_DAYS = 28;
/** How far back a first sync asks. */
const INITIAL_LOOKBACK_DAYS = 3 * 365;

/** CFTC public reporting (Socrata): two tasks per commodity with contract codes, legacy and disaggregated. */
export function cftcTasks(defs: readonly CommodityDefinition[]): SeriesTask[] {
  return defs
    .map((c) => ({ id: c.entry.id, codes: cftcOf(c)?.codes ?? [] }))
    .filter((c) => c.codes.length > 0)
    .flatMap((c) => (['legacy', 'disaggregated'] as const).map((f) => cftcTask(c.id, c.codes, f)));
}

function cftcTask(commodityId: string, codes: readonly string[], format: CotFormat): SeriesTask {
  const what = `cftc ${format} ${commodityId}`;
  const required = [
    COMMON_FIELDS.report_date,
    COMMON_FIELDS.contract_code,
    COMMON_FIELDS.open_interest,
    ...Object.values(positionFields(format)),
  ];
  return {
    source: 'cftc',
    series: `${format}.${commodityId}`,
    commodityId,
    overlapDays: OVERLAP_DAYS,
    from: (newest, today, since) =>
      syncFrom({ newest, overlapDays: OVERLAP_DAYS, lookbackDays: INITIAL_LOOKBACK_DAYS, today, since }),
    async fetch(from, ctx) {
      const pageSize = ctx.pageSize ?? 5000;
      const items: SourceItem[] = [];
      const bodies = await fetchPages(
        ctx.client,
        (offset) =>
          cftcQueryUrl(
            { format, from, ...(ctx.baseUrl !== undefined ? { baseUrl: ctx.baseUrl } : {}) },
            codes,
            offset,
            pageSize,
          ),
        (body, offset) => {
          const rows = parseJsonBody(body, `${what} offset ${offset}`);
          if (!Array.isArray(rows)) throw new SchemaChangeError(`${what}: the answer is not a JSON array of rows`);
          requireFields(rows, required, what);
          if (rows.length > pageSize)
            throw new IncompletePageError(`${what}: ${rows.length} rows on a page of ${pageSize}`);
          return { body, rows: rows.length };
        },
        (page, offset) => (page.rows < pageSize ? undefined : offset + pageSize),
        ctx.retry,
      );
      for (const { body, offset } of bodies)
        await collectItems(
          parseCftcSocrataJson([body], {
            file: `cftc:${CFTC_DATASETS[format]}`,
            format,
            catalog: ctx.catalog,
            stats: ctx.stats,
            offset,
          }),
          items,
        );
      return items;
    },
  };
}
