import { COT_DATASETS, cotDatasetOf } from '@cds/contracts';
import {
  cotBucketId,
  isCurrentView,
  releaseInForce,
  seriesBucketId,
  yearOf,
  type CatalogDoc,
  type CotDoc,
  type ReadModelName,
  type StoredCotReport,
  type StoredPoint,
  type StoredRelease,
} from '@cds/read-models';
import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Document } from 'mongodb';
import { seriesPlan, type Adapter, type ReadModelIndex } from './adapter.ts';
import type {
  CasResult,
  CatalogQuery,
  CotHistoryQuery,
  CotPageQuery,
  Page,
  ReadModelCollection,
  ReadModelDoc,
  SeriesRange,
  SeriesRangeQuery,
  StoreCall,
  ViewedPoint,
} from './port.ts';
import { CATALOG_SUMMARY, duplicateKeyIndexes, type Run } from './run.ts';
import { mongoSupplyDemandSheets } from './supply-demand-sheets.ts';
import {
  cotBeforeFromBuckets,
  cotPageFromBuckets,
  seriesRangeFromBuckets,
  viewPoints,
  viewReports,
  type ViewedReport,
} from './views.ts';

/**
 * The indexes of the MongoDB adapter, each with the query that uses it. (The FerretDB adapter
 * reads by `_id` only and uses none.)
 */
export const INDEXES: Readonly<Record<ReadModelName, readonly ReadModelIndex[]>> = {
  catalog: [{ key: { category: 1, _id: 1 }, name: 'category_id', usedBy: 'catalogEntries with a category' }],
  series: [
    {
      key: { commodity_id: 1, type: 1, year: 1 },
      name: 'commodity_type_year',
      unique: true,
      usedBy: 'seriesRange: the buckets of a year range, and the latest bucket before start_date',
    },
  ],
  cot: [
    {
      // A format's buckets in each scope (futures-only ones have none) are distinct.
      key: { commodity_id: 1, format: 1, scope: 1, year: 1 },
      name: 'commodity_format_scope_year',
      unique: true,
      // Before scopes: unique per format and year, which would refuse a combined bucket.
      replaces: ['commodity_format_year'],
      usedBy: 'cotPage and cotBefore: the buckets of a COT dataset in a year range',
    },
  ],
  // supplyDemandSheets reads by `_id` (one sheet, or a region's `_id` range): the `_id` index
  supply_demand: [],
};

/** A `$match` on the buckets of one series or COT format between two years. */
function bucketsOf(field: 'type' | 'format', commodityId: string, kind: string, from: number, to: number) {
  return { $match: { commodity_id: commodityId, [field]: kind, year: { $gte: from, $lte: to } } };
}

/**
 * The buckets of a COT dataset among its format's: a combined dataset's carry its scope, a
 * futures-only one's none (every bucket written before scopes), so scopes never mix.
 */
function scopeOf(q: Pick<CotPageQuery, 'format' | 'scope'>): Document {
  return COT_DATASETS[cotDatasetOf(q)].scope === 'futures_only'
    ? { scope: { $ne: 'futures_and_options' } }
    : { scope: 'futures_and_options' };
}

type MongoDb = { collection: (name: string) => Collection<Document> };

async function unwound<T extends Document>(
  coll: Collection<Document>,
  what: string,
  run: Run,
  pipeline: Document[],
): Promise<T[]> {
  return run(what, (o) => coll.aggregate<T>(pipeline, o).toArray());
}

/** The releases of the buckets of one series or COT format between two years, by year (none: absent). */
async function releasesOf(
  coll: Collection<Document>,
  field: 'type' | 'format',
  commodityId: string,
  kind: string,
  from: number,
  to: number,
  run: Run,
  scope: Document = {},
): Promise<Map<number, StoredRelease[]>> {
  const rows = await run('read the releases of buckets', (o) =>
    coll
      .find<{ year: number; releases: StoredRelease[] }>(
        {
          commodity_id: commodityId,
          [field]: kind,
          ...scope,
          year: { $gte: from, $lte: to },
          releases: { $exists: true },
        },
        { ...o, projection: { _id: 0, year: 1, releases: 1 } },
      )
      .toArray(),
  );
  return new Map(rows.map((r) => [r.year, r.releases]));
}

