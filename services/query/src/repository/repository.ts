import type { Category, CotFormat, SeriesType, SortOrder } from '@cds/contracts';
import type { CatalogDoc, CotDoc, StoredPoint } from '@cds/read-models';

export interface CatalogPageQuery {
  category?: Category | undefined;
  /** Case-insensitive literal substring of name or symbol; never a pattern or operator. */
  search?: string | undefined;
  sortOrder: SortOrder;
  skip: number;
  limit: number;
}

export interface CotPageQuery {
  commodityId: string;
  format: CotFormat;
  /** The date range of the commodity's reports in this format (its catalog descriptor). */
  firstDate: string;
  lastDate: string;
  startDate?: string | undefined;
  endDate?: string | undefined;
  sortOrder: SortOrder;
  skip: number;
  limit: number;
}

export interface CotHistoryQuery {
  commodityId: string;
  format: CotFormat;
  firstDate: string;
  before: string;
  count: number;
}

/** The part of a series bucket the query service reads. */
export interface SeriesBucket {
  year: number;
  unit?: string | undefined;
  points: StoredPoint[];
}

export interface Page<T> {
  total: number;
  items: T[];
}

/**
 * Read access to the read models (libs/read-models shapes). Only catalog documents with
 * `listed: true` are commodities; the others are series that arrived before their catalog entry.
 * Every method may reject with a driver error; the app maps unavailability to 503.
 */
export interface ReadModelRepository {
  listCommodities(query: CatalogPageQuery): Promise<Page<CatalogDoc>>;
  /** The listed catalog document of a commodity, or null. */
  getCommodity(id: string): Promise<CatalogDoc | null>;
  /** The buckets of the given years that exist, in any order. */
  getSeriesBuckets(commodityId: string, type: SeriesType, years: readonly number[]): Promise<SeriesBucket[]>;
  /** Up to `count` non-empty buckets with a year before `year` (down to `firstYear`, the series' first), latest first. */
  getSeriesBucketsBefore(
    commodityId: string,
    type: SeriesType,
    year: number,
    count: number,
    firstYear: number,
  ): Promise<SeriesBucket[]>;
  findCotReports(query: CotPageQuery): Promise<Page<CotDoc>>;
  /**
   * The latest `count` reports of a commodity and format dated before `before` (none before
   * `firstDate`, the format's first report), in ascending date order: all of them when fewer.
   */
  findCotReportsBefore(query: CotHistoryQuery): Promise<CotDoc[]>;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
}
