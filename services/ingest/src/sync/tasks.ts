import type { CotFormat } from '@cds/contracts';
import type { AmsMapping, CatalogIndex, EiaSeriesMapping, NassItemMapping } from '../catalog/index.ts';
import { amsQueryUrls } from '../sources/ams/fetch.ts';
import { amsSectionRows, parseAmsJson } from '../sources/ams/parse.ts';
import { amsReport } from '../sources/ams/reports.ts';
import { cftcQueryUrl, CFTC_DATASETS } from '../sources/cftc/fetch.ts';
import { COMMON_FIELDS, positionFields } from '../sources/cftc/fields.ts';
import { parseCftcSocrataJson } from '../sources/cftc/parse-socrata.ts';
import { SourceFetchError, type HttpClient } from '../sources/common/http.ts';
import type { ParseStats } from '../sources/common/stats.ts';
import { eiaQueryUrl } from '../sources/eia/fetch.ts';
import { parseEiaApiJson } from '../sources/eia/parse-api.ts';
import { nassQueryUrl } from '../sources/nass/fetch.ts';
import { parseNassJson } from '../sources/nass/parse.ts';
import type { SourceItem } from '../sources/types.ts';
import { worldbankTasks } from '../sources/worldbank/sync-task.ts';
import {
  fetchPages,
  getCheckedPage,
  IncompletePageError,
  parseJsonBody,
  requireFields,
  SchemaChangeError,
  type PageRetry,
} from './pages.ts';
import {
  EIA_MAX_PAGE,
  expectedEiaRows,
  INITIAL_LOOKBACK_DAYS,
  NASS_MAX_RECORDS,
  nassFromYear,
  OVERLAP_DAYS,
  planYearRanges,
  syncFrom,
} from './plans.ts';

export type SyncSource = 'cftc' | 'eia' | 'nass' | 'ams' | 'worldbank';
export const SYNC_SOURCES: readonly SyncSource[] = ['cftc', 'eia', 'nass', 'ams', 'worldbank'];

export interface TaskContext {
  client: HttpClient;
  retry: PageRetry;
  catalog: CatalogIndex;
  stats: ParseStats;
  /** Today in UTC, YYYY-MM-DD. */
  today: string;
  baseUrl?: string;
  apiKey?: string;
  pageSize?: number;
  /** NASS: records per query before the range is split (tests lower it). */
  nassLimit?: number;
}

/** One series of one source: the cursor it keeps, where its sync starts, and how it fetches. */
export interface SeriesTask {
  source: SyncSource;
  /** Cursor name within the source, e.g. `RWTC`, `legacy.GOLD`, a NASS short_desc. */
  series: string;
  commodityId: string;
  /** Digests of records older than newest - overlapDays are dropped from the cursor. */
  overlapDays: number;
  /** The first date (or year) asked, as shown in the summary. */
  from(newest: string | undefined, today: string, since?: string): string;
  /** Every record of the series from `from`, or an error: never a partial result. */
  fetch(from: string, ctx: TaskContext): Promise<SourceItem[]>;
}

async function collect(gen: AsyncIterable<SourceItem>, into: SourceItem[]): Promise<void> {
  for await (const item of gen) into.push(item);
}

// ---------------------------------------------------------------- EIA API v2

function eiaTask(commodityId: string, s: EiaSeriesMapping): SeriesTask {
  const what = `eia ${s.id}`;
  return {
    source: 'eia',
    series: s.id,
    commodityId,
    overlapDays: OVERLAP_DAYS.eia[s.frequency],
    from: (newest, today, since) =>
      syncFrom({
        newest,
        overlapDays: OVERLAP_DAYS.eia[s.frequency],
        lookbackDays: INITIAL_LOOKBACK_DAYS.eia,
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
        await collect(
          parseEiaApiJson([body], {
            file: `eia:${s.id}`,
            series: s.id,
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

// ---------------------------------------------------------------- NASS Quick Stats

const NASS_FIELDS = [
  'short_desc',
  'Value',
  'year',
  'reference_period_desc',
  'agg_level_desc',
  'source_desc',
  'domain_desc',
];

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
      const limit = ctx.nassLimit ?? NASS_MAX_RECORDS;
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
        await collect(
          parseNassJson([body], { file: `nass:${item.short_desc}`, catalog: ctx.catalog, stats: ctx.stats }),
          items,
        );
      }
      return items;
    },
  };
}

// ---------------------------------------------------------------- CFTC public reporting (Socrata)

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
    overlapDays: OVERLAP_DAYS.cftc,
    from: (newest, today, since) =>
      syncFrom({ newest, overlapDays: OVERLAP_DAYS.cftc, lookbackDays: INITIAL_LOOKBACK_DAYS.cftc, today, since }),
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
        await collect(
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

// ---------------------------------------------------------------- USDA AMS datamart (LMR, FMMO)

function amsTask(commodityId: string, mapping: AmsMapping): SeriesTask {
  const what = `ams ${mapping.report}`;
  const spec = amsReport(mapping.report);
  const overlapDays = OVERLAP_DAYS.ams[mapping.frequency];
  return {
    source: 'ams',
    series: mapping.report,
    commodityId,
    overlapDays,
    from: (newest, today, since) =>
      syncFrom({ newest, overlapDays, lookbackDays: INITIAL_LOOKBACK_DAYS.ams, today, since }),
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
      return items;
    },
  };
}

/** Every series of a source, commodity by commodity, in catalog order. */
export function seriesTasks(source: SyncSource, catalog: CatalogIndex, commodities?: readonly string[]): SeriesTask[] {
  const defs = catalog.commodities.filter((c) => commodities === undefined || commodities.includes(c.entry.id));
  switch (source) {
    case 'worldbank':
      return worldbankTasks(defs);
    case 'eia':
      return defs.flatMap((c) => (c.sources.eia?.series ?? []).map((s) => eiaTask(c.entry.id, s)));
    case 'nass':
      return defs.flatMap((c) => (c.sources.nass?.items ?? []).map((i) => nassTask(c.entry.id, i)));
    case 'ams':
      return defs.flatMap((c) => (c.sources.ams?.series ?? []).map((a) => amsTask(c.entry.id, a)));
    case 'cftc':
      return defs
        .filter((c) => c.sources.cftc.codes.length > 0)
        .flatMap((c) =>
          (['legacy', 'disaggregated'] as const).map((f) => cftcTask(c.entry.id, c.sources.cftc.codes, f)),
        );
  }
}