/**
 * Attaches each item's release from its bucket's (the bucket of its date's year). With `estimate`
 * (the current view's `firstReleaseEstimate`, series only), a first version's as `releaseInForce`
 * gives it (versions.ts), as views.ts `attachReleases` does.
 */
function withReleases<T extends StoredPoint | StoredCotReport>(
  items: T[],
  releases: Map<number, StoredRelease[]>,
  dateOf: (item: T) => string,
  estimate?: (date: string) => string | undefined,
): (T & { release?: StoredRelease })[] {
  if (releases.size === 0) return items;
  // per bucket (year): its releases' release in force
  const inForce = new Map<number, (r: number | undefined, date: string) => StoredRelease | undefined>();
  for (const item of items) {
    if (item.r === undefined) continue;
    const year = yearOf(dateOf(item));
    const bucket = releases.get(year);
    if (bucket === undefined) continue;
    let release: StoredRelease | undefined;
    if (estimate === undefined) release = bucket[item.r];
    else {
      let of = inForce.get(year);
      if (of === undefined) inForce.set(year, (of = releaseInForce(bucket, estimate)));
      release = of(item.r, dateOf(item));
    }
    if (release !== undefined) (item as T & { release?: StoredRelease }).release = release;
  }
  return items;
}

async function pointsBetween(
  coll: Collection<Document>,
  q: Pick<SeriesRangeQuery, 'commodityId' | 'type' | 'view'>,
  years: [number, number],
  dates: { $gte: string; $lte?: string; $lt?: string },
  run: Run,
): Promise<ViewedPoint[]> {
  if (years[0] > years[1]) return [];
  const [rows, releases] = await Promise.all([
    unwound<{ points: StoredPoint }>(coll, 'read a series range', run, [
      bucketsOf('type', q.commodityId, q.type, years[0], years[1]),
      { $unwind: '$points' },
      { $match: { 'points.d': dates } },
      { $sort: { 'points.d': 1 } },
      { $project: { _id: 0, points: 1 } },
    ]),
    releasesOf(coll, 'type', q.commodityId, q.type, years[0], years[1], run),
  ]);
  return withReleases(
    rows.map((r) => r.points),
    releases,
    (p) => p.d,
    q.view?.firstReleaseEstimate,
  );
}

/** Whole buckets by `_id`, in the order of `ids` (null where there is none). */
async function bucketsById<T extends Document>(
  coll: Collection<Document>,
  ids: string[],
  projection: Document,
  run: Run,
): Promise<(T | null)[]> {
  if (ids.length === 0) return [];
  const found = await run('read buckets', (o) =>
    coll.find<T & { _id: string }>({ _id: { $in: ids } } as never, { ...o, projection }).toArray(),
  );
  const byId = new Map(found.map((d) => [d._id, d]));
  return ids.map((id) => byId.get(id) ?? null);
}

type VersionedCot = { reports?: StoredCotReport[]; revised?: StoredCotReport[]; releases?: StoredRelease[] };

/** The reports of a COT format's buckets of some years, in a view other than the current one. */
async function viewedReports(
  coll: Collection<Document>,
  q: Pick<CotPageQuery, 'commodityId' | 'format' | 'scope' | 'view'>,
  ys: number[],
  run: Run,
): Promise<ViewedReport[]> {
  const dataset = cotDatasetOf(q);
  const found = await bucketsById<VersionedCot>(
    coll,
    ys.map((y) => cotBucketId(q.commodityId, dataset, y)),
    { reports: 1, revised: 1, releases: 1 },
    run,
  );
  return found.flatMap((b) =>
    b === null ? [] : viewReports({ current: b.reports ?? [], revised: b.revised, releases: b.releases }, q.view),
  );
}

