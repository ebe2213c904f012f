import {
  releaseInForce,
  viewItems,
  yearOf,
  type CotDoc,
  type PointInTimeView,
  type StoredCotReport,
  type StoredPoint,
  type StoredRelease,
  type Versioned,
} from '@cds/read-models';
import { seriesPlan } from './adapter.ts';
import type { CotHistoryQuery, CotPageQuery, Page, SeriesRange, SeriesRangeQuery, ViewedPoint } from './port.ts';
import { byReportDate, years } from './run.ts';

/**
 * What both adapters share to read the versions of a bucket (versions.ts): the current view as the
 * stored newest versions with their release attached, any other view through `viewItems`, and the
 * series range and COT paging cut in memory from whole viewed buckets (the FerretDB adapter's only
 * way, the MongoDB adapter's for views other than the current one).
 */

/** A COT report as a view shows it: CotDoc without its commodity and format. */
export type ViewedReport = Omit<CotDoc, 'commodity_id' | 'format'>;

const POINT_DATE = { dateOf: (p: StoredPoint) => p.d };
const REPORT_DATE = { dateOf: (r: StoredCotReport) => r.report_date };

/**
 * Attaches each item's release (`releases[item.r]`), in place: the items are the caller's own
 * (just parsed or just read), and the current view is read on every request, so no copy is made.
 * With `first` (the view's `firstReleaseEstimate`, series only), a first version stamped with an
 * estimated time gets the release `releaseInForce` gives (versions.ts): the time the other views
 * give it; the estimate is asked only for items of an estimated release.
 */
export function attachReleases<T extends Versioned & { release?: StoredRelease | undefined }>(
  items: T[],
  releases: readonly StoredRelease[] | null | undefined,
  first?: { dateOf(item: T): string; estimate: ((date: string) => string | undefined) | undefined },
): T[] {
  if (releases === undefined || releases === null || releases.length === 0) return items;
  const inForce =
    first?.estimate !== undefined && releases.some((x) => x.e === true)
      ? releaseInForce(releases, first.estimate)
      : undefined;
  for (const item of items) {
    if (item.r === undefined) continue;
    const release = inForce === undefined ? releases[item.r] : inForce(item.r, first!.dateOf(item));
    if (release !== undefined) item.release = release;
  }
  return items;
}

/** `attachReleases` of series points in the current view `view` (its first-release estimate, if any). */
export function attachPointReleases(
  points: StoredPoint[],
  releases: readonly StoredRelease[] | null | undefined,
  view: PointInTimeView | undefined,
): ViewedPoint[] {
  return attachReleases<ViewedPoint>(points, releases, {
    dateOf: POINT_DATE.dateOf,
    estimate: view?.firstReleaseEstimate,
  });
}

/** The stored parts of a bucket, for `viewItems`. */
export interface BucketVersions<T> {
  current: T[];
  revised?: T[] | undefined;
  releases?: StoredRelease[] | undefined;
}

function viewed<T extends Versioned>(
  parts: BucketVersions<T>,
  view: PointInTimeView | undefined,
  kind: { dateOf(item: T): string },
): (T & { release?: StoredRelease; earlier?: (T & { release?: StoredRelease })[] })[] {
  return viewItems(parts, view, kind).map(({ item, release, earlier }) => ({
    ...item,
    ...(release === undefined ? {} : { release }),
    ...(earlier === undefined
      ? {}
      : { earlier: earlier.map((e) => ({ ...e.item, ...(e.release === undefined ? {} : { release: e.release }) })) }),
  }));
}

/** A series bucket's points in a view, sorted by date. */
export function viewPoints(parts: BucketVersions<StoredPoint>, view: PointInTimeView | undefined): ViewedPoint[] {
  return viewed(parts, view, POINT_DATE);
}

/** A COT bucket's reports in a view, sorted by report date. */
export function viewReports(parts: BucketVersions<StoredCotReport>, view: PointInTimeView | undefined): ViewedReport[] {
  return viewed(parts, view, REPORT_DATE);
}

/** A series bucket as a range reads it: its unit and its points in the query's view, sorted by date. */
export interface ViewedSeriesBucket {
  unit?: string | undefined;
  points: ViewedPoint[];
}

