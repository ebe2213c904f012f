import {
  ALIAS_CACHE_MS,
  COLLECTIONS,
  activeCollection,
  cotBucketId,
  seriesBucketId,
  type CatalogDoc,
  type CotDoc,
  type ReadModelAliasDoc,
  type PackedCotBucketDoc,
  type PackedSeriesBucketDoc,
  type ReadModelName,
  type StoredCotReport,
  type StoredPoint,
  unpackPoints,
  unpackReports,
} from '@cds/read-models';
import type { SeriesType } from '@cds/contracts';
import type { Collection, Db } from 'mongodb';
import type {
  CatalogPageQuery,
  CotHistoryQuery,
  CotPageQuery,
  Page,
  ReadModelRepository,
  SeriesBucket,
} from './repository.ts';
import { matchesSearch } from './search.ts';

export interface MongoRepositoryOptions {
  db: Db;
  /** Time limit of every query (maxTimeMS). */
  maxTimeMs: number;
  /** Called when a read model was swapped to another collection (a rebuild), so caches can be dropped. */
  onCollectionSwap?: (name: ReadModelName) => void;
  /** Clock in ms, for the alias cache. */
  now?: () => number;
}

const SUMMARY_PROJECTION = { id: 1, name: 1, symbol: 1, category: 1, exchange: 1, unit: 1, listed: 1 } as const;

const byId = (a: { _id: string }, b: { _id: string }) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0);

/**
 * The read models in MongoDB, read by `_id` only: FerretDB 1.x evaluates any other filter in Go
 * after a full scan (seconds on a few thousand documents), while an `_id` lookup is pushed down.
 * Series and COT buckets are fetched one `findOne` per year (not `$in`, which FerretDB scans), the
 * years bounded by the catalog descriptor; the catalog (tens of documents) is read whole and
 * filtered here. Every query carries maxTimeMS.
 */
