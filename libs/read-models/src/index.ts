import type { Category, CotFormat, Frequency, SeriesType } from '@cds/contracts';

/**
 * The MongoDB read models: written only by the projector, read only by the query service.
 * Field names are the wire names where they are served as-is. Everything here works on
 * FerretDB 1.x too (plain documents, single and compound indexes, no transactions).
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
  /** Events that failed their schema, parked by the projector (also published on a dead-letter subject). */
  parked: 'parked_events',
  /** Which physical collection currently serves each read model (see ReadModelAliasDoc). */
  aliases: 'read_model_aliases',
} as const;

export type ReadModelName = 'catalog' | 'series' | 'cot';

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
  type: SeriesType | 'cot_legacy' | 'cot_disaggregated';
  frequency: Frequency;
  first_date: string;
  last_date: string;
  unit?: string;
  /** Provenance of the series (`eia:RWTC`, `cftc:legacy:067651`, `demo`...), from its newest event. */
  source?: string;
  /** Latest `occurred_at` (ingest time) of the events that carried data of the series. */
  last_updated?: string;
}

/** A commodity's official identifiers (the catalog entry's `identifiers`). */
export interface StoredIdentifiers {
  cftc_contract_codes: string[];
  eia_series: string[];
  nass_items: string[];
}

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
  /** Known only once a catalog event arrived; series may arrive first (then name etc. are absent). */
  listed: boolean;
  series: Record<string, StoredSeriesDescriptor>;
  _meta: ProjectionMeta;
}