function cotRange(
  q: Pick<CotPageQuery, 'commodityId' | 'format' | 'scope'>,
  from: string,
  to: { $lte: string } | { $lt: string },
) {
  const buckets = bucketsOf('format', q.commodityId, q.format, yearOf(from), yearOf('$lte' in to ? to.$lte : to.$lt));
  return [
    { $match: { ...buckets.$match, ...scopeOf(q) } },
    { $unwind: '$reports' },
    { $match: { 'reports.report_date': { $gte: from, ...to } } },
  ];
}

const asCotDoc =
  (q: CotPageQuery | CotHistoryQuery) =>
  (r: ViewedReport): CotDoc => ({
    ...r,
    commodity_id: q.commodityId,
    format: q.format,
  });

/** One physical collection for its writer: loads by `_id`, compare-and-set as replaces filtered on `_meta.rev`. */
function writerOf<D extends ReadModelDoc>(
  db: MongoDb,
  name: ReadModelName,
  physical: string,
  runFor: (call?: StoreCall) => Run,
): ReadModelCollection<D> {
  const coll = db.collection(physical);
  return {
    name,
    collection: physical,
    async load(ids: readonly string[], call?: StoreCall) {
      if (ids.length === 0) return [];
      return runFor(call)('read documents', (o) =>
        coll.find<D>({ _id: { $in: ids as string[] } } as never, o).toArray(),
      );
    },
    async compareAndSet(writes, call): Promise<CasResult> {
      if (writes.length === 0) return { written: 0, conflicts: 0 };
      const ops = writes.map((w): AnyBulkWriteOperation =>
        w.rev === null
          ? { insertOne: { document: w.doc as Document } }
          : {
              replaceOne: {
                filter: { _id: w.doc._id, '_meta.rev': w.rev === undefined ? { $exists: false } : w.rev } as never,
                replacement: w.doc,
              },
            },
      );
      let written: number;
      try {
        const res = await runFor(call)('write documents', ({ maxTimeMS }) =>
          coll.bulkWrite(ops, { ordered: false, maxTimeMS }),
        );
        written = res.insertedCount + res.matchedCount;
      } catch (err) {
        // A duplicate _id is a racing insert: a conflict. Anything else is a failure.
        if (!(err instanceof MongoBulkWriteError) || duplicateKeyIndexes(err) === undefined) throw err;
        written = err.result.insertedCount + err.result.matchedCount;
      }
      return { written, conflicts: writes.length - written };
    },
  };
}

async function catalogEntries(coll: Collection<Document>, q: CatalogQuery, run: Run): Promise<CatalogDoc[]> {
  return run('read the catalog', (o) =>
    coll
      .find<CatalogDoc>(
        { listed: true, ...(q.category === undefined ? {} : { category: q.category }) },
        { ...o, projection: CATALOG_SUMMARY },
      )
      .sort({ _id: 1 })
      .toArray(),
  );
}

async function catalogEntry(coll: Collection<Document>, id: string, run: Run): Promise<CatalogDoc | null> {
  const doc = await run('read a catalog entry', (o) =>
    coll.findOne<CatalogDoc>({ _id: id as never }, { ...o, projection: { _meta: 0 } }),
  );
  return doc?.listed === true ? doc : null;
}

async function unlistedEntries(coll: Collection<Document>, run: Run): Promise<CatalogDoc[]> {
  return run('read the unlisted catalog documents', (o) =>
    coll
      .find<CatalogDoc>({ listed: { $ne: true } }, { ...o, projection: { _meta: 0 } })
      .sort({ _id: 1 })
      .toArray(),
  );
}

