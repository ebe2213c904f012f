import {
  addMonths,
  contentDisposition,
  csvFileName,
  seriesCsvColumns,
  ROUTES_BY_NAME,
  RATE_BASE_CURRENCY,
  rateSeriesId,
  parseMoney,
  type SeriesQuery,
  type CommodityPathParams,
  type Frequency,
  type SeriesMeta,
  type SeriesType,
} from '@cds/contracts';
import { InvalidParameterError, NotFoundError } from '@cds/http';
import { yearOf } from '@cds/read-models';
import { cacheKey, cacheRule, type CacheEntry, type ResponseBody } from '@cds/response-cache';
import { provenanceOf, requireCommodity, seriesTermsOf } from '../catalog/index.ts';
import { asOfMaxAge, refuseAsOfBeforeData, refuseFutureAsOf } from '../http/point-in-time.ts';
import { routeSchema, type QueryApp, type RouteContext } from '../http/route-context.ts';
import { computeSeries, isFinerThan } from './compute.ts';
import { convertSeries } from './convert-series.ts';
import { periodStart } from './dates.ts';
import { earliestPublication, firstReleaseEstimateOf } from '../catalog/first-release.ts';

/** The effective request after defaults: the dates are always set. */
export interface SeriesRequest {
  slug: string;
  type: SeriesType;
  startDate: string;
  endDate: string;
  frequency: Frequency | undefined;
  transform: SeriesQuery['transform'];
  limit: number | undefined;
  sortOrder: SeriesQuery['sort_order'];
  /** The instant of as_of (`toISOString()` text), when given. */
  asOf: string | undefined;
  firstRelease: boolean;
  /** include=revisions. */
  revisions: boolean;
  /** Conversion (docs/conversion.md): the currency and the unit asked. */
  currency: string | undefined;
  unit: string | undefined;
}

/**
 * Applies the date defaults of docs/decisions.md: end_date today (UTC), or the date of as_of when
 * given, start_date one year before end_date. A given start_date after the (defaulted) end_date is
 * a 400 on start_date; an as_of after now a 400 on as_of.
 */
export function resolveSeriesRequest(slug: string, q: SeriesQuery, today: string, nowMs: number): SeriesRequest {
  refuseFutureAsOf(q.as_of, nowMs);
  const endDate = q.end_date ?? (q.as_of === undefined ? today : q.as_of.slice(0, 10));
  const startDate = q.start_date ?? addMonths(endDate, -12);
  if (startDate > endDate) {
    throw new InvalidParameterError('start_date', `start_date must not be after end_date (${endDate})`);
  }
  return {
    slug,
    type: q.type,
    startDate,
    endDate,
    frequency: q.frequency,
    transform: q.transform,
    limit: q.limit,
    sortOrder: q.sort_order,
    asOf: q.as_of,
    firstRelease: q.first_release === true,
    revisions: q.include === 'revisions',
    currency: q.currency,
    unit: q.unit,
  };
}

/** Without as_of, first_release and include=revisions: the newest versions, as stored. */
function currentView(r: SeriesRequest): boolean {
  return r.asOf === undefined && !r.firstRelease && !r.revisions;
}

/**
 * Reads the observations a request needs: those from start_date to end_date and, for change and
 * pct_change, those before start_date from the whole period (at the effective frequency) of the
 * last observation before it, however far back that lies.
 */
async function readObservations(
  ctx: RouteContext,
  r: SeriesRequest,
  predecessorFrequency: Frequency | undefined,
  seriesFirstYear: number,
  seriesLastYear: number,
  firstReleaseEstimate: ((date: string) => string | undefined) | undefined,
) {
  const range = await ctx.repository.readSeries({
    commodityId: r.slug,
    type: r.type,
    startDate: r.startDate,
    endDate: r.endDate,
    // Only the years the series has data in (its catalog descriptor): a valid range such as
    // 0001-01-01..9999-12-31 must not become ten thousand bucket reads.
    firstYear: seriesFirstYear,
    lastYear: seriesLastYear,
    predecessorPeriod:
      predecessorFrequency === undefined ? undefined : (date) => periodStart(date, predecessorFrequency),
    // The current view (as_of, first_release and revisions absent) reads the current versions alone;
    // the estimate dates their first versions as the other views do (one published_at per observation).
    view: currentView(r)
      ? firstReleaseEstimate === undefined
        ? undefined
        : { firstReleaseEstimate }
      : { asOf: r.asOf, firstRelease: r.firstRelease, revisions: r.revisions, firstReleaseEstimate },
  });
  return { inRange: range.points, before: range.before, unit: range.unit };
}

