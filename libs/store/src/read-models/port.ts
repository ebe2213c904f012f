import type { CotFormat, CotScope, SeriesType } from '@cds/contracts';
import type {
  CatalogDoc,
  CotDoc,
  PointInTimeView,
  ProjectionMeta,
  ReadModelName,
  StoredPoint,
  StoredRelease,
  SupplyDemandBucketDoc,
} from '@cds/read-models';

/**
 * The read models' storage port: the one way the projector (writes) and the query service (reads)
 * reach them. Documents are the libs/read-models shapes; how a server holds them (packed JSON text
 * on FerretDB, native arrays on MongoDB) and how it is asked (by `_id` only, or with range queries
 * on indexes) is the adapter's business (ferretdb-adapter.ts, mongodb-adapter.ts).
 */

/** Any read-model document: its id and where it was last written from. */
export interface ReadModelDoc {
  _id: string;
  _meta: ProjectionMeta;
}

/** Deadline, cancellation and progress of the database operations of one call. */
export interface StoreCall {
  /** Deadline of each database operation (`withDeadline`). Default: the store's. */
  timeoutMs?: number;
  /** Aborts the operations in flight (a watchdog, a stop). */
  signal?: AbortSignal;
  /** Called after every database operation that answered (progress, for a watchdog). */
  onAnswer?: () => void;
}

/**
 * One compare-and-set write. `rev` is the revision the new document was folded from: `null` when
 * the document was absent (insert if still absent), `undefined` for a stored document that has no
 * revision yet. `doc._meta.rev` is the new revision.
 */
export interface CasWrite<D extends ReadModelDoc> {
  doc: D;
  rev: number | undefined | null;
}

export interface CasResult {
  /** Documents written. */
  written: number;
  /** Writes refused because another writer changed (or holds) the document since it was read. */
  conflicts: number;
}

/** One physical collection of a read model, for its writer. */
export interface ReadModelCollection<D extends ReadModelDoc = ReadModelDoc> {
  readonly name: ReadModelName;
  /** The physical collection (`series`, or a rebuild's `series_rebuild_<ms>`). */
  readonly collection: string;
  /** The stored documents with these ids (the missing ones left out), in any order. */
  load(ids: readonly string[], call?: StoreCall): Promise<D[]>;
  /**
   * Writes each document if it is still at the revision it was folded from (see CasWrite); the
   * others are conflicts, to be reloaded and folded again. A write that failed (deadline, lost
   * connection) may still land: callers retry idempotently.
   */
  compareAndSet(writes: readonly CasWrite<D>[], call?: StoreCall): Promise<CasResult>;
}

/** A page of results and the number of all matching ones. */
export interface Page<T> {
  total: number;
  items: T[];
}

/**
 * A point as a view shows it (versions.ts `viewItems`): the stored version, the release that
 * published it (absent on documents written before versions were kept) and, when the view asks for
 * revisions, the versions before it, oldest first.
 */
export interface ViewedPoint extends StoredPoint {
  release?: StoredRelease | undefined;
  earlier?: (StoredPoint & { release?: StoredRelease | undefined })[] | undefined;
}

export interface SeriesRangeQuery {
  commodityId: string;
  type: SeriesType;
  /** Inclusive dates. */
  startDate: string;
  endDate: string;
  /**
   * The years the series has data in (its catalog descriptor): no bucket outside them is read, so
   * a range such as 0001-01-01..9999-12-31 costs what the data costs.
   */
  firstYear: number;
  lastYear: number;
  /**
   * For change and pct_change: the start (a date) of the period holding a date at the requested
   * frequency. With it the result also carries the observations before startDate from the period
   * of the last one, however far back that lies (within firstYear).
   */
  predecessorPeriod?: ((date: string) => string) | undefined;
  /** Which versions (versions.ts): the current ones when absent. */
  view?: PointInTimeView | undefined;
}

export interface SeriesRange {
  /** The observations from startDate to endDate, ascending, as the view shows them. */
  points: ViewedPoint[];
  /** Observations before startDate, ascending: every one in the period of the last (empty without predecessorPeriod). */
  before: ViewedPoint[];
  /**
   * The unit of the earliest bucket that has one, of the range's years (with predecessorPeriod,
   * from the year before startDate).
   */
  unit?: string | undefined;
}