/** The first index of sorted `points` whose date is at least `date` (points.length when none is). */
function firstOnOrAfter(points: readonly ViewedPoint[], date: string): number {
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (points[mid]!.d < date) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The points of a bucket (sorted by date) from `start` to `end`: two binary searches, not a pass. */
function pointsBetween(points: readonly ViewedPoint[], start: string, end: string): readonly ViewedPoint[] {
  const from = firstOnOrAfter(points, start);
  // the first date after `end`: on or after the next string (`end` with a character past any date's)
  const to = firstOnOrAfter(points, `${end}\uffff`);
  return from === 0 && to === points.length ? points : points.slice(from, to);
}

/**
 * A series range (port.ts) from whole buckets: `load` gives the buckets of some years (null where
 * there is none), already in the query's view. Reads the range's years (and the year before when a
 * predecessor is asked), then walks back a year at a time while no observation precedes startDate.
 */
export async function seriesRangeFromBuckets(
  q: SeriesRangeQuery,
  load: (ys: number[]) => Promise<(ViewedSeriesBucket | null)[]>,
): Promise<SeriesRange> {
  const plan = seriesPlan(q);
  const loaded = new Map<number, ViewedSeriesBucket | null>();
  const read = async (ys: number[]) => {
    const found = await load(ys);
    ys.forEach((y, i) => loaded.set(y, found[i] ?? null));
  };
  const pointsOf = (from: number, to: number) =>
    years(from, to).flatMap((y) => {
      const b = loaded.get(y);
      return b === undefined || b === null ? [] : b.points;
    });
  await read([...(plan.previous === undefined ? [] : [plan.previous]), ...years(plan.from, plan.to)]);
  const unit = years(plan.unitFrom, plan.to)
    .map((y) => loaded.get(y)?.unit)
    .find((u) => u !== undefined);
  const points = years(plan.from, plan.to).flatMap((y) => {
    const b = loaded.get(y);
    return b === undefined || b === null ? [] : pointsBetween(b.points, q.startDate, q.endDate);
  });
  let before: ViewedPoint[] = [];
  if (q.predecessorPeriod !== undefined) {
    const startYear = yearOf(q.startDate);
    const candidates = () => pointsOf(q.firstYear, Math.min(startYear, q.lastYear)).filter((p) => p.d < q.startDate);
    before = candidates();
    // Nothing in the year before start_date: walk back year by year (by _id) to the series' first year.
    for (let y = (plan.previous ?? q.firstYear) - 1; before.length === 0 && y >= q.firstYear; y--) {
      await read([y]);
      before = candidates();
    }
    const last = before.at(-1);
    if (last !== undefined) {
      const since = q.predecessorPeriod(last.d);
      const sinceYear = yearOf(since);
      // The period may begin in an earlier year (an ISO week across New Year).
      if (sinceYear >= q.firstYear && !loaded.has(sinceYear)) await read([sinceYear]);
      before = candidates().filter((p) => p.d >= since);
    }
  }
  return { points, before, ...(unit === undefined ? {} : { unit }) };
}

/** The date range a COT page reads: the query's, within the format's (from > to when empty). */
export function cotPageRange(q: CotPageQuery): { from: string; to: string } {
  const from = q.startDate !== undefined && q.startDate > q.firstDate ? q.startDate : q.firstDate;
  const to = q.endDate !== undefined && q.endDate < q.lastDate ? q.endDate : q.lastDate;
  return { from, to };
}

/**
 * A COT page (port.ts) from whole buckets: `load` gives the reports of some years, already in the
 * query's view; total and paging count the view's reports.
 */
export async function cotPageFromBuckets(
  q: CotPageQuery,
  load: (ys: number[]) => Promise<ViewedReport[]>,
): Promise<Page<CotDoc>> {
  const { from, to } = cotPageRange(q);
  if (from > to) return { total: 0, items: [] };
  const reports = (await load(years(yearOf(from), yearOf(to))))
    .filter((r) => r.report_date >= from && r.report_date <= to)
    .sort(byReportDate);
  if (q.sortOrder === 'desc') reports.reverse();
  return {
    total: reports.length,
    items: reports
      .slice(q.skip, q.skip + q.limit)
      .map((r) => ({ ...r, commodity_id: q.commodityId, format: q.format })),
  };
}

/** The latest `count` COT reports before a date (port.ts) from whole buckets, read back a few years at a time. */
export async function cotBeforeFromBuckets(
  q: CotHistoryQuery,
  load: (ys: number[]) => Promise<ViewedReport[]>,
): Promise<CotDoc[]> {
  if (q.count <= 0 || q.before <= q.firstDate) return [];
  const firstYear = yearOf(q.firstDate);
  let year = yearOf(q.before);
  const found: ViewedReport[] = [];
  // Weekly reports: about 52 a year, so the first batch of years (read in parallel) usually
  // holds them all; a gap in the data costs one more bucket read per missing year.
  let batch = Math.ceil(q.count / 50) + 1;
  while (found.length < q.count && year >= firstYear) {
    const ys = years(Math.max(firstYear, year - batch + 1), year);
    year -= ys.length;
    batch = 1;
    for (const r of await load(ys)) {
      if (r.report_date < q.before && r.report_date >= q.firstDate) found.push(r);
    }
  }
  found.sort(byReportDate);
  return found
    .slice(Math.max(0, found.length - q.count))
    .map((r) => ({ ...r, commodity_id: q.commodityId, format: q.format }));
}