/** Computes the series answer (throws the 404/400s that need the catalog). */
export async function buildSeriesBody(ctx: RouteContext, r: SeriesRequest, nowMs: number): Promise<ResponseBody> {
  const doc = await requireCommodity(ctx, r.slug);
  const descriptor = doc.series?.[r.type];
  if (descriptor === undefined || descriptor.type !== r.type) {
    throw new NotFoundError(`Commodity '${r.slug}' has no '${r.type}' series.`, 'type');
  }
  const native = descriptor.frequency;
  const frequency = r.frequency ?? native;
  if (isFinerThan(frequency, native)) {
    throw new InvalidParameterError(
      'frequency',
      `invalid 'frequency': the '${r.type}' series of ${r.slug} is ${native}; ask for ${native} or coarser`,
    );
  }
  if (r.revisions && frequency !== native) {
    throw new InvalidParameterError(
      'include',
      `invalid 'include': revisions are of the observations themselves; the '${r.type}' series of ${r.slug} is ` +
        `${native}: leave frequency out or ask for ${native}`,
    );
  }
  // A first version stamped at its load counts from its calendar's release (catalog/first-release.ts), in
  // every view.
  const estimate = firstReleaseEstimateOf(descriptor, r.type);
  const firstPublished = await earliestPublication(
    ctx,
    { commodityId: r.slug, type: r.type, asOf: r.asOf },
    descriptor,
    estimate,
  );
  refuseAsOfBeforeData(r.asOf, firstPublished, `the '${r.type}' series of ${r.slug}`);
  const needsPredecessor = r.transform === 'change' || r.transform === 'pct_change';
  const obs = await readObservations(
    ctx,
    r,
    needsPredecessor ? (frequency === native ? 'daily' : frequency) : undefined,
    yearOf(descriptor.first_date),
    yearOf(descriptor.last_date),
    estimate,
  );
  const seriesUnit = descriptor.unit ?? obs.unit ?? (r.type === 'price' ? doc.unit : undefined);
  // Conversion (docs/conversion.md) on the observations themselves, before resampling and transforms.
  const converted = await convertSeries(ctx, {
    commodityId: r.slug,
    type: r.type,
    native,
    unit: seriesUnit,
    currency: r.currency,
    toUnit: r.unit,
    asOf: r.asOf,
    inRange: obs.inRange,
    before: obs.before,
  });
  const data = computeSeries({
    type: r.type,
    native,
    frequency,
    transform: r.transform,
    sortOrder: r.sortOrder,
    limit: r.limit,
    inRange: converted?.inRange ?? obs.inRange,
    before: converted?.before ?? obs.before,
    // The current view is what the read memo keeps (repository/read-memo.ts), converted points too (rates.ts).
    kept: currentView(r),
  });
  const unit = r.transform === 'pct_change' ? 'percent' : (converted?.unit ?? seriesUnit);
  const meta: Omit<SeriesMeta, 'request_id'> = {
    commodity_id: r.slug,
    type: r.type,
    frequency,
    ...(unit === undefined ? {} : { unit }),
    transform: r.transform,
    count: data.length,
    // the series' provenance (its catalog descriptor): the source of its newest data and when
    // the newest data was ingested, whatever range was asked for
    ...seriesTermsOf(descriptor),
    ...provenanceOf(descriptor),
    ...(r.asOf === undefined ? {} : { as_of: r.asOf }),
    ...(r.firstRelease ? { first_release: true as const } : {}),
    ...(converted === undefined ? {} : { conversion: converted.conversion }),
  };
  // The rates' freshness joins the series' (their release times bound the answer's max-age too).
  const sources = [descriptor.source, ...(converted?.sources ?? [])];
  return { data, meta, freshness: { sources, maxAge: asOfMaxAge(r.asOf, nowMs) } };
}

/** The CSV form of a series request: its columns and a file name with the resolved dates. */
function seriesCsv(r: SeriesRequest) {
  return {
    columns: seriesCsvColumns({ type: r.type, transform: r.transform }),
    contentDisposition: contentDisposition(
      csvFileName({
        endpoint: 'series',
        commodity: r.slug,
        type: r.type,
        frequency: r.frequency,
        transform: r.transform,
        start_date: r.startDate,
        end_date: r.endDate,
        as_of: r.asOf,
        first_release: r.firstRelease,
        currency: r.currency,
        unit: r.unit,
      }),
    ),
  };
}

/** The cache entry of a validated request: its effective parameters, dates included. */
function seriesEntry(r: SeriesRequest): CacheEntry {
  const key = cacheKey('series', {
    slug: r.slug,
    type: r.type,
    start_date: r.startDate,
    end_date: r.endDate,
    frequency: r.frequency,
    transform: r.transform,
    limit: r.limit,
    sort_order: r.sortOrder,
    // Only when given: without them the key (and the answer) stays what it was.
    as_of: r.asOf,
    first_release: r.firstRelease ? 'true' : undefined,
    include: r.revisions ? 'revisions' : undefined,
    currency: r.currency,
    unit: r.unit,
  });
  return { key, tags: [r.slug, ...rateTags(r)], input: r };
}

/**
 * A converted answer is dropped with the rates it used: the asked currency's and the US dollar's
 * (the currency of nearly every series; every publication of the reference rates carries it, so
 * its announcement comes with any other currency's).
 */
function rateTags(r: SeriesRequest): string[] {
  const slash = r.unit?.indexOf('/') ?? -1;
  const currency = r.currency ?? (slash > 0 ? parseMoney(r.unit!.slice(0, slash))?.currency : undefined);
  if (currency === undefined) return [];
  return [...new Set([currency, 'USD'].filter((c) => c !== RATE_BASE_CURRENCY).map(rateSeriesId))];
}

interface ValidatedSeries {
  params: CommodityPathParams;
  query: SeriesQuery;
}

/** GET /commodities/:slug/series. */
export function registerSeriesRoute(app: QueryApp, ctx: RouteContext): void {
  const entryOf = ({ params: { slug }, query }: ValidatedSeries): CacheEntry =>
    seriesEntry(resolveSeriesRequest(slug, query, ctx.today(), ctx.nowMs()));
  app.get(
    ROUTES_BY_NAME.series.path,
    {
      schema: routeSchema(ROUTES_BY_NAME.series),
      config: {
        cache: cacheRule(entryOf, { varies: true, csv: (_request, entry) => seriesCsv(entry.input as SeriesRequest) }),
      },
    },
    // The effective request the key was made from: the key and the answer agree across midnight UTC.
    (request) => buildSeriesBody(ctx, (request.cacheEntry ?? entryOf(request)).input as SeriesRequest, ctx.nowMs()),
  );
}
