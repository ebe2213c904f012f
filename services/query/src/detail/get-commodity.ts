import {
  AVAILABLE_SERIES_TYPES,
  CommodityIdentifiers,
  ROUTES_BY_NAME,
  SERIES_TYPES,
  type CommodityDetail,
  type CommodityPathParams,
  type SeriesDescriptor,
  type SeriesType,
} from '@cds/contracts';
import type { CatalogDoc } from '@cds/read-models';
import { cacheKey, cacheRule, type ResponseBody } from '@cds/response-cache';
import { catalogFreshness, provenanceOf, requireCommodity, seriesTermsOf, toSummary } from '../catalog/index.ts';
import { routeSchema, type QueryApp, type RouteContext } from '../http/route-context.ts';
import { firstPublication } from '../catalog/first-release.ts';

const KNOWN_TYPES: ReadonlySet<string> = new Set(AVAILABLE_SERIES_TYPES);

const TIME_SERIES_TYPES: ReadonlySet<string> = new Set(SERIES_TYPES);

/**
 * Every series descriptor of the commodity (known types only), sorted by type. `firstPublished`
 * gives a type's earliest publication where it differs from the stored one (`firstPublications`).
 */
export function availableSeries(
  doc: Pick<CatalogDoc, 'series'>,
  firstPublished: ReadonlyMap<string, string | undefined> = new Map(),
): SeriesDescriptor[] {
  return Object.values(doc.series ?? {})
    .filter((d) => KNOWN_TYPES.has(d.type))
    .map((d) => {
      const first = firstPublished.has(d.type) ? firstPublished.get(d.type) : d.first_published_at;
      return {
        type: d.type,
        frequency: d.frequency,
        first_date: d.first_date,
        last_date: d.last_date,
        ...seriesTermsOf(d),
        ...provenanceOf(d),
        ...(first === undefined ? {} : { first_published_at: first }),
        ...(d.regions === undefined ? {} : { regions: d.regions }),
      };
    })
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/**
 * The earliest publication of each time series of the commodity counting its estimated first
 * releases (catalog/first-release.ts `firstPublication`): the instant the series' `as_of` 400
 * names, so a client reads where its point-in-time data starts. COT and balance-sheet series keep
 * their stored one (their releases are not estimated again).
 */
export async function firstPublications(ctx: RouteContext, doc: CatalogDoc): Promise<Map<string, string | undefined>> {
  const series = Object.values(doc.series ?? {}).filter((d) => TIME_SERIES_TYPES.has(d.type));
  const found = await Promise.all(
    series.map((d) => firstPublication(ctx, { commodityId: doc._id, type: d.type as SeriesType }, d)),
  );
  return new Map(series.map((d, i) => [d.type, found[i]]));
}

/** The identifier lists of the contract, in its order, each with whether the contract requires it. */
const IDENTIFIER_FIELDS = Object.entries(CommodityIdentifiers.shape).map(([field, schema]) => ({
  field,
  required: !schema.safeParse(undefined).success,
}));

/**
 * A commodity's identifiers at its sources, as the catalog event carried them, in the contract's
 * order: a list the contract requires is empty when the event had none, an optional one is left out.
 */
function identifiersOf(ids: NonNullable<CatalogDoc['identifiers']>): CommodityIdentifiers {
  const given: Readonly<Partial<Record<string, string[]>>> = { ...ids };
  const out: Record<string, string[]> = {};
  for (const { field, required } of IDENTIFIER_FIELDS) {
    const list = given[field];
    if (list) out[field] = list;
    else if (required) out[field] = [];
  }
  return out as CommodityIdentifiers;
}

export function toDetail(doc: CatalogDoc, firstPublished?: ReadonlyMap<string, string | undefined>): CommodityDetail {
  const out: CommodityDetail = { ...toSummary(doc) };
  if (doc.description !== undefined) out.description = doc.description;
  if (doc.contract_size !== undefined) out.contract_size = doc.contract_size;
  if (doc.tick_size !== undefined) out.tick_size = doc.tick_size;
  out.available_series = availableSeries(doc, firstPublished);
  if (doc.identifiers !== undefined) {
    out.identifiers = identifiersOf(doc.identifiers);
  }
  if (doc.price_note !== undefined) out.price_note = doc.price_note;
  return out;
}

/** GET /commodities/:slug: summary fields, contract details and every available series. */
export function registerDetailRoute(app: QueryApp, ctx: RouteContext): void {
  app.get(
    ROUTES_BY_NAME.detail.path,
    {
      schema: routeSchema(ROUTES_BY_NAME.detail),
      config: {
        cache: cacheRule(({ params }: { params: CommodityPathParams }) => ({
          key: cacheKey('detail', { slug: params.slug }),
          tags: [params.slug],
        })),
      },
    },
    async ({ params }): Promise<ResponseBody> => {
      const doc = await requireCommodity(ctx, params.slug);
      const data = toDetail(doc, await firstPublications(ctx, doc));
      return { data, meta: {}, freshness: catalogFreshness([doc]) };
    },
  );
}