/** A series range in a view other than the current one: whole buckets by `_id`, cut in memory (views.ts). */
function versionedSeriesRange(coll: Collection<Document>, q: SeriesRangeQuery, run: Run): Promise<SeriesRange> {
  return seriesRangeFromBuckets(q, async (ys) => {
    type Versioned = {
      unit?: string;
      points?: StoredPoint[];
      revised?: StoredPoint[];
      releases?: StoredRelease[];
    };
    const found = await bucketsById<Versioned>(
      coll,
      ys.map((y) => seriesBucketId(q.commodityId, q.type, y)),
      { _id: 1, unit: 1, points: 1, revised: 1, releases: 1 },
      run,
    );
    return found.map((b) =>
      b === null
        ? null
        : {
            points: viewPoints({ current: b.points ?? [], revised: b.revised, releases: b.releases }, q.view),
            ...(b.unit === undefined ? {} : { unit: b.unit }),
          },
    );
  });
}

/** The points of the period before `startDate` (`predecessorPeriod`), from the latest bucket that begins before it. */
async function pointsBefore(coll: Collection<Document>, q: SeriesRangeQuery, run: Run): Promise<ViewedPoint[]> {
  const lastYear = Math.min(yearOf(q.startDate), q.lastYear);
  if (q.predecessorPeriod !== undefined && lastYear >= q.firstYear) {
    // The latest bucket that begins before start_date holds the last observation before it.
    const bucket = await run('find the bucket before a series range', (o) =>
      coll.findOne<{ year: number }>(
        {
          commodity_id: q.commodityId,
          type: q.type,
          year: { $gte: q.firstYear, $lte: lastYear },
          first_date: { $gt: '', $lt: q.startDate },
        },
        { ...o, projection: { _id: 0, year: 1 }, sort: { year: -1 } },
      ),
    );
    if (bucket !== null) {
      const [last] = await unwound<{ points: StoredPoint }>(coll, 'read the point before a series range', run, [
        { $match: { _id: seriesBucketId(q.commodityId, q.type, bucket.year) } },
        { $unwind: '$points' },
        { $match: { 'points.d': { $lt: q.startDate } } },
        { $sort: { 'points.d': -1 } },
        { $limit: 1 },
        { $project: { _id: 0, points: 1 } },
      ]);
      if (last !== undefined) {
        const since = q.predecessorPeriod(last.points.d);
        return pointsBetween(
          coll,
          q,
          [Math.max(yearOf(since), q.firstYear), bucket.year],
          { $gte: since, $lt: q.startDate },
          run,
        );
      }
    }
  }
  return [];
}

async function seriesRange(coll: Collection<Document>, q: SeriesRangeQuery, run: Run): Promise<SeriesRange> {
  if (!isCurrentView(q.view)) return versionedSeriesRange(coll, q, run);
  const plan = seriesPlan(q);
  const [points, unitDoc] = await Promise.all([
    pointsBetween(coll, q, [plan.from, plan.to], { $gte: q.startDate, $lte: q.endDate }, run),
    plan.unitFrom > plan.to
      ? null
      : run('read a series unit', (o) =>
          coll.findOne<{ unit: string }>(
            {
              commodity_id: q.commodityId,
              type: q.type,
              year: { $gte: plan.unitFrom, $lte: plan.to },
              unit: { $exists: true },
            },
            { ...o, projection: { _id: 0, unit: 1 }, sort: { year: 1 } },
          ),
        ),
  ]);
  const before = await pointsBefore(coll, q, run);
  return { points, before, ...(unitDoc === null ? {} : { unit: unitDoc.unit }) };
}

