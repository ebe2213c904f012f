import { COT_DATASETS, type CotDataset } from '@cds/contracts';
import type { CommodityDefinition } from '../../catalog/index.ts';
import { byHeaderName } from '../common/json.ts';
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
import { allFields } from './build-record.ts';
import { parseCftcSocrataJson } from './parse-socrata.ts';

/** Four weekly reports are asked again (the CFTC corrects recent reports now and then). */
const OVERLAP_DAYS = 28;

/**
 * The datasets synced, in task order, each with the first date of its history: a first sync (no
 * cursor yet) asks from there, so it brings the whole history (legacy reports from 1986, the
 * disaggregated ones and the CIT supplement from 2006); `--since` earlier than that asks from there.
 */
export const SYNCED_DATASETS: readonly { dataset: CotDataset; historyFrom: string }[] = [
  { dataset: 'legacy', historyFrom: '1986-01-01' },
  { dataset: 'disaggregated', historyFrom: '2006-01-01' },
  { dataset: 'legacy_combined', historyFrom: '1986-01-01' },
  { dataset: 'disaggregated_combined', historyFrom: '2006-01-01' },
  { dataset: 'cit', historyFrom: '2006-01-01' },
];

/**
 * CFTC public reporting (Socrata): one task per commodity with contract codes and dataset (the CIT
 * supplement only for its 13 markets), each with its cursor `<dataset>.<commodity>` (the
 * futures-only ones keep `legacy.CORN` / `disaggregated.CORN`).
 */
export function cftcTasks(defs: readonly CommodityDefinition[]): SeriesTask[] {
  return defs
    .map((c) => ({ id: c.entry.id, mapping: cftcOf(c) }))
    .filter((c) => (c.mapping?.codes.length ?? 0) > 0)
    .flatMap((c) =>
      SYNCED_DATASETS.filter((d) => d.dataset !== 'cit' || c.mapping!.cit === true).map((d) =>
        cftcTask(c.id, c.mapping!.codes, d.dataset, d.historyFrom),
      ),
    );
}

function cftcTask(commodityId: string, codes: readonly string[], dataset: CotDataset, historyFrom: string): SeriesTask {
  const { format, scope } = COT_DATASETS[dataset];
  const what = `cftc ${dataset} ${commodityId}`;
  const required = allFields(format).map(([, aliases]) => aliases);
  const fromHistory = (d: string) => (d < historyFrom ? historyFrom : d);
  return {
    source: 'cftc',
    series: `${dataset}.${commodityId}`,
    commodityId,
    overlapDays: OVERLAP_DAYS,
    from: (newest, today, since) =>
      newest === undefined && since === undefined
        ? historyFrom
        : fromHistory(syncFrom({ newest, overlapDays: OVERLAP_DAYS, lookbackDays: 0, today, since })),
    async fetch(from, ctx) {
      const pageSize = ctx.pageSize ?? 5000;
      const items: SourceItem[] = [];
      const query = { format, scope, from, ...(ctx.baseUrl !== undefined ? { baseUrl: ctx.baseUrl } : {}) };
      const bodies = await fetchPages(
        ctx.client,
        (offset) => cftcQueryUrl(query, codes, offset, pageSize),
        (body, offset) => {
          const rows = parseJsonBody(body, `${what} offset ${offset}`);
          if (!Array.isArray(rows)) throw new SchemaChangeError(`${what}: the answer is not a JSON array of rows`);
          // the API's names folded as the parser folds them (the CIT dataset's are mixed case)
          requireFields(
            rows.map((r: unknown) =>
              typeof r === 'object' && r !== null && !Array.isArray(r)
                ? Object.fromEntries(byHeaderName(r as Record<string, unknown>))
                : r,
            ),
            required,
            what,
          );
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
            file: `cftc:${CFTC_DATASETS[dataset]}`,
            format,
            scope,
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
