import {
  attributionOf,
  contentDisposition,
  csvFileName,
  ROUTES_BY_NAME,
  SUPPLY_DEMAND_SERIES_TYPE,
  supplyDemandCsvColumns,
  type CommodityPathParams,
  type SupplyDemandQuery,
} from '@cds/contracts';
import { InvalidParameterError, NotFoundError } from '@cds/http';
import type { StoredSeriesDescriptor, SupplyDemandBucketDoc } from '@cds/read-models';
import { cacheKey, cacheRule, type ResponseBody } from '@cds/response-cache';
import { requireCommodity } from '../catalog/index.ts';
import { asOfMaxAge, refuseAsOfBeforeData, refuseFutureAsOf } from '../http/point-in-time.ts';
import { paginationMeta, routeSchema, type QueryApp, type RouteContext } from '../http/route-context.ts';
import { attributesOf, editionsOf, figuresInView, sheetParts } from './sheets.ts';

/** Cited when a sheet's provenance names no known source (the publisher of every balance sheet served). */
const PUBLISHER = 'USDA World Agricultural Outlook Board';

/** Longest list a 400 spells out (a region has some 20 marketing years, a world table some 60 regions). */
const MAX_LISTED = 80;

function listed(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED).join(', ');
  return names.length > MAX_LISTED ? `${shown}, … (${names.length} in all)` : shown;
}

/** A commodity without balance sheets: a 404 naming the commodities that have them. */
async function missingSheets(ctx: RouteContext, slug: string): Promise<NotFoundError> {
  // The list carries summaries only: each entry is read (tens of them, on this error's path alone).
  const all = await ctx.repository.listCommodities({ sortOrder: 'asc', skip: 0, limit: Number.MAX_SAFE_INTEGER });
  const docs = await Promise.all(all.items.map((d) => ctx.repository.getCommodity(d.id)));
  const having = docs.filter((d) => d?.series?.[SUPPLY_DEMAND_SERIES_TYPE] !== undefined).map((d) => d!.id);
  return new NotFoundError(
    `Commodity '${slug}' has no supply and demand balance sheets; ` +
      (having.length === 0
        ? 'no commodity has them yet.'
        : `the commodities with them (available_series: supply_demand) are ${listed(having)}.`),
    'slug',
  );
}

/**
 * The sheets a request reads, its region, marketing year and attribute checked against the data:
 * each unknown one is a 400 naming it and listing those there are.
 */
async function readSheets(
  ctx: RouteContext,
  slug: string,
  q: SupplyDemandQuery,
  descriptor: StoredSeriesDescriptor,
): Promise<SupplyDemandBucketDoc[]> {
  const regions = descriptor.regions;
  if (regions !== undefined && !regions.includes(q.region)) {
    throw new InvalidParameterError(
      'region',
      `invalid 'region': ${slug} has no balance sheets for ${q.region}; its regions are ${listed(regions)}`,
    );
  }
  const read = (marketingYear?: string) =>
    ctx.repository.supplyDemandSheets({ commodityId: slug, region: q.region, marketingYear });
  const sheets = await read(q.marketing_year);
  if (sheets.length > 0) return sheets;
  if (q.marketing_year === undefined) {
    throw new InvalidParameterError(
      'region',
      `invalid 'region': ${slug} has no balance sheets for ${q.region}` +
        (regions === undefined ? '' : `; its regions are ${listed(regions)}`),
    );
  }
  const years = (await read()).map((s) => s.marketing_year);
  throw new InvalidParameterError(
    'marketing_year',
    `invalid 'marketing_year': ${slug} has no ${q.region} balance sheet for ${q.marketing_year}` +
      (years.length === 0 ? '' : `; its marketing years are ${listed(years)}`),
  );
}

/** The answer: the figures (or one figure's editions) of the sheets, paged, with the source's attribution. */
export async function buildSupplyDemandBody(
  ctx: RouteContext,
  slug: string,
  q: SupplyDemandQuery,
  nowMs: number,
): Promise<ResponseBody> {
  refuseFutureAsOf(q.as_of, nowMs);
  const doc = await requireCommodity(ctx, slug);
  const descriptor = doc.series?.[SUPPLY_DEMAND_SERIES_TYPE];
  if (descriptor === undefined) throw await missingSheets(ctx, slug);
  refuseAsOfBeforeData(q.as_of, descriptor.first_published_at, `the balance sheets of ${slug}`);
  const parts = (await readSheets(ctx, slug, q, descriptor)).map(sheetParts);
  if (q.attribute !== undefined) {
    const attributes = attributesOf(parts);
    if (!attributes.includes(q.attribute)) {
      throw new InvalidParameterError(
        'attribute',
        `invalid 'attribute': the ${q.region} balance sheets of ${slug}` +
          (q.marketing_year === undefined ? '' : ` for ${q.marketing_year}`) +
          ` have no ${q.attribute}; their attributes are ${listed(attributes)}`,
      );
    }
  }
  const firstRelease = q.view === 'figures' && q.first_release === true;
  const all =
    q.view === 'editions'
      ? editionsOf(parts[0]!, q.attribute!, q.as_of)
      : figuresInView(parts, { asOf: q.as_of, firstRelease, revisions: q.include === 'revisions' }, q.attribute);
  const source = parts[0]!.sheet.source ?? descriptor.source;
  return {
    data: all.slice((q.page - 1) * q.per_page, q.page * q.per_page),
    meta: {
      commodity_id: slug,
      region: q.region,
      view: q.view,
      ...paginationMeta(q.page, q.per_page, all.length),
      ...(source === undefined ? {} : { source }),
      attribution: attributionOf(source) ?? attributionOf(descriptor.source) ?? PUBLISHER,
      ...(q.as_of === undefined ? {} : { as_of: q.as_of }),
      ...(firstRelease ? { first_release: true as const } : {}),
    },
    freshness: {
      lastModified: descriptor.last_updated,
      sources: [descriptor.source],
      maxAge: asOfMaxAge(q.as_of, nowMs),
    },
  };
}

interface ValidatedSupplyDemand {
  params: CommodityPathParams;
  query: SupplyDemandQuery;
}

/**
 * GET /commodities/:slug/supply-demand: the WASDE balance sheets of a commodity in a region
 * (docs/supply-demand.md), cached per effective request and tagged with the commodity, so the
 * projector's announcements drop it.
 */
export function registerSupplyDemandRoute(app: QueryApp, ctx: RouteContext): void {
  app.get(
    ROUTES_BY_NAME.supplyDemand.path,
    {
      schema: routeSchema(ROUTES_BY_NAME.supplyDemand),
      config: {
        cache: cacheRule(
          ({ params: { slug }, query: q }: ValidatedSupplyDemand) => ({
            key: cacheKey('supply_demand', {
              slug,
              region: q.region,
              marketing_year: q.marketing_year,
              attribute: q.attribute,
              view: q.view,
              as_of: q.as_of,
              first_release: q.first_release === true ? 'true' : undefined,
              include: q.include,
              page: q.page,
              per_page: q.per_page,
            }),
            tags: [slug],
          }),
          {
            csv: ({ params: { slug }, query: q }) => ({
              columns: supplyDemandCsvColumns({ view: q.view }),
              contentDisposition: contentDisposition(
                csvFileName({
                  endpoint: 'supply-demand',
                  commodity: slug,
                  region: q.region,
                  marketing_year: q.marketing_year,
                  attribute: q.attribute,
                  page: q.page,
                }),
              ),
            }),
          },
        ),
      },
    },
    ({ params: { slug }, query }) => buildSupplyDemandBody(ctx, slug, query, ctx.nowMs()),
  );
}
