import {
  contentDisposition,
  COT_DATASETS,
  cotCsvColumns,
  cotDatasetOf,
  type CommodityPathParams,
  type CotDataset,
  type CotQuery,
  type CotReport,
  type CotScope,
  cotSeriesType,
  csvFileName,
  defaultCotScope,
  ROUTES_BY_NAME,
} from '@cds/contracts';
import { NotFoundError } from '@cds/http';
import type { CotDoc, StoredGroup } from '@cds/read-models';
import { cacheKey, cacheRule, type ResponseBody } from '@cds/response-cache';
import { historyNeeded, withAnalytics } from './analytics.ts';
import { provenanceOf, requireCommodity } from '../catalog/index.ts';
import { asOfMaxAge, refuseAsOfBeforeData, refuseFutureAsOf } from '../http/point-in-time.ts';
import { publicationOf } from '../http/point-in-time.ts';
import { paginationMeta, routeSchema, type QueryApp, type RouteContext } from '../http/route-context.ts';

function plain(g: StoredGroup | undefined) {
  const long = g?.long ?? 0;
  const short = g?.short ?? 0;
  return { long, short, net: long - short };
}

function spreading(g: StoredGroup | undefined) {
  const long = g?.long ?? 0;
  const short = g?.short ?? 0;
  return { long, short, spreading: g?.spreading ?? 0, net: long - short };
}

/**
 * A stored report rendered in its format's groups, with net = long - short computed here (never
 * taken from a source), its scope (the dataset's: the stored reports carry none, their bucket
 * does), the consistency checks it failed, and the release that published it. The projector
 * stores every group of the format; a group missing from a document would render as zeros rather
 * than break the page.
 */
export function toCotReport(doc: CotDoc, scope: CotScope = doc.scope ?? defaultCotScope(doc.format)): CotReport {
  const base = {
    report_date: doc.report_date,
    commodity: doc.commodity_id,
    ...(doc.exchange === undefined ? {} : { exchange: doc.exchange }),
    open_interest: doc.open_interest,
    scope,
    ...(doc.failed_checks === undefined || doc.failed_checks.length === 0 ? {} : { failed_checks: doc.failed_checks }),
    ...provenanceOf(doc),
    ...publicationOf(doc.release),
  };
  const g = doc.groups ?? {};
  switch (doc.format) {
    case 'legacy':
      return {
        ...base,
        format: 'legacy',
        commercial: plain(g.commercial),
        non_commercial: spreading(g.non_commercial),
        non_reportable: plain(g.non_reportable),
      };
    case 'disaggregated':
      return {
        ...base,
        format: 'disaggregated',
        producer_merchant: plain(g.producer_merchant),
        swap_dealer: spreading(g.swap_dealer),
        managed_money: spreading(g.managed_money),
        other_reportable: spreading(g.other_reportable),
      };
    case 'cit':
      return {
        ...base,
        format: 'cit',
        commercial: plain(g.commercial),
        non_commercial: spreading(g.non_commercial),
        index_traders: plain(g.index_traders),
        non_reportable: plain(g.non_reportable),
      };
  }
}

/** What a commodity without the requested dataset is told (404 naming format). */
function missingDataset(slug: string, dataset: CotDataset): string {
  if (dataset === 'cit') {
    return (
      `Commodity '${slug}' has no CIT supplement reports: the supplement covers 13 agricultural markets ` +
      `(see available_series: cot_cit).`
    );
  }
  const { format, scope } = COT_DATASETS[dataset];
  return scope === 'futures_only'
    ? `Commodity '${slug}' has no ${format} COT reports.`
    : `Commodity '${slug}' has no ${format} COT reports in scope ${scope} (see available_series: ${cotSeriesType(dataset)}).`;
}

interface ValidatedCot {
  params: CommodityPathParams;
  query: CotQuery;
}

/**
 * GET /commodities/:slug/cot: reports of one dataset (a format in a scope) sorted by report_date
 * (desc by default), inclusive optional date bounds, paged. A commodity without that dataset is a
 * 404 on format.
 */
