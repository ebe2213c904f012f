import type { SeriesType } from '@cds/contracts';
import type { CatalogDoc, CotDoc, SeriesBucketDoc } from '@cds/read-models';
import type {
  CatalogPageQuery,
  CotHistoryQuery,
  CotPageQuery,
  Page,
  ReadModelRepository,
  SeriesBucket,
} from '../repository/repository.ts';
import { matchesSearch } from '../repository/search.ts';

export interface FakeReadModels {
  catalog?: CatalogDoc[];
  series?: SeriesBucketDoc[];
  cot?: CotDoc[];
}

export interface FakeRepository extends ReadModelRepository {
  /** The documents, to change between requests. */
  readonly data: Required<FakeReadModels>;
  /** Calls per method, to see whether a request reached the database. */
  readonly calls: Record<string, number>;
  /** When set, every method rejects with it (e.g. a driver error). */
  failWith: Error | undefined;
}

/**
 * An in-memory ReadModelRepository over documents in the libs/read-models shapes, with the same
 * semantics as the MongoDB one (listed only, literal search, sorting, paging), for HTTP tests
 * without a database.
 */
export function createFakeRepository(initial: FakeReadModels = {}): FakeRepository {
  const data = { catalog: initial.catalog ?? [], series: initial.series ?? [], cot: initial.cot ?? [] };
  const calls: Record<string, number> = {};
  const repo: FakeRepository = {
    data,
    calls,
    failWith: undefined,
    listCommodities(q: CatalogPageQuery): Promise<Page<CatalogDoc>> {
      return run('listCommodities', () => {
        const all = data.catalog
          .filter((d) => d.listed)
          .filter((d) => q.category === undefined || d.category === q.category)
          .filter((d) => q.search === undefined || matchesSearch(d, q.search))
          .sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
        if (q.sortOrder === 'desc') all.reverse();
        return { total: all.length, items: all.slice(q.skip, q.skip + q.limit) };
      });
    },
    getCommodity(id: string) {
      return run('getCommodity', () => data.catalog.find((d) => d._id === id && d.listed) ?? null);
    },
    getSeriesBuckets(commodityId: string, type: SeriesType, years: readonly number[]): Promise<SeriesBucket[]> {
      return run('getSeriesBuckets', () =>
        data.series.filter((b) => b.commodity_id === commodityId && b.type === type && years.includes(b.year)),
      );
    },
    getSeriesBucketsBefore(commodityId: string, type: SeriesType, year: number, count: number) {
      return run('getSeriesBucketsBefore', () =>
        data.series
          .filter((b) => b.commodity_id === commodityId && b.type === type && b.year < year)
          .sort((a, b) => b.year - a.year)
          .slice(0, count),
      );
    },
    findCotReports(q: CotPageQuery): Promise<Page<CotDoc>> {
      return run('findCotReports', () => {
        const all = data.cot
          .filter((d) => d.commodity_id === q.commodityId && d.format === q.format)
          .filter((d) => d.report_date >= q.firstDate && d.report_date <= q.lastDate)
          .filter((d) => q.startDate === undefined || d.report_date >= q.startDate)
          .filter((d) => q.endDate === undefined || d.report_date <= q.endDate)
          .sort((a, b) => (a.report_date < b.report_date ? -1 : 1));
        if (q.sortOrder === 'desc') all.reverse();
        return { total: all.length, items: all.slice(q.skip, q.skip + q.limit) };
      });
    },
    findCotReportsBefore(q: CotHistoryQuery): Promise<CotDoc[]> {
      return run('findCotReportsBefore', () => {
        const before = data.cot
          .filter((d) => d.commodity_id === q.commodityId && d.format === q.format)
          .filter((d) => d.report_date >= q.firstDate && d.report_date < q.before)
          .sort((a, b) => (a.report_date < b.report_date ? -1 : 1));
        return q.count <= 0 ? [] : before.slice(Math.max(0, before.length - q.count));
      });
    },
    ping() {
      return run('ping', () => undefined);
    },
  };

  function run<T>(method: string, fn: () => T): Promise<T> {
    calls[method] = (calls[method] ?? 0) + 1;
    if (repo.failWith !== undefined) return Promise.reject(repo.failWith);
    return Promise.resolve(structuredClone(fn()));
  }
  return repo;
}
