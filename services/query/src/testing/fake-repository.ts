import {
  isCurrentView,
  type CatalogDoc,
  type CotDoc,
  type SeriesBucketDoc,
  type SupplyDemandBucketDoc,
} from '@cds/read-models';
import { defaultCotScope } from '@cds/contracts';
import { viewPoints, type CotPageQuery, type ReadModelReader, type ViewedPoint } from '@cds/store';
import { createReadModelRepository, type ReadModelRepository } from '../repository/repository.ts';

export interface FakeReadModels {
  catalog?: CatalogDoc[];
  series?: SeriesBucketDoc[];
  cot?: CotDoc[];
  /** Balance sheets, without `_meta` (as the store's supplyDemandSheets gives them). */
  supplyDemand?: Omit<SupplyDemandBucketDoc, '_meta'>[];
}

export interface FakeRepository extends ReadModelRepository {
  /** The documents, to change between requests. */
  readonly data: Required<FakeReadModels>;
  /** Calls per reader method, to see whether a request reached the database. */
  readonly calls: Record<string, number>;
  /** When set, every method rejects with it (e.g. a driver error). */
  failWith: Error | undefined;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The repository over an in-memory ReadModelReader of documents in the libs/read-models shapes,
 * with the semantics of the storage port (listed only, year bounds, predecessor period, paging,
 * the view of a series bucket's versions), for HTTP tests without a database. COT reports are kept
 * flat, one version each, with their scope (absent: the format's default): an `as_of` view keeps
 * those whose release was published by then.
 */
export function createFakeRepository(initial: FakeReadModels = {}): FakeRepository {
  const data = {
    catalog: initial.catalog ?? [],
    series: initial.series ?? [],
    cot: initial.cot ?? [],
    supplyDemand: initial.supplyDemand ?? [],
  };
  const calls: Record<string, number> = {};

  function run<T>(method: string, fn: () => T): Promise<T> {
    calls[method] = (calls[method] ?? 0) + 1;
    if (fake.failWith !== undefined) return Promise.reject(fake.failWith);
    return Promise.resolve(structuredClone(fn()));
  }
  // The reports of one dataset: its format in its scope (a report without one has its format's default).
  const cotOf = (q: Pick<CotPageQuery, 'commodityId' | 'format' | 'scope' | 'view'>) =>
    data.cot
      .filter((d) => d.commodity_id === q.commodityId && d.format === q.format)
      .filter((d) => (d.scope ?? defaultCotScope(d.format)) === (q.scope ?? defaultCotScope(q.format)))
      .filter((d) => isCurrentView(q.view) || q.view?.asOf === undefined || (d.release?.p ?? '') <= q.view.asOf)
      .sort((a, b) => byText(a.report_date, b.report_date));

  const reader: ReadModelReader = {
    catalogEntries: (q = {}) =>
      run('catalogEntries', () =>
        data.catalog
          .filter((d) => d.listed && (q.category === undefined || d.category === q.category))
          .sort((a, b) => byText(a._id, b._id)),
      ),
    catalogEntry: (id) => run('catalogEntry', () => data.catalog.find((d) => d._id === id && d.listed) ?? null),
    unlistedEntries: () =>
      run('unlistedEntries', () => data.catalog.filter((d) => !d.listed).sort((a, b) => byText(a._id, b._id))),
    seriesRange: (q) =>
      run('seriesRange', () => {
        const startYear = Number(q.startDate.slice(0, 4));
        const buckets = (from: number, to: number) =>
          data.series
            .filter((b) => b.commodity_id === q.commodityId && b.type === q.type && b.year >= from && b.year <= to)
            .sort((a, b) => a.year - b.year);
        const points = (from: number, to: number): ViewedPoint[] =>
          buckets(from, to).flatMap((b) =>
            viewPoints({ current: b.points, revised: b.revised, releases: b.releases }, q.view),
          );
        const from = Math.max(startYear, q.firstYear);
        const to = Math.min(Number(q.endDate.slice(0, 4)), q.lastYear);
        let before: ViewedPoint[] = [];
        let unitFrom = from;
        if (q.predecessorPeriod !== undefined) {
          unitFrom = Math.max(Math.min(startYear - 1, q.lastYear), q.firstYear);
          before = points(q.firstYear, Math.min(startYear, q.lastYear)).filter((p) => p.d < q.startDate);
          const last = before.at(-1);
          if (last !== undefined) {
            const since = q.predecessorPeriod(last.d);
            before = before.filter((p) => p.d >= since);
          }
        }
        const unit = buckets(unitFrom, to).find((b) => b.unit !== undefined)?.unit;
        return {
          points: points(from, to).filter((p) => p.d >= q.startDate && p.d <= q.endDate),
          before,
          ...(unit === undefined ? {} : { unit }),
        };
      }),
    cotPage: (q) =>
      run('cotPage', () => {
        const all = cotOf(q)
          .filter((d) => d.report_date >= q.firstDate && d.report_date <= q.lastDate)
          .filter((d) => q.startDate === undefined || d.report_date >= q.startDate)
          .filter((d) => q.endDate === undefined || d.report_date <= q.endDate);
        if (q.sortOrder === 'desc') all.reverse();
        return { total: all.length, items: all.slice(q.skip, q.skip + q.limit) };
      }),
    cotBefore: (q) =>
      run('cotBefore', () => {
        const before = cotOf(q).filter((d) => d.report_date >= q.firstDate && d.report_date < q.before);
        return q.count <= 0 ? [] : before.slice(Math.max(0, before.length - q.count));
      }),
    supplyDemandSheets: (q) =>
      run('supplyDemandSheets', () =>
        data.supplyDemand
          .filter((d) => d.commodity_id === q.commodityId && d.region === q.region)
          .filter((d) => q.marketingYear === undefined || d.marketing_year === q.marketingYear)
          .sort((a, b) => byText(b.marketing_year, a.marketing_year))
          .map((d) => ({ ...d, _meta: { version: 0 } }) as unknown as SupplyDemandBucketDoc),
      ),
    ping: () => run('ping', () => undefined),
  };

  const fake: FakeRepository = { ...createReadModelRepository(reader), data, calls, failWith: undefined };
  return fake;
}
