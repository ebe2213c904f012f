import {
  ALIAS_CACHE_MS,
  COLLECTIONS,
  activeCollection,
  seriesBucketId,
  type CatalogDoc,
  type CotDoc,
  type ReadModelAliasDoc,
  type ReadModelName,
  type SeriesBucketDoc,
} from '@cds/read-models';
import type { SeriesType } from '@cds/contracts';
import type { Db, Filter } from 'mongodb';
import type { CatalogPageQuery, CotPageQuery, Page, ReadModelRepository, SeriesBucket } from './repository.ts';
import { escapeRegExp } from './search.ts';

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

/**
 * The read models in MongoDB (or FerretDB 1.x: only find/sort/skip/limit, countDocuments and
 * findOne are used). Every query carries maxTimeMS; series buckets are read by `_id` for just the
 * years asked for, with a projection of the fields the service renders.
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

  return {
    async listCommodities(q: CatalogPageQuery): Promise<Page<CatalogDoc>> {
      const filter: Filter<CatalogDoc> = { listed: true };
      if (q.category !== undefined) filter.category = q.category;
      if (q.search !== undefined) {
        // The user's text is escaped, so `.*` or `$ne` match only themselves.
        const pattern = { $regex: escapeRegExp(q.search), $options: 'i' };
        filter.$or = [{ name: pattern }, { symbol: pattern }];
      }
      const coll = db.collection<CatalogDoc>(await collection('catalog'));
      const [total, items] = await Promise.all([
        coll.countDocuments(filter, { maxTimeMS: maxTimeMs }),
        coll
          .find(filter, { projection: SUMMARY_PROJECTION, maxTimeMS: maxTimeMs })
          .sort({ _id: q.sortOrder === 'asc' ? 1 : -1 })
          .skip(q.skip)
          .limit(q.limit)
          .toArray(),
      ]);
      return { total, items };
    },

    async getCommodity(id: string): Promise<CatalogDoc | null> {
      const coll = db.collection<CatalogDoc>(await collection('catalog'));
      return coll.findOne({ _id: id, listed: true }, { projection: { _meta: 0 }, maxTimeMS: maxTimeMs });
    },

    async getSeriesBuckets(commodityId: string, type: SeriesType, years: readonly number[]): Promise<SeriesBucket[]> {
      if (years.length === 0) return [];
      const coll = db.collection<SeriesBucketDoc>(await collection('series'));
      const ids = years.map((y) => seriesBucketId(commodityId, type, y));
      return coll
        .find<SeriesBucket>(
          { _id: { $in: ids } },
          { projection: { _id: 0, year: 1, unit: 1, points: 1 }, maxTimeMS: maxTimeMs },
        )
        .toArray();
    },

    async getSeriesBucketsBefore(commodityId: string, type: SeriesType, year: number, count: number) {
      const coll = db.collection<SeriesBucketDoc>(await collection('series'));
      return coll
        .find<SeriesBucket>(
          { commodity_id: commodityId, type, year: { $lt: year } },
          { projection: { _id: 0, year: 1, unit: 1, points: 1 }, maxTimeMS: maxTimeMs },
        )
        .sort({ year: -1 })
        .limit(count)
        .toArray();
    },

    async findCotReports(q: CotPageQuery): Promise<Page<CotDoc>> {
      const filter: Filter<CotDoc> = { commodity_id: q.commodityId, format: q.format };
      if (q.startDate !== undefined || q.endDate !== undefined) {
        filter.report_date = {
          ...(q.startDate === undefined ? {} : { $gte: q.startDate }),
          ...(q.endDate === undefined ? {} : { $lte: q.endDate }),
        };
      }
      const coll = db.collection<CotDoc>(await collection('cot'));
      const [total, items] = await Promise.all([
        coll.countDocuments(filter, { maxTimeMS: maxTimeMs }),
        coll
          .find(filter, { projection: { _meta: 0 }, maxTimeMS: maxTimeMs })
          .sort({ report_date: q.sortOrder === 'asc' ? 1 : -1 })
          .skip(q.skip)
          .limit(q.limit)
          .toArray(),
      ]);
      return { total, items };
    },

    async ping(): Promise<void> {
      await db.command({ ping: 1 }, { timeoutMS: maxTimeMs });
    },
  };
}
