import type { CatalogDoc, CotDoc, ReadModelName, SupplyDemandBucketDoc } from '@cds/read-models';
import type { Collection, Document } from 'mongodb';
import type {
  AdapterName,
  CatalogQuery,
  CotHistoryQuery,
  CotPageQuery,
  Page,
  ReadModelCollection,
  ReadModelDoc,
  SeriesRange,
  SeriesRangeQuery,
  StoreCall,
  SupplyDemandSheetsQuery,
} from './port.ts';
import type { Run } from './run.ts';

/** An index the MongoDB adapter queries, with the query that uses it. */
export interface ReadModelIndex {
  key: Record<string, 1 | -1>;
  name: string;
  unique?: boolean;
  /** The port method whose query uses it. */
  usedBy: string;
  /**
   * Indexes it supersedes, dropped (when present) once it exists: a collection written before
   * keeps its old index otherwise, and an old unique one would refuse what the new one allows.
   */
  replaces?: readonly string[];
}

/**
 * What one server flavour implements behind the port (ReadModelStore does the rest: alias
 * resolution, deadlines, choosing the adapter). Readers get the physical collection to read.
 */
export interface Adapter {
  readonly name: AdapterName;
  /** The indexes its queries use, per read model (created on every collection it writes). */
  readonly indexes: Readonly<Record<ReadModelName, readonly ReadModelIndex[]>>;
  /** Collections the adapter keeps beside a physical one (dropped with it). */
  companions(physical: string): string[];
  collection<D extends ReadModelDoc>(
    name: ReadModelName,
    physical: string,
    runFor: (call?: StoreCall) => Run,
  ): ReadModelCollection<D>;
  catalogEntries(coll: Collection<Document>, query: CatalogQuery, run: Run): Promise<CatalogDoc[]>;
  catalogEntry(coll: Collection<Document>, id: string, run: Run): Promise<CatalogDoc | null>;
  unlistedEntries(coll: Collection<Document>, run: Run): Promise<CatalogDoc[]>;
  seriesRange(coll: Collection<Document>, query: SeriesRangeQuery, run: Run): Promise<SeriesRange>;
  cotPage(coll: Collection<Document>, query: CotPageQuery, run: Run): Promise<Page<CotDoc>>;
  cotBefore(coll: Collection<Document>, query: CotHistoryQuery, run: Run): Promise<CotDoc[]>;
  supplyDemandSheets(
    coll: Collection<Document>,
    query: SupplyDemandSheetsQuery,
    run: Run,
  ): Promise<SupplyDemandBucketDoc[]>;
}

/** The years a series range reads (see SeriesRangeQuery): the same plan for every adapter. */
export interface SeriesPlan {
  /** The range's years within the series' years (from > to when none). */
  from: number;
  to: number;
  /** With a predecessor: the latest year before startDate the series may have (undefined when none). */
  previous: number | undefined;
  /** The years whose buckets give the unit. */
  unitFrom: number;
}

export function seriesPlan(q: SeriesRangeQuery): SeriesPlan {
  const startYear = Number(q.startDate.slice(0, 4));
  const from = Math.max(startYear, q.firstYear);
  const to = Math.min(Number(q.endDate.slice(0, 4)), q.lastYear);
  const prev = Math.min(startYear - 1, q.lastYear);
  const previous = q.predecessorPeriod !== undefined && prev >= q.firstYear ? prev : undefined;
  return { from, to, previous, unitFrom: previous ?? from };
}
