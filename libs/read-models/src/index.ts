import type {
  AvailableSeriesType,
  CatalogIdentifiers,
  Category,
  CotCheck,
  CotDataset,
  CotFormat,
  CotScope,
  Frequency,
  PriceBasis,
  SeriesType,
  SupplyDemandCheck,
  SupplyDemandStatus,
} from '@cds/contracts';
import type { StoredRelease, Versioned } from './versions.ts';

export * from './versions.ts';

/**
 * The read models' documents: written only by the projector, read only by the query service, both
 * through the storage port of libs/store (which decides how a server holds them). Field names are
 * the wire names where they are served as-is.
 */

/** Where a document was last written from: the stream sequence and the projection version. */
export interface ProjectionMeta {
  /** JetStream stream sequence of the last event applied to this document. */
  position: number;
  version: number;
  /**
   * Write counter used by the projector for compare-and-set (optional: absent on documents
   * written before it existed). Readers can ignore it.
   */
  rev?: number;
  /**
   * Stream position that last wrote each part of the document (for example each point date of a
   * series bucket), so events applied out of order merge as per-part last-writer-wins. Readers
   * can ignore it.
   */
  parts?: Record<string, number>;
}

export const COLLECTIONS = {
  catalog: 'catalog',
  series: 'series',
  cot: 'cot',
  supply_demand: 'supply_demand',
  /** Events that failed their schema, parked by the projector (also published on a dead-letter subject). */
  parked: 'parked_events',
  /** Which physical collection currently serves each read model (see ReadModelAliasDoc). */
  aliases: 'read_model_aliases',
} as const;

export type ReadModelName = 'catalog' | 'series' | 'cot' | 'supply_demand';

/**
 * A rebuilt read model lives in a fresh collection (e.g. `series_rebuild_1718000000000`); the swap
 * is a write of this pointer document, `_id` the read model name. With no pointer document the
 * read model is served from its default collection (`COLLECTIONS[name]`). Readers resolve it with
 * `activeCollection` and may cache it for at most ALIAS_CACHE_MS. (FerretDB 1.x has no
 * renameCollection with dropTarget, so the swap cannot be a rename.)
 */
export interface ReadModelAliasDoc {
  _id: ReadModelName;
  collection: string;
  swapped_at: string;
  /** Last stream sequence the rebuild had applied when it swapped. */
  position: number;
}

/** Longest time a reader or writer may cache an alias; a rebuild keeps the old collection readable at least this long after the swap. */
export const ALIAS_CACHE_MS = 1_000;

/** The physical collection serving `name`, given its pointer document (or null when there is none). */
export function activeCollection(
  name: ReadModelName,
  alias: Pick<ReadModelAliasDoc, 'collection'> | null | undefined,
): string {
  return alias?.collection ?? COLLECTIONS[name];
}

/** A series descriptor as kept on the catalog document, keyed by descriptor type. */
export interface StoredSeriesDescriptor {
  type: AvailableSeriesType;
  frequency: Frequency;
  first_date: string;
  last_date: string;
  unit?: string;
  /** Provenance of the series (`eia:RWTC`, `cftc:legacy:067651`, `demo`...), from its newest event. */
  source?: string;
  /** What a price series is (`spot`, `monthly_average`...), from its newest event. */
  price_basis?: PriceBasis;
  /** Latest `occurred_at` (ingest time) of the events that carried data of the series. */
  last_updated?: string;
  /**
   * The earliest publication time of the series' releases (`toISOString()` text): an `as_of`
   * before it is refused. Absent on descriptors written before versions were kept.
   */
  first_published_at?: string;
  /** supply_demand only: the regions the commodity has balance sheets for, sorted. */
  regions?: string[];
}

/** A commodity's official identifiers (the catalog entry's `identifiers`: one list per source with identifiers). */
export type StoredIdentifiers = CatalogIdentifiers;

/** catalog: one document per commodity; `_id` is the commodity id. */
export interface CatalogDoc {
  _id: string;
  id: string;
  name: string;
  symbol?: string;
  category: Category;
  exchange?: string;
  unit?: string;
  description?: string;
  contract_size?: string;
  tick_size?: number;
  identifiers?: StoredIdentifiers;
  /** Why the commodity has no price series (no free official source). */
  price_note?: string;
  /** Known only once a catalog event arrived; series may arrive first (then name etc. are absent). */
  listed: boolean;
  series: Record<string, StoredSeriesDescriptor>;
  _meta: ProjectionMeta;
}

/**
 * One stored observation: `v` value (close for prices); o/h/l/c/vol for price series; `r` its
 * release in the bucket's `releases` (versions.ts).
 */
export interface StoredPoint extends Versioned {
  d: string;
  v: number;
  o?: number;
  h?: number;
  l?: number;
  c?: number;
  vol?: number;
}

/**
 * series: one bucket per commodity, type and calendar year, points sorted by date, so a one-year
 * query reads one or two documents. `_id` is `${commodity_id}:${type}:${year}`.
 */
