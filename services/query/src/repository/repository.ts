import type { Category, SortOrder } from '@cds/contracts';
import type { CatalogDoc, CotDoc, SupplyDemandBucketDoc } from '@cds/read-models';
import type {
  CotHistoryQuery,
  CotPageQuery,
  Page,
  ReadModelReader,
  SeriesRange,
  SeriesRangeQuery,
  SupplyDemandSheetsQuery,
} from '@cds/store';
import { matchesSearch } from './search.ts';

export type {
  CotHistoryQuery,
  CotPageQuery,
  Page,
  SeriesRange,
  SeriesRangeQuery,
  SupplyDemandSheetsQuery,
} from '@cds/store';

export interface CatalogPageQuery {
  category?: Category | undefined;
  /** Case-insensitive literal substring of name or symbol; never a pattern or operator. */
  search?: string | undefined;
  sortOrder: SortOrder;
  skip: number;
  limit: number;
}

/**
 * What the handlers read, over the storage port (libs/store `ReadModelReader`). Only catalog
 * documents with `listed: true` are commodities; the others are series that arrived before their
 * catalog entry. Every method may reject with a driver error; the app maps unavailability to 503.
 */
export interface ReadModelRepository {
  listCommodities(query: CatalogPageQuery): Promise<Page<CatalogDoc>>;
  /** The listed catalog document of a commodity, or null. */
  getCommodity(id: string): Promise<CatalogDoc | null>;
  /**
   * The catalog documents that are no commodity, with their series descriptors: the exchange rates
   * (`FX_EUR_<CCY>`, series/rates.ts) and series that arrived before their catalog entry.
   */
  unlistedEntries(): Promise<CatalogDoc[]>;
  /** The observations of a series between two dates, and its predecessor's (see SeriesRangeQuery). */
  readSeries(query: SeriesRangeQuery): Promise<SeriesRange>;
  findCotReports(query: CotPageQuery): Promise<Page<CotDoc>>;
  /**
   * The latest `count` reports of a commodity and format dated before `before` (none before
   * `firstDate`, the format's first report), in ascending date order: all of them when fewer.
   */
  findCotReportsBefore(query: CotHistoryQuery): Promise<CotDoc[]>;
  /** The whole balance sheets of a commodity in a region (one marketing year's, or all), newest marketing year first. */
  supplyDemandSheets(query: SupplyDemandSheetsQuery): Promise<SupplyDemandBucketDoc[]>;
  /** Resolves when the database answers. */
  ping(): Promise<void>;
}

/** The repository over a reader: the list's search and paging here (the catalog is tens of entries), the rest passed through. */
export function createReadModelRepository(reader: ReadModelReader): ReadModelRepository {
  return {
    async listCommodities(q) {
      const matching = (await reader.catalogEntries({ category: q.category }))
        // The user's text is compared as plain text, so `.*` or `$ne` match only themselves.
        .filter((d) => q.search === undefined || matchesSearch(d, q.search));
      if (q.sortOrder === 'desc') matching.reverse();
      return { total: matching.length, items: matching.slice(q.skip, q.skip + q.limit) };
    },
    getCommodity: (id) => reader.catalogEntry(id),
    unlistedEntries: () => reader.unlistedEntries(),
    readSeries: (q) => reader.seriesRange(q),
    findCotReports: (q) => reader.cotPage(q),
    findCotReportsBefore: (q) => reader.cotBefore(q),
    supplyDemandSheets: (q) => reader.supplyDemandSheets(q),
    ping: () => reader.ping(),
  };
}
