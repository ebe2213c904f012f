import {
  attributionOf,
  AVAILABLE_SERIES_TYPES,
  CommodityDetailQuery,
  MAX_COMMODITY_ID_LENGTH,
  type CommodityDetail,
  type PriceBasis,
  type SeriesDescriptor,
} from '@cds/contracts';
import { NotFoundError } from '@cds/http';
import type { CatalogDoc } from '@cds/read-models';
import { cacheKey, cacheRule, type ResponseBody } from '@cds/response-cache';
import { ROUTES, SlugParams, type QueryApp, type RouteContext } from '../http/route-context.ts';
import { toSummary } from '../list/list-commodities.ts';

const KNOWN_TYPES: ReadonlySet<string> = new Set(AVAILABLE_SERIES_TYPES);

/** Every series descriptor of the commodity (known types only), sorted by type. */
export function availableSeries(doc: Pick<CatalogDoc, 'series'>): SeriesDescriptor[] {
  return Object.values(doc.series ?? {})
    .filter((d) => KNOWN_TYPES.has(d.type))
    .map((d) => ({
      type: d.type,
      frequency: d.frequency,
      first_date: d.first_date,
      last_date: d.last_date,
      ...seriesTermsOf(d),
      ...provenanceOf(d),
    }))
    .sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
}

/**
 * What a series' numbers are and how to cite them: its price basis (price series) and the
 * attribution its source's licence asks for (the World Bank's CC BY 4.0, the U.S. agencies').
 */
export function seriesTermsOf(d: { price_basis?: PriceBasis | undefined; source?: string | undefined }): {
  price_basis?: PriceBasis;
  attribution?: string;
} {
  const attribution = attributionOf(d.source);
  return {
    ...(d.price_basis === undefined ? {} : { price_basis: d.price_basis }),
    ...(attribution === undefined ? {} : { attribution }),
  };
}

/** The optional provenance fields of a stored descriptor or report, as served. */
export function provenanceOf(d: { source?: string | undefined; last_updated?: string | undefined }): {
  source?: string;
  last_updated?: string;
} {
  return {
    ...(d.source === undefined ? {} : { source: d.source }),
    ...(d.last_updated === undefined ? {} : { last_updated: d.last_updated }),
  };
}

export function toDetail(doc: CatalogDoc): CommodityDetail {
  const out: CommodityDetail = { ...toSummary(doc) };
  if (doc.description !== undefined) out.description = doc.description;
  if (doc.contract_size !== undefined) out.contract_size = doc.contract_size;
  if (doc.tick_size !== undefined) out.tick_size = doc.tick_size;
  out.available_series = availableSeries(doc);
  if (doc.identifiers !== undefined) {
    out.identifiers = {
      cftc_contract_codes: doc.identifiers.cftc_contract_codes ?? [],
      eia_series: doc.identifiers.eia_series ?? [],
      nass_items: doc.identifiers.nass_items ?? [],
      ...(doc.identifiers.worldbank_series ? { worldbank_series: doc.identifiers.worldbank_series } : {}),
      ...(doc.identifiers.ams_reports ? { ams_reports: doc.identifiers.ams_reports } : {}),
    };
  }
  if (doc.price_note !== undefined) out.price_note = doc.price_note;
  return out;
}

/**
 * What the freshness headers of an answer about these catalog entries come from: the newest
 * last_updated of their series (Last-Modified) and the sources of their series (max-age).
 */
export function catalogFreshness(docs: readonly Pick<CatalogDoc, 'series'>[]): {
  lastModified: string | undefined;
  sources: (string | undefined)[];
} {
  let lastModified: string | undefined;
  const sources: (string | undefined)[] = [];
  for (const doc of docs) {
    for (const d of Object.values(doc.series ?? {})) {
      if (d.last_updated !== undefined && (lastModified === undefined || d.last_updated > lastModified)) {
        lastModified = d.last_updated;
      }
      if (!sources.includes(d.source)) sources.push(d.source);
    }
  }
  return { lastModified, sources };
}

/** A commodity the catalog does not list is a 404 on slug (one longer than any catalog id, without a read). */
export async function requireCommodity(ctx: RouteContext, slug: string): Promise<CatalogDoc> {
  if (slug.length > MAX_COMMODITY_ID_LENGTH) {
    throw new NotFoundError(
      `No commodity has an id of ${slug.length} characters (catalog ids have at most ${MAX_COMMODITY_ID_LENGTH}).`,
      'slug',
    );
  }
  const doc = await ctx.repository.getCommodity(slug);
  if (doc === null) throw new NotFoundError(`No commodity '${slug}'.`, 'slug');
  return doc;
}

/** GET /commodities/:slug: summary fields, contract details and every available series. */
export function registerDetailRoute(app: QueryApp, ctx: RouteContext): void {
  app.get(
    ROUTES.detail,
    {
      schema: { params: SlugParams, querystring: CommodityDetailQuery },
      config: {
        cache: cacheRule(({ params }: { params: SlugParams }) => ({
          key: cacheKey('detail', { slug: params.slug }),
          tags: [params.slug],
        })),
      },
    },
    async ({ params }): Promise<ResponseBody> => {
      const doc = await requireCommodity(ctx, params.slug);
      return { data: toDetail(doc), meta: {}, freshness: catalogFreshness([doc]) };
    },
  );
}