export function createMongoRepository(opts: MongoRepositoryOptions): ReadModelRepository {
  const { db, maxTimeMs } = opts;
  const now = opts.now ?? Date.now;
  const aliases = new Map<ReadModelName, { collection: string; until: number }>();

  async function collection(name: ReadModelName): Promise<string> {
    const cached = aliases.get(name);
    const t = now();
    if (cached !== undefined && cached.until > t) return cached.collection;
    const doc = await db
      .collection<ReadModelAliasDoc>(COLLECTIONS.aliases)
      .findOne({ _id: name }, { projection: { collection: 1 }, maxTimeMS: maxTimeMs });
    const resolved = activeCollection(name, doc);
    aliases.set(name, { collection: resolved, until: t + ALIAS_CACHE_MS });
    if (cached !== undefined && cached.collection !== resolved) opts.onCollectionSwap?.(name);
    return resolved;
  }

  /** One series bucket's year, unit and points by `_id`, or null. */
  async function readSeriesBucket(coll: Collection<PackedSeriesBucketDoc>, id: string): Promise<SeriesBucket | null> {
    const stored = await coll.findOne<{ year: number; unit?: string; points_json?: string; points?: StoredPoint[] }>(
      { _id: id },
      { projection: { _id: 0, year: 1, unit: 1, points_json: 1, points: 1 }, maxTimeMS: maxTimeMs },
    );
    if (stored === null) return null;
    return {
      year: stored.year,
      ...(stored.unit === undefined ? {} : { unit: stored.unit }),
      points: unpackPoints(stored),
    };
  }

  return {
    async listCommodities(q: CatalogPageQuery): Promise<Page<CatalogDoc>> {
      const coll = db.collection<CatalogDoc>(await collection('catalog'));
      const docs = await coll.find({}, { projection: SUMMARY_PROJECTION, maxTimeMS: maxTimeMs }).toArray();
      const matching = docs
        .filter((d) => d.listed === true)
        .filter((d) => q.category === undefined || d.category === q.category)
        // The user's text is compared as plain text, so `.*` or `$ne` match only themselves.
        .filter((d) => q.search === undefined || matchesSearch(d, q.search))
        .sort(byId);
      if (q.sortOrder === 'desc') matching.reverse();
      return { total: matching.length, items: matching.slice(q.skip, q.skip + q.limit) };
    },

    async getCommodity(id: string): Promise<CatalogDoc | null> {
      const coll = db.collection<CatalogDoc>(await collection('catalog'));
      const doc = await coll.findOne({ _id: id }, { projection: { _meta: 0 }, maxTimeMS: maxTimeMs });
      return doc?.listed === true ? doc : null;
    },

    async getSeriesBuckets(commodityId: string, type: SeriesType, years: readonly number[]): Promise<SeriesBucket[]> {
      if (years.length === 0) return [];
      const coll = db.collection<PackedSeriesBucketDoc>(await collection('series'));
      const found = await Promise.all(years.map((y) => readSeriesBucket(coll, seriesBucketId(commodityId, type, y))));
      return found.filter((b): b is SeriesBucket => b !== null);
    },

    async getSeriesBucketsBefore(
      commodityId: string,
      type: SeriesType,
      year: number,
      count: number,
      firstYear: number,
    ) {
      const coll = db.collection<PackedSeriesBucketDoc>(await collection('series'));
      const out: SeriesBucket[] = [];
      // Walk back year by year (by _id) to the series' first year: gaps cost one lookup a year.
      for (let y = year - 1; y >= firstYear && out.length < count; y -= 1) {
        const bucket = await readSeriesBucket(coll, seriesBucketId(commodityId, type, y));
        if (bucket !== null && bucket.points.length > 0) out.push(bucket);
      }
      return out;
    },

    async findCotReports(q: CotPageQuery): Promise<Page<CotDoc>> {
      const from = q.startDate !== undefined && q.startDate > q.firstDate ? q.startDate : q.firstDate;
      const to = q.endDate !== undefined && q.endDate < q.lastDate ? q.endDate : q.lastDate;
      if (from > to) return { total: 0, items: [] };
      const coll = db.collection<PackedCotBucketDoc & { reports?: StoredCotReport[] }>(await collection('cot'));
      const years: number[] = [];
      for (let y = Number(from.slice(0, 4)); y <= Number(to.slice(0, 4)); y += 1) years.push(y);
      const buckets = await Promise.all(
        years.map((y) =>
          coll.findOne(
            { _id: cotBucketId(q.commodityId, q.format, y) },
            { projection: { reports_json: 1, reports: 1 }, maxTimeMS: maxTimeMs },
          ),
        ),
      );
      const reports: CotDoc[] = [];
      for (const bucket of buckets) {
        for (const r of bucket === null ? [] : unpackReports(bucket)) {
          if (r.report_date >= from && r.report_date <= to) {
            reports.push({ ...r, commodity_id: q.commodityId, format: q.format });
          }
        }
      }
      reports.sort((a, b) => (a.report_date < b.report_date ? -1 : a.report_date > b.report_date ? 1 : 0));
      if (q.sortOrder === 'desc') reports.reverse();
      return { total: reports.length, items: reports.slice(q.skip, q.skip + q.limit) };
    },

    async findCotReportsBefore(q: CotHistoryQuery): Promise<CotDoc[]> {
      if (q.count <= 0 || q.before <= q.firstDate) return [];
      const coll = db.collection<PackedCotBucketDoc & { reports?: StoredCotReport[] }>(await collection('cot'));
      const firstYear = Number(q.firstDate.slice(0, 4));
      let year = Number(q.before.slice(0, 4));
      const found: CotDoc[] = [];
      // Weekly reports: about 52 a year, so the first batch of years (read in parallel) usually
      // holds them all; a gap in the data costs one more bucket read per missing year.
      let batch = Math.ceil(q.count / 50) + 1;
      while (found.length < q.count && year >= firstYear) {
        const years: number[] = [];
        for (let y = year; y >= firstYear && years.length < batch; y -= 1) years.push(y);
        year -= years.length;
        batch = 1;
        const buckets = await Promise.all(
          years.map((y) =>
            coll.findOne(
              { _id: cotBucketId(q.commodityId, q.format, y) },
              { projection: { reports_json: 1, reports: 1 }, maxTimeMS: maxTimeMs },
            ),
          ),
        );
        for (const bucket of buckets) {
          for (const r of bucket === null ? [] : unpackReports(bucket)) {
            if (r.report_date < q.before && r.report_date >= q.firstDate) {
              found.push({ ...r, commodity_id: q.commodityId, format: q.format });
            }
          }
        }
      }
      found.sort((a, b) => (a.report_date < b.report_date ? -1 : a.report_date > b.report_date ? 1 : 0));
      return found.slice(Math.max(0, found.length - q.count));
    },

    async ping(): Promise<void> {
      await db.command({ ping: 1 }, { timeoutMS: maxTimeMs });
    },
  };
}
