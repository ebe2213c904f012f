import {
  addMonths,
  CommodityPathParams,
  SeriesQuery,
  type Frequency,
  type SeriesMeta,
  type SeriesType,
} from '@cds/contracts';
import { InvalidParameterError, NotFoundError } from '@cds/http';
import type { StoredPoint } from '@cds/read-models';
import { cacheKey, cacheRule, type CacheEntry, type ResponseBody } from '@cds/response-cache';
import { provenanceOf, requireCommodity } from '../detail/get-commodity.ts';
import { ROUTES, type QueryApp, type RouteContext } from '../http/route-context.ts';
import type { SeriesBucket } from '../repository/repository.ts';
import { computeSeries, isFinerThan } from './compute.ts';
import { periodStart, yearOf, yearsBetween } from './dates.ts';

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
}

/**
 * Applies the date defaults of DECISIONS.md: end_date today (UTC), start_date one year before
 * end_date. A given start_date after the (defaulted) end_date is a 400 on start_date.
 */
export function resolveSeriesRequest(slug: string, q: SeriesQuery, today: string): SeriesRequest {
  const endDate = q.end_date ?? today;
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
  };
}

function flatten(buckets: readonly SeriesBucket[]): StoredPoint[] {
  const sorted = [...buckets].sort((a, b) => a.year - b.year);
  const out: StoredPoint[] = [];
  for (const b of sorted) for (const p of b.points ?? []) out.push(p);
  return out;
}

/**
 * Reads the observations a request needs: the buckets of the years from start_date to end_date,
 * and, for change and pct_change, those before start_date up to the whole period (at the
 * effective frequency) of the last observation before it, however far back that lies.
 */
async function readObservations(
  ctx: RouteContext,
  r: SeriesRequest,
  predecessorFrequency: Frequency | undefined,
  seriesFirstYear: number,
  seriesLastYear: number,
) {
  const repo = ctx.repository;
  const firstYear = yearOf(r.startDate);
  // Only the years the series has data in (its catalog descriptor): a valid range such as
  // 0001-01-01..9999-12-31 must not become ten thousand bucket reads.
  const years = yearsBetween(r.startDate, r.endDate).filter((y) => y >= seriesFirstYear && y <= seriesLastYear);
  if (predecessorFrequency !== undefined) years.unshift(firstYear - 1);
  const loaded = await repo.getSeriesBuckets(r.slug, r.type, years);
  let all = flatten(loaded);
  const inRange = all.filter((p) => p.d >= r.startDate && p.d <= r.endDate);
  let before: StoredPoint[] = [];
  if (predecessorFrequency !== undefined) {
    before = all.filter((p) => p.d < r.startDate);
    if (before.length === 0) {
      // Nothing in the year before start_date: the predecessor is in the latest earlier bucket
      // (two buckets, as its ISO week may begin in the year before).
      // The walk back starts at the series' last year at the latest (start_date may be far ahead).
      const from = Math.min(firstYear - 1, seriesLastYear + 1);
      const earlier = await repo.getSeriesBucketsBefore(r.slug, r.type, from, 2, seriesFirstYear);
      before = flatten(earlier).filter((p) => p.d < r.startDate);
      all = before;
    }
    const last = before[before.length - 1];
    if (last !== undefined) {
      const periodYear = yearOf(periodStart(last.d, predecessorFrequency));
      const minYear = all.length > 0 ? yearOf(all[0]!.d) : periodYear;
      if (periodYear < minYear && periodYear < yearOf(last.d)) {
        const extra = await repo.getSeriesBuckets(r.slug, r.type, [periodYear]);
        before = [...flatten(extra), ...before].filter((p) => p.d < r.startDate);
      }
    }
  }
  const unit = loaded.find((b) => b.unit !== undefined)?.unit;
  return { inRange, before, unit };
}

/** Computes the series answer (throws the 404/400s that need the catalog). */
export async function buildSeriesBody(ctx: RouteContext, r: SeriesRequest): Promise<ResponseBody> {
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
  const needsPredecessor = r.transform === 'change' || r.transform === 'pct_change';
  const obs = await readObservations(
    ctx,
    r,
    needsPredecessor ? (frequency === native ? 'daily' : frequency) : undefined,
    yearOf(descriptor.first_date),
    yearOf(descriptor.last_date),
  );
  const data = computeSeries({
    type: r.type,
    native,
    frequency,
    transform: r.transform,
    sortOrder: r.sortOrder,
    limit: r.limit,
    inRange: obs.inRange,
    before: obs.before,
  });
  const unit =
    r.transform === 'pct_change'
      ? 'percent'
      : (descriptor.unit ?? obs.unit ?? (r.type === 'price' ? doc.unit : undefined));
  const meta: Omit<SeriesMeta, 'request_id'> = {
    commodity_id: r.slug,
    type: r.type,
    frequency,
    ...(unit === undefined ? {} : { unit }),
    transform: r.transform,
    count: data.length,
    // the series' provenance (its catalog descriptor): the source of its newest data and when
    // the newest data was ingested, whatever range was asked for
    ...provenanceOf(descriptor),
  };
  return { data, meta };
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
  });
  return { key, tags: [r.slug] };
}

interface ValidatedSeries {
  params: CommodityPathParams;
  query: SeriesQuery;
}

/** GET /commodities/:slug/series. */
export function registerSeriesRoute(app: QueryApp, ctx: RouteContext): void {
  // The effective request of each request, resolved once with the day the cache key was made on
  // (the key and the answer must agree across midnight UTC).
  const resolved = new WeakMap<object, SeriesRequest>();
  const resolve = (request: ValidatedSeries) => {
    const r = resolveSeriesRequest(request.params.slug, request.query, ctx.today());
    resolved.set(request, r);
    return r;
  };
  app.get(
    ROUTES.series,
    {
      schema: { params: CommodityPathParams, querystring: SeriesQuery },
      config: { cache: cacheRule((request: ValidatedSeries) => seriesEntry(resolve(request))) },
    },
    (request) => buildSeriesBody(ctx, resolved.get(request) ?? resolve(request)),
  );
}
