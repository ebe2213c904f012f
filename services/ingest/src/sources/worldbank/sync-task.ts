import { syncFrom } from '../common/sync/plans.ts';
import type { SeriesTask, TaskContext } from '../common/sync/task.ts';
import type { CommodityDefinition } from '../../catalog/index.ts';
import { worldbankOf } from './mapping.ts';
import type { SourceItem } from '../types.ts';
import { fetchPinkSheet, PINK_SHEET_FILE, WORLDBANK_PAGE_URL } from './fetch.ts';
import { readWorldBankWorkbook } from './parse.ts';

/** Six months asked again each run: the Pink Sheet revises its latest months (e.g. 2025M10 in December 2025). */
export const WORLDBANK_OVERLAP_DAYS = 183;
/** A series' first sync takes the whole history: it is in the one file anyway (1960M01 on). */
export const WORLDBANK_FIRST_DATE = '1960-01-01';

/**
 * One sync task per catalog series mapped onto a Pink Sheet code, each with its own cursor
 * (`worldbank/<CODE>`), all served by ONE download: the first task to run fetches the page and the
 * workbook and parses it (layout checked); the others reuse that result, or its error, so a changed
 * page or layout fails every series and nothing is published. Each task keeps its code's points
 * from its `from` date; rejected rows travel with the first task only.
 */
export function worldbankTasks(defs: readonly CommodityDefinition[]): SeriesTask[] {
  let download: Promise<SourceItem[]> | undefined;
  const load = (ctx: TaskContext) =>
    (download ??= (async () => {
      const page = new URL(ctx.baseUrl ?? WORLDBANK_PAGE_URL);
      const { bytes } = await fetchPinkSheet(ctx.client, page);
      const book = await readWorldBankWorkbook(bytes, {
        file: `worldbank:${PINK_SHEET_FILE}`,
        catalog: ctx.catalog,
        stats: ctx.stats,
      });
      return [...book.items()];
    })());
  const series = defs.flatMap((c) => (worldbankOf(c)?.series ?? []).map((s) => ({ commodity: c, s })));
  return series.map(({ commodity, s }, index) => ({
    source: 'worldbank',
    series: s.code,
    commodityId: commodity.entry.id,
    overlapDays: WORLDBANK_OVERLAP_DAYS,
    from: (newest, today, since) =>
      since !== undefined || newest !== undefined
        ? syncFrom({ newest, overlapDays: WORLDBANK_OVERLAP_DAYS, lookbackDays: 0, today, since })
        : WORLDBANK_FIRST_DATE,
    async fetch(from, ctx) {
      const source = `worldbank:${s.code}`;
      return (await load(ctx)).filter((item) =>
        item.kind === 'rejected'
          ? index === 0
          : item.source === source && item.commodity_id === commodity.entry.id && dateOf(item) >= from,
      );
    },
  }));
}

const dateOf = (item: Exclude<SourceItem, { kind: 'rejected' }>) =>
  item.kind === 'series' ? item.point.date : item.kind === 'cot' ? item.record.report_date : `${item.edition}-01`;