export interface CotPageQuery {
  commodityId: string;
  format: CotFormat;
  /** With format, the COT dataset read (`cotDataset`): absent, the format's default scope. Scopes never mix. */
  scope?: CotScope | undefined;
  /** The date range of the commodity's reports in this format (its catalog descriptor); nothing outside is read. */
  firstDate: string;
  lastDate: string;
  startDate?: string | undefined;
  endDate?: string | undefined;
  sortOrder: 'asc' | 'desc';
  skip: number;
  limit: number;
  /** Which versions (versions.ts): the current ones when absent. Total and paging count the view's reports. */
  view?: PointInTimeView | undefined;
}

export interface CotHistoryQuery {
  commodityId: string;
  format: CotFormat;
  /** As CotPageQuery's. */
  scope?: CotScope | undefined;
  /** The format's first report (catalog descriptor). */
  firstDate: string;
  /** Exclusive. */
  before: string;
  count: number;
  /** Which versions (versions.ts): the current ones when absent. */
  view?: PointInTimeView | undefined;
}

export interface SupplyDemandSheetsQuery {
  commodityId: string;
  region: string;
  /** Only this marketing year's sheet (`YYYY/YY`); absent: every marketing year of the region. */
  marketingYear?: string | undefined;
}

export interface CatalogQuery {
  category?: string | undefined;
}

/** Read access, for the query service. Every method may reject; `isDatabaseUnavailable` says when it is transient. */
export interface ReadModelReader {
  /** The listed catalog entries (those a catalog event created), of one category when asked, sorted by `_id`; summary fields and `series` omitted. */
  catalogEntries(query?: CatalogQuery): Promise<CatalogDoc[]>;
  /** The listed catalog entry with this id (without `_meta`), or null. */
  catalogEntry(id: string): Promise<CatalogDoc | null>;
  /**
   * The catalog documents no catalog event created (without `_meta`, with their series
   * descriptors), sorted by `_id`: the series that are no commodity, such as the exchange rates
   * (`FX_EUR_<CCY>`, docs/conversion.md), and series that arrived before their catalog entry.
   */
  unlistedEntries(): Promise<CatalogDoc[]>;
  /** The points of one series between two dates, and what change/pct_change need before them. */
  seriesRange(query: SeriesRangeQuery): Promise<SeriesRange>;
  /** One page of a commodity's COT reports of a format, by report date, with the total. */
  cotPage(query: CotPageQuery): Promise<Page<CotDoc>>;
  /** The latest `count` reports before `before`, ascending (all of them when fewer). */
  cotBefore(query: CotHistoryQuery): Promise<CotDoc[]>;
  /**
   * The balance sheets of a commodity in a region (one marketing year's, or all of them), whole
   * (every version and release; without `_meta`), newest marketing year first.
   */
  supplyDemandSheets(query: SupplyDemandSheetsQuery): Promise<SupplyDemandBucketDoc[]>;
  /** Resolves when the database answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  /**
   * Looks at every read model's alias as a read would (at most one database read per model every
   * ALIAS_CACHE_MS), so a rebuild's swap is noticed (`onCollectionSwap`) by a reader that keeps
   * what it read and so seldom reads the store. Never rejects.
   */
  followSwaps?(): Promise<void>;
}

/** Write access, for the projector and the rebuild. */
export interface ReadModelWriter {
  /**
   * The collection currently serving `name` (it follows a rebuild's swap of the alias within
   * ALIAS_CACHE_MS), with the indexes its adapter queries.
   */
  active<D extends ReadModelDoc>(name: ReadModelName, call?: StoreCall): Promise<ReadModelCollection<D>>;
  /** A given physical collection of `name` (a rebuild's target), with its indexes. */
  collection<D extends ReadModelDoc>(
    name: ReadModelName,
    physical: string,
    call?: StoreCall,
  ): Promise<ReadModelCollection<D>>;
  /** Drops a physical collection and what the adapter keeps beside it (false when the server refused). */
  drop(physical: string, call?: StoreCall): Promise<boolean>;
}

export type AdapterName = 'ferretdb' | 'mongodb';

export interface ReadModelStore extends ReadModelReader, ReadModelWriter {
  /** Which adapter serves (known after the first call: it is chosen from the server's buildInfo). */
  adapter(call?: StoreCall): Promise<AdapterName>;
}