/** One stored observation: `v` value (close for prices); o/h/l/c/vol for price series. */
export interface StoredPoint {
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
  points: StoredPoint[];
  /** Provenance of the bucket's points, from its newest event (absent when the events carry none). */
  source?: string;
  /** Latest `occurred_at` of the events that carried points of this bucket. */
  last_updated?: string;
  _meta: ProjectionMeta;
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

/** One COT report as stored in its bucket: raw positions, net computed on read. */
export interface StoredCotReport {
  report_date: string;
  exchange?: string;
  open_interest: number;
  groups: Record<string, StoredGroup>;
  /** Provenance of the report (`cftc:legacy:067651`, `demo`), from the event that wrote it. */
  source?: string;
  /** `occurred_at` (ingest time) of the event that wrote the report. */
  last_updated?: string;
}

/**
 * cot: one bucket per commodity, format and calendar year, reports sorted by date, so a page is a
 * few reads by `_id` (FerretDB scans for anything else; see docs/architecture.md).
 * `_id` is `${commodity_id}:${format}:${year}`.
 */
export interface CotBucketDoc {
  _id: string;
  commodity_id: string;
  format: CotFormat;
  year: number;
  first_date: string;
  last_date: string;
  count: number;
  reports: StoredCotReport[];
  _meta: ProjectionMeta;
}

export function cotBucketId(commodityId: string, format: string, year: number): string {
  return `${commodityId}:${format}:${year}`;
}

/** A COT report as the query service pages it: one report of a bucket, with its commodity and format. */
export interface CotDoc extends StoredCotReport {
  commodity_id: string;
  format: CotFormat;
}

/**
 * How MongoDB holds a bucket. The arrays (points or reports) and the per-date part positions are
 * packed as JSON text: FerretDB 1.x stores every value with a type schema beside it and decodes a
 * document whole on each read and update, so a year of points as an array of objects costs about
 * 20 ms a read on 2 cores, and the same year as one string about 1 ms. A bucket is only ever read
 * and written whole, by `_id`, so nothing is lost by packing (MongoDB's own time-series
 * collections pack their buckets too). Use `packSeriesBucket`/`unpackSeriesBucket` (and the cot
 * pair) at the database boundary; everything else sees `SeriesBucketDoc`/`CotBucketDoc`.
 */
export interface PackedMeta extends Omit<ProjectionMeta, 'parts'> {
  /** `parts` as JSON text. */
  parts_json?: string;
}

export interface PackedSeriesBucketDoc extends Omit<SeriesBucketDoc, 'points' | '_meta'> {
  /** `StoredPoint[]` as JSON text, sorted by date. */
  points_json: string;
  _meta: PackedMeta;
}

export interface PackedCotBucketDoc extends Omit<CotBucketDoc, 'reports' | '_meta'> {
  /** `StoredCotReport[]` as JSON text, sorted by report date. */
  reports_json: string;
  _meta: PackedMeta;
}

function packMeta(meta: ProjectionMeta): PackedMeta {
  const { parts, ...rest } = meta;
  if (parts === undefined) return rest;
  // Keys sorted, so the same parts pack to the same text whatever order they were written in.
  const sorted = Object.fromEntries(Object.entries(parts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { ...rest, parts_json: JSON.stringify(sorted) };
}

function unpackMeta(meta: PackedMeta & { parts?: Record<string, number> }): ProjectionMeta {
  const { parts_json: partsJson, parts, ...rest } = meta;
  if (partsJson !== undefined) return { ...rest, parts: JSON.parse(partsJson) as Record<string, number> };
  return parts === undefined ? rest : { ...rest, parts };
}

/** A bucket's points; a document written before packing (a plain `points` array) is read as it is. */
export function unpackPoints(stored: { points_json?: string; points?: StoredPoint[] }): StoredPoint[] {
  return typeof stored.points_json === 'string'
    ? (JSON.parse(stored.points_json) as StoredPoint[])
    : (stored.points ?? []);
}

/** A bucket's reports; a document written before packing (a plain `reports` array) is read as it is. */
export function unpackReports(stored: { reports_json?: string; reports?: StoredCotReport[] }): StoredCotReport[] {
  return typeof stored.reports_json === 'string'
    ? (JSON.parse(stored.reports_json) as StoredCotReport[])
    : (stored.reports ?? []);
}

export function packSeriesBucket(doc: SeriesBucketDoc): PackedSeriesBucketDoc {
  const { points, _meta, ...rest } = doc;
  return { ...rest, points_json: JSON.stringify(points), _meta: packMeta(_meta) };
}

export function unpackSeriesBucket(stored: PackedSeriesBucketDoc): SeriesBucketDoc {
  const { points_json: _packed, _meta, ...rest } = stored as PackedSeriesBucketDoc & { points?: StoredPoint[] };
  return { ...rest, points: unpackPoints(stored), _meta: unpackMeta(_meta) };
}

export function packCotBucket(doc: CotBucketDoc): PackedCotBucketDoc {
  const { reports, _meta, ...rest } = doc;
  return { ...rest, reports_json: JSON.stringify(reports), _meta: packMeta(_meta) };
}

export function unpackCotBucket(stored: PackedCotBucketDoc): CotBucketDoc {
  const { reports_json: _packed, _meta, ...rest } = stored as PackedCotBucketDoc & { reports?: StoredCotReport[] };
  return { ...rest, reports: unpackReports(stored), _meta: unpackMeta(_meta) };
}

export interface IndexSpec {
  key: Record<string, 1 | -1>;
  name: string;
  unique?: boolean;
}

/** Indexes matching every query shape of the query service. */
export const INDEXES: Readonly<Record<'catalog' | 'series' | 'cot', readonly IndexSpec[]>> = {
  catalog: [{ key: { category: 1, _id: 1 }, name: 'category_id' }],
  series: [{ key: { commodity_id: 1, type: 1, year: 1 }, name: 'commodity_type_year', unique: true }],
  cot: [{ key: { commodity_id: 1, format: 1, year: 1 }, name: 'commodity_format_year', unique: true }],
};

/**
 * Core NATS subject on which the projector announces that it applied data for a commodity, so
 * query replicas can drop cached responses for it: `cds.projected.<projection>.<commodity_id>`.
 */
export const PROJECTED_SUBJECT_PREFIX = 'cds.projected';
export function projectedSubject(projection: 'catalog' | 'series' | 'cot', commodityId: string): string {
  return `${PROJECTED_SUBJECT_PREFIX}.${projection}.${commodityId}`;
}