async function cotPage(coll: Collection<Document>, q: CotPageQuery, run: Run): Promise<Page<CotDoc>> {
  if (!isCurrentView(q.view)) return cotPageFromBuckets(q, (ys) => viewedReports(coll, q, ys, run));
  const from = q.startDate !== undefined && q.startDate > q.firstDate ? q.startDate : q.firstDate;
  const to = q.endDate !== undefined && q.endDate < q.lastDate ? q.endDate : q.lastDate;
  if (from > to) return { total: 0, items: [] };
  const range = cotRange(q, from, { $lte: to });
  const [counted, items] = await Promise.all([
    unwound<{ n: number }>(coll, 'count COT reports', run, [...range, { $count: 'n' }]),
    q.limit <= 0
      ? []
      : unwound<{ reports: StoredCotReport }>(coll, 'read a COT page', run, [
          ...range,
          { $sort: { 'reports.report_date': q.sortOrder === 'desc' ? -1 : 1 } },
          { $skip: q.skip },
          { $limit: q.limit },
          { $project: { _id: 0, reports: 1 } },
        ]),
  ]);
  // The releases of the page's years only (a page spans a year or two of a format's twenty).
  const dates = items.map((r) => r.reports.report_date).sort();
  const releases =
    dates.length === 0
      ? new Map<number, StoredRelease[]>()
      : await releasesOf(
          coll,
          'format',
          q.commodityId,
          q.format,
          yearOf(dates[0]!),
          yearOf(dates.at(-1)!),
          run,
          scopeOf(q),
        );
  const reports = withReleases(
    items.map((r) => r.reports),
    releases,
    (r) => r.report_date,
  );
  return { total: counted[0]?.n ?? 0, items: reports.map(asCotDoc(q)) };
}

async function cotBefore(coll: Collection<Document>, q: CotHistoryQuery, run: Run): Promise<CotDoc[]> {
  if (!isCurrentView(q.view)) return cotBeforeFromBuckets(q, (ys) => viewedReports(coll, q, ys, run));
  if (q.count <= 0 || q.before <= q.firstDate) return [];
  // The releases of the years the reports likely come from (weekly: about 52 a year) are read
  // beside them; those of years further back only when a gap in the data made them reach there.
  const toYear = yearOf(q.before);
  const fromYear = Math.max(yearOf(q.firstDate), toYear - Math.ceil(q.count / 50) - 1);
  const [rows, releases] = await Promise.all([
    unwound<{ reports: StoredCotReport }>(coll, 'read COT reports before a page', run, [
      ...cotRange(q, q.firstDate, { $lt: q.before }),
      { $sort: { 'reports.report_date': -1 } },
      { $limit: q.count },
      { $project: { _id: 0, reports: 1 } },
    ]),
    releasesOf(coll, 'format', q.commodityId, q.format, fromYear, toYear, run, scopeOf(q)),
  ]);
  const reports = rows.reverse().map((r) => r.reports);
  const earliest = reports[0] === undefined ? fromYear : yearOf(reports[0].report_date);
  if (earliest < fromYear) {
    const more = await releasesOf(coll, 'format', q.commodityId, q.format, earliest, fromYear - 1, run, scopeOf(q));
    for (const [year, r] of more) releases.set(year, r);
  }
  return withReleases(reports, releases, (r) => r.report_date).map(asCotDoc(q));
}

/**
 * The read models on MongoDB proper: documents as they are (native arrays), compare-and-set as a
 * replace filtered on `_meta.rev` (atomic per document there), and reads as queries on the
 * indexes above: series ranges and COT pages are `$match` on the bucket year range, `$unwind`,
 * `$match` on the dates, `$sort`, `$skip`/`$limit` on the server, so only the answer travels.
 * Runs on FerretDB too (the contract spec checks it there), slowly: FerretDB 1.x pushes none of
 * these filters down and decodes every bucket of the collection on each query.
 *
 * Versions (versions.ts): the current view keeps those queries, plus one for the releases of the
 * buckets read (in parallel, the release of each item attached from them); any other view reads
 * whole buckets by `_id` and cuts them in memory (views.ts), as the FerretDB adapter does.
 */
export function createMongoDbAdapter(db: MongoDb): Adapter {
  return {
    name: 'mongodb',
    indexes: INDEXES,
    companions: () => [],
    collection: (name, physical, runFor) => writerOf(db, name, physical, runFor),
    catalogEntries,
    catalogEntry,
    unlistedEntries,
    seriesRange,
    cotPage,
    cotBefore,
    supplyDemandSheets: mongoSupplyDemandSheets,
  };
}
