import { datasetOfSeries, type ReleaseRule, type SeriesType } from '@cds/contracts';
import { yearOf, type StoredSeriesDescriptor } from '@cds/read-models';
import { estimatedFirstRelease } from '@cds/schedule';
import type { RouteContext } from '../http/route-context.ts';

/**
 * The release calendars' estimate of when an observation was first published (docs/point-in-time.md,
 * "Estimated first releases"): where a source states no release time, a history loaded long after
 * it was published (the bundled snapshot, a backfill) is stamped with the load's time, estimated.
 * In every view (the current one, `as_of`, `first_release`, `include=revisions`) the first version
 * of each date counts as published at the earlier of that stamp and the estimate of its dataset's
 * calendar rule (`@cds/schedule` estimatedFirstRelease), so the whole history answers as of the
 * days it was out and one observation has one `published_at` whichever view serves it.
 */

/** Far enough ahead that the calendar gives every release it computes (a future one cannot lower a stamp). */
const UNBOUNDED = new Date(8.64e15);
/** The estimates kept per rule and date, as text (the view compares and serves text); a rule's emptied when full. */
const KEPT = 100_000;
const kept = new Map<ReleaseRule, Map<string, string | null>>();

/** The estimate of `rule` for an observation dated `date`, as `toISOString()` text, kept per rule and date. */
export function estimatedFirstReleaseText(rule: ReleaseRule, date: string): string | undefined {
  let dates = kept.get(rule);
  if (dates === undefined) kept.set(rule, (dates = new Map<string, string | null>()));
  let at = dates.get(date);
  if (at === undefined) {
    if (dates.size >= KEPT) dates.clear();
    at = estimatedFirstRelease(rule, date, UNBOUNDED)?.toISOString() ?? null;
    dates.set(date, at);
  }
  return at ?? undefined;
}

/** One estimator per rule, so a view of any series of a rule shares it. */
const estimators = new Map<ReleaseRule, (date: string) => string | undefined>();
/** The estimator of each provenance, frequency and type asked (every series request asks: the current view too); emptied when full. */
const bySeries = new Map<string, ((date: string) => string | undefined) | null>();
const BY_SERIES_KEPT = 4_096;

/**
 * The first-release estimate of a series (its dataset's calendar rule, from its provenance,
 * frequency and type): undefined when its dataset has no rule (null) or the series none.
 */
export function firstReleaseEstimateOf(
  descriptor: Pick<StoredSeriesDescriptor, 'source' | 'frequency'>,
  type: SeriesType,
): ((date: string) => string | undefined) | undefined {
  const key = `${descriptor.source ?? ''}\u0000${descriptor.frequency}\u0000${type}`;
  let found = bySeries.get(key);
  if (found === undefined) {
    found = estimatorOf(
      datasetOfSeries({ source: descriptor.source, frequency: descriptor.frequency, series_type: type })?.rule,
    );
    if (bySeries.size >= BY_SERIES_KEPT) bySeries.clear();
    bySeries.set(key, found);
  }
  return found ?? undefined;
}

function estimatorOf(rule: ReleaseRule | null | undefined): ((date: string) => string | undefined) | null {
  if (rule === undefined || rule === null) return null;
  let estimate = estimators.get(rule);
  if (estimate === undefined) {
    estimate = (date) => estimatedFirstReleaseText(rule, date);
    estimators.set(rule, estimate);
  }
  return estimate;
}

/** How many years of buckets one read takes while looking for the first the calendar estimates (a gap in the data). */
const EARLIEST_READ_YEARS = 5;
/** The earliest publications found, by series and the descriptor fields any new data changes; emptied when full. */
const EARLIEST_KEPT = 4_096;
const earliestKept = new WeakMap<object, Map<string, string | undefined>>();

/**
 * The earliest publication of a series under the estimate: its descriptor's `first_published_at`
 * (the earliest stored stamp), or earlier, the first release the view gives the observations of
 * the first years the calendar estimates that hold any, read a few years of buckets at a time (a
 * calendar begins in a given year, WTI's daily prices before the weekly report's; estimates only
 * grow with the date). Looked for only under an `as_of` before the stored stamp, and kept per
 * series until its descriptor changes (new data changes `last_updated`).
 */
export async function earliestPublication(
  ctx: RouteContext,
  q: { commodityId: string; type: SeriesType; asOf: string | undefined },
  descriptor: StoredSeriesDescriptor,
  estimate: ((date: string) => string | undefined) | undefined,
): Promise<string | undefined> {
  const stored = descriptor.first_published_at;
  if (q.asOf === undefined || stored === undefined || q.asOf >= stored) return stored;
  return firstPublication(ctx, q, descriptor, estimate);
}

/**
 * The earliest publication of a series under its dataset's estimate, whatever the request: what
 * `GET /commodities/{slug}` serves as `available_series[].first_published_at`, the instant an
 * `as_of` before which is refused (`earliestPublication`), kept as that is.
 */
export async function firstPublication(
  ctx: RouteContext,
  q: { commodityId: string; type: SeriesType },
  descriptor: StoredSeriesDescriptor,
  estimate: ((date: string) => string | undefined) | undefined = firstReleaseEstimateOf(descriptor, q.type),
): Promise<string | undefined> {
  const stored = descriptor.first_published_at;
  if (stored === undefined || estimate === undefined) return stored;
  const key = [q.commodityId, q.type, descriptor.first_date, stored, descriptor.last_updated ?? ''].join('\u0000');
  // per repository: another app (a test's) reads other data
  let kept = earliestKept.get(ctx.repository);
  if (kept === undefined) earliestKept.set(ctx.repository, (kept = new Map<string, string | undefined>()));
  if (kept.has(key)) return kept.get(key);
  const first = await earliestEstimated(ctx, q, descriptor, estimate, stored);
  if (kept.size >= EARLIEST_KEPT) kept.clear();
  kept.set(key, first);
  return first;
}

async function earliestEstimated(
  ctx: RouteContext,
  q: { commodityId: string; type: SeriesType },
  descriptor: StoredSeriesDescriptor,
  estimate: (date: string) => string | undefined,
  stored: string,
): Promise<string> {
  const lastYear = yearOf(descriptor.last_date);
  const yyyy = (y: number) => String(y).padStart(4, '0');
  let year = yearOf(descriptor.first_date);
  while (year <= lastYear && estimate(`${yyyy(year)}-12-31`) === undefined) year += 1;
  for (; year <= lastYear; year += EARLIEST_READ_YEARS) {
    const to = Math.min(lastYear, year + EARLIEST_READ_YEARS - 1);
    const range = await ctx.repository.readSeries({
      commodityId: q.commodityId,
      type: q.type,
      startDate: `${yyyy(year)}-01-01` > descriptor.first_date ? `${yyyy(year)}-01-01` : descriptor.first_date,
      endDate: `${yyyy(to)}-12-31`,
      firstYear: year,
      lastYear: to,
      view: { firstRelease: true, firstReleaseEstimate: estimate },
    });
    if (range.points.length === 0) continue;
    let first = stored;
    for (const p of range.points) if (p.release !== undefined && p.release.p < first) first = p.release.p;
    return first;
  }
  return stored;
}