export interface SeriesBucketDoc {
  _id: string;
  commodity_id: string;
  type: SeriesType;
  year: number;
  frequency: Frequency;
  unit?: string;
  first_date: string;
  last_date: string;
  count: number;
  /** The version in force now of each observation (versions.ts: `current`). */
  points: StoredPoint[];
  /** Superseded versions, by date then publication time (absent: none, or written before versions). */
  revised?: StoredPoint[];
  /** The releases that carried the bucket's points, by publication time (the points' `r`). */
  releases?: StoredRelease[];
  /** Provenance of the bucket's points, from its newest event (absent when the events carry none). */
  source?: string;
  /** Latest `occurred_at` of the events that carried points of this bucket. */
  last_updated?: string;
  _meta: ProjectionMeta;
}

/** The year of a YYYY-MM-DD date: the bucket a dated item belongs in. */
export function yearOf(date: string): number {
  return Number(date.slice(0, 4));
}

export function seriesBucketId(commodityId: string, type: string, year: number): string {
  return `${commodityId}:${type}:${year}`;
}

/** Raw positions as stored; net is computed on read (never trusted from a source). */
export interface StoredGroup {
  long: number;
  short: number;
  spreading?: number;
}

/** One COT report as stored in its bucket: raw positions, net computed on read; `r` its release. */
export interface StoredCotReport extends Versioned {
  report_date: string;
  exchange?: string;
  open_interest: number;
  groups: Record<string, StoredGroup>;
  /** Provenance of the report (`cftc:legacy:067651`, `demo`), from the event that wrote it. */
  source?: string;
  /** `occurred_at` (ingest time) of the event that wrote the report. */
  last_updated?: string;
  /** The consistency checks the report failed (the source row's own and the cross-report ones); absent: none. */
  failed_checks?: CotCheck[];
}

/**
 * cot: one bucket per commodity, COT dataset (a format in a scope) and calendar year, reports
 * sorted by date. `_id` is `${commodity_id}:${dataset}:${year}` (a futures-only dataset is named as
 * its format: `CORN:legacy:2025`, `CORN:legacy_combined:2025`, `CORN:cit:2025`).
 */
export interface CotBucketDoc {
  _id: string;
  commodity_id: string;
  format: CotFormat;
  /** Absent: futures_only (every bucket written before scopes). */
  scope?: CotScope;
  year: number;
  first_date: string;
  last_date: string;
  count: number;
  /** The version in force now of each report. */
  reports: StoredCotReport[];
  /** Superseded versions, by report date then publication time. */
  revised?: StoredCotReport[];
  /** The releases that carried the bucket's reports, by publication time (the reports' `r`). */
  releases?: StoredRelease[];
  _meta: ProjectionMeta;
}

export function cotBucketId(commodityId: string, dataset: CotDataset, year: number): string {
  return `${commodityId}:${dataset}:${year}`;
}

/**
 * A COT report as the query service pages it: one report of a bucket, with its commodity and
 * format, the release that published it and, when the view asks for revisions, the versions before it.
 */
export interface CotDoc extends StoredCotReport {
  commodity_id: string;
  format: CotFormat;
  scope?: CotScope | undefined;
  release?: StoredRelease | undefined;
  earlier?: (StoredCotReport & { release?: StoredRelease | undefined })[] | undefined;
}

/**
 * One figure of a balance sheet as stored: `k` its key within the sheet (`supplyDemandFigureKey`:
 * attribute and unit, the item's "date" in versions.ts terms), `r` the release that published it.
 */
export interface StoredFigure extends Versioned {
  k: string;
  /** The attribute (snake_case of the row name). */
  a: string;
  /** The unit as USDA states it. */
  u: string;
  v: number;
  /** What the marketing year's column was in the edition that published this version. */
  s: SupplyDemandStatus;
  /** The checks the balance sheet failed in that release (absent: none). */
  x?: SupplyDemandCheck[];
}

/**
 * supply_demand: one balance sheet per commodity, region and marketing year, every edition that
 * carried it a release (its edition the New York month of the release's `p`, `editionOf`). `_id`
 * is `supplyDemandBucketId(commodity, region, marketing year)`: `CORN:united_states:2026/27`.
 */
export interface SupplyDemandBucketDoc {
  _id: string;
  commodity_id: string;
  region: string;
  marketing_year: string;
  /** The version in force now of each figure, sorted by `k`. */
  figures: StoredFigure[];
  /** Superseded versions, by `k` then publication time. */
  revised?: StoredFigure[];
  /** The releases (editions, re-posts) that carried the sheet, by publication time (the figures' `r`). */
  releases?: StoredRelease[];
  /** Provenance of the newest release (`<source>:<file>`). */
  source?: string;
  /** Latest `occurred_at` of the events that carried the sheet. */
  last_updated?: string;
  _meta: ProjectionMeta;
}

/**
 * Core NATS subject on which the projector announces that it applied data for a commodity, so
 * query replicas can drop cached responses for it: `cds.projected.<projection>.<commodity_id>`.
 */
export const PROJECTED_SUBJECT_PREFIX = 'cds.projected';
export function projectedSubject(projection: ReadModelName, commodityId: string): string {
  return `${PROJECTED_SUBJECT_PREFIX}.${projection}.${commodityId}`;
}