export function registerCotRoute(app: QueryApp, ctx: RouteContext): void {
  app.get(
    ROUTES_BY_NAME.cot.path,
    {
      schema: routeSchema(ROUTES_BY_NAME.cot),
      config: {
        cache: cacheRule(
          ({ params: { slug }, query: q }: ValidatedCot) => ({
            key: cacheKey('cot', {
              slug,
              format: q.format,
              // Only when given: without it the key (and the answer) stays what it was.
              scope: q.scope,
              start_date: q.start_date,
              end_date: q.end_date,
              sort_order: q.sort_order,
              page: q.page,
              per_page: q.per_page,
              // Only with include: without it the key (and the answer) stays what it was. index_weeks
              // changes nothing without cot_index, so it keys only then.
              include: q.include?.join(','),
              index_weeks: q.include?.includes('cot_index') === true ? q.index_weeks : undefined,
              as_of: q.as_of,
            }),
            tags: [slug],
          }),
          {
            csv: ({ params: { slug }, query: q }) => ({
              columns: cotCsvColumns({ format: q.format, scope: q.scope, include: q.include }),
              contentDisposition: contentDisposition(
                csvFileName({
                  endpoint: 'cot',
                  commodity: slug,
                  // The dataset: legacy_combined, cit, … (a futures-only one is named as its format).
                  format: cotDatasetOf(q),
                  start_date: q.start_date,
                  end_date: q.end_date,
                  as_of: q.as_of,
                  page: q.page,
                }),
              ),
            }),
          },
        ),
      },
    },
    async ({ params: { slug }, query: q }): Promise<ResponseBody> => {
      const nowMs = ctx.nowMs();
      refuseFutureAsOf(q.as_of, nowMs);
      const doc = await requireCommodity(ctx, slug);
      // Everything below is keyed by the dataset, never the format alone: scopes never mix.
      const dataset = cotDatasetOf(q);
      const { scope } = COT_DATASETS[dataset];
      const descriptor = doc.series?.[cotSeriesType(dataset)];
      if (descriptor === undefined) throw new NotFoundError(missingDataset(slug, dataset), 'format');
      refuseAsOfBeforeData(q.as_of, descriptor.first_published_at, `the ${dataset} COT reports of ${slug}`);
      // The reports and the analytics' history both as of the same instant.
      const view = q.as_of === undefined ? undefined : { asOf: q.as_of };
      const page = await ctx.repository.findCotReports({
        commodityId: slug,
        format: q.format,
        scope,
        firstDate: descriptor.first_date,
        lastDate: descriptor.last_date,
        startDate: q.start_date,
        endDate: q.end_date,
        sortOrder: q.sort_order,
        skip: (q.page - 1) * q.per_page,
        limit: q.per_page,
        view,
      });
      const render = (d: CotDoc) => toCotReport(d, scope);
      let data = page.items.map(render);
      const include = q.include ?? [];
      if (include.length > 0 && data.length > 0) {
        const earliest = data.reduce((a, r) => (r.report_date < a ? r.report_date : a), data[0]!.report_date);
        // The reports before the page, wherever the requested dates or page begin (as the
        // series' predecessor): the previous one for changes, the index window's for cot_index.
        const history = await ctx.repository.findCotReportsBefore({
          commodityId: slug,
          format: q.format,
          scope,
          firstDate: descriptor.first_date,
          before: earliest,
          count: historyNeeded(include, q.index_weeks),
          view,
        });
        data = withAnalytics(data, history.map(render), include, q.index_weeks);
      }
      // Last-Modified: the newest ingest of the commodity's reports of this dataset (as the series'
      // meta.last_updated), never older than any report or predecessor the answer was made from.
      return {
        data,
        meta: {
          ...paginationMeta(q.page, q.per_page, page.total),
          ...(q.as_of === undefined ? {} : { as_of: q.as_of }),
        },
        freshness: {
          lastModified: descriptor.last_updated,
          sources: [descriptor.source],
          maxAge: asOfMaxAge(q.as_of, nowMs),
        },
      };
    },
  );
}
