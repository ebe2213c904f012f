import type {
  CotBucketDoc,
  ProjectionMeta,
  SeriesBucketDoc,
  StoredCotReport,
  StoredPoint,
  StoredFigure,
  StoredRelease,
  SupplyDemandBucketDoc,
} from '@cds/read-models';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * How the FerretDB adapter holds a bucket. The arrays (points or reports) and the per-date part
 * positions are packed as JSON text: FerretDB 1.x stores every value with a type schema beside it
 * and decodes a document whole on each read and update, so a year of points as an array of objects
 * costs about 20 ms a read on 2 cores, and the same year as one string about 1 ms. The adapter only
 * ever reads and writes a bucket whole, by `_id`, so nothing is lost by packing (MongoDB's own
 * time-series collections pack their buckets too). The MongoDB adapter keeps native arrays.
 *
 * The versions (versions.ts) are packed apart: `revised_json` so that a read of the current view
 * neither transfers nor parses the superseded versions, `releases_json` (a few releases a bucket)
 * so that it needs not parse them with the points either.
 *
 * The large texts (points or reports, revised versions, part positions) are deflated (`packText`):
 * FerretDB's cost of reading or replacing a document grows with its bytes (about 0.15 ms a KB on 2
 * cores, read once more for the write claims' revision check), and a year of points deflates to
 * a third. Texts written before that (plain JSON) are read as they are.
 */
export interface PackedMeta extends Omit<ProjectionMeta, 'parts'> {
  /** `parts` as JSON text. */
  parts_json?: string;
}

/** The packed versions of a bucket: absent when the bucket has none. */
export interface PackedVersions {
  /** `revised` as JSON text. */
  revised_json?: string;
  /** `releases` as JSON text. */
  releases_json?: string;
}

export interface PackedSeriesBucketDoc
  extends Omit<SeriesBucketDoc, 'points' | 'revised' | 'releases' | '_meta'>, PackedVersions {
  /** `StoredPoint[]` as JSON text, sorted by date. */
  points_json: string;
  _meta: PackedMeta;
}

export interface PackedCotBucketDoc
  extends Omit<CotBucketDoc, 'reports' | 'revised' | 'releases' | '_meta'>, PackedVersions {
  /** `StoredCotReport[]` as JSON text, sorted by report date. */
  reports_json: string;
  _meta: PackedMeta;
}

export interface PackedSupplyDemandBucketDoc
  extends Omit<SupplyDemandBucketDoc, 'figures' | 'revised' | 'releases' | '_meta'>, PackedVersions {
  /** `StoredFigure[]` as JSON text, sorted by key. */
  figures_json: string;
  _meta: PackedMeta;
}

/** Marks a deflated text: JSON text never starts with it. */
const DEFLATED = 'z:';

/** A value as JSON text, deflated (raw deflate, fastest level) and in base64 behind `z:`. */
export function packText(value: unknown): string {
  return packJson(JSON.stringify(value));
}

/** JSON text, deflated as `packText` deflates it. */
function packJson(json: string): string {
  return DEFLATED + deflateRawSync(json, { level: 1 }).toString('base64');
}

/** The value of a packed text: deflated (`packText`) or plain JSON text (written before deflating). */
export function unpackText<T>(text: string): T {
  if (!text.startsWith(DEFLATED)) return JSON.parse(text) as T;
  return JSON.parse(inflateRawSync(Buffer.from(text.slice(DEFLATED.length), 'base64')).toString()) as T;
}

/**
 * The parts as JSON text with their keys sorted, so the same parts pack to the same text whatever
 * order they were written in: `JSON.stringify` of the parts rebuilt in key order, written here
 * without rebuilding them (a year of daily parts is rewritten on every write of its bucket, and
 * the rebuild cost more than the deflate). The default sort compares as `<` does (UTF-16 code
 * units) and is linear on keys already in order, as a bucket's dates mostly are.
 */
export function sortedPartsJson(parts: Readonly<Record<string, number>>): string {
  const keys = Object.keys(parts).sort();
  let json = '{';
  for (const [i, key] of keys.entries()) {
    if (i > 0) json += ',';
    json += JSON.stringify(key) + ':' + JSON.stringify(parts[key]);
  }
  return json + '}';
}

function packMeta(meta: ProjectionMeta): PackedMeta {
  const { parts, ...rest } = meta;
  if (parts === undefined) return rest;
  return { ...rest, parts_json: packJson(sortedPartsJson(parts)) };
}

function unpackMeta(meta: PackedMeta & { parts?: Record<string, number> }): ProjectionMeta {
  const { parts_json: partsJson, parts, ...rest } = meta;
  if (partsJson !== undefined) return { ...rest, parts: unpackText<Record<string, number>>(partsJson) };
  return parts === undefined ? rest : { ...rest, parts };
}

/** A bucket's points; a document written before packing (a plain `points` array) is read as it is. */
export function unpackPoints(stored: { points_json?: string; points?: StoredPoint[] }): StoredPoint[] {
  return typeof stored.points_json === 'string' ? unpackText<StoredPoint[]>(stored.points_json) : (stored.points ?? []);
}

/** A bucket's reports; a document written before packing (a plain `reports` array) is read as it is. */
export function unpackReports(stored: { reports_json?: string; reports?: StoredCotReport[] }): StoredCotReport[] {
  return typeof stored.reports_json === 'string'
    ? unpackText<StoredCotReport[]>(stored.reports_json)
    : (stored.reports ?? []);
}

/** A bucket's superseded versions, packed or not (absent: none). */
export function unpackRevised<T>(stored: { revised_json?: string; revised?: T[] }): T[] | undefined {
  return typeof stored.revised_json === 'string' ? unpackText<T[]>(stored.revised_json) : stored.revised;
}

/** A bucket's releases, packed or not (absent: none, or written before versions were kept). */
export function unpackReleases(stored: {
  releases_json?: string;
  releases?: StoredRelease[];
}): StoredRelease[] | undefined {
  return typeof stored.releases_json === 'string'
    ? (JSON.parse(stored.releases_json) as StoredRelease[])
    : stored.releases;
}

function packVersions(doc: { revised?: unknown[]; releases?: StoredRelease[] }): PackedVersions {
  return {
    ...(doc.revised === undefined ? {} : { revised_json: packText(doc.revised) }),
    ...(doc.releases === undefined ? {} : { releases_json: JSON.stringify(doc.releases) }),
  };
}

function unpackVersions<T>(stored: PackedVersions & { revised?: T[]; releases?: StoredRelease[] }): {
  revised?: T[];
  releases?: StoredRelease[];
} {
  const revised = unpackRevised(stored);
  const releases = unpackReleases(stored);
  return { ...(revised === undefined ? {} : { revised }), ...(releases === undefined ? {} : { releases }) };
}

export function packSeriesBucket(doc: SeriesBucketDoc): PackedSeriesBucketDoc {
  const { points, revised: _revised, releases: _releases, _meta, ...rest } = doc;
  return { ...rest, points_json: packText(points), ...packVersions(doc), _meta: packMeta(_meta) };
}

export function unpackSeriesBucket(stored: PackedSeriesBucketDoc): SeriesBucketDoc {
  const {
    points_json: _packed,
    revised_json: _revised,
    releases_json: _releases,
    _meta,
    ...rest
  } = stored as PackedSeriesBucketDoc & { points?: StoredPoint[]; revised?: StoredPoint[]; releases?: StoredRelease[] };
  return { ...rest, points: unpackPoints(stored), ...unpackVersions<StoredPoint>(stored), _meta: unpackMeta(_meta) };
}

export function packCotBucket(doc: CotBucketDoc): PackedCotBucketDoc {
  const { reports, revised: _revised, releases: _releases, _meta, ...rest } = doc;
  return { ...rest, reports_json: packText(reports), ...packVersions(doc), _meta: packMeta(_meta) };
}

export function unpackCotBucket(stored: PackedCotBucketDoc): CotBucketDoc {
  const {
    reports_json: _packed,
    revised_json: _revised,
    releases_json: _releases,
    _meta,
    ...rest
  } = stored as PackedCotBucketDoc & {
    reports?: StoredCotReport[];
    revised?: StoredCotReport[];
    releases?: StoredRelease[];
  };
  return {
    ...rest,
    reports: unpackReports(stored),
    ...unpackVersions<StoredCotReport>(stored),
    _meta: unpackMeta(_meta),
  };
}

export function packSupplyDemandBucket(doc: SupplyDemandBucketDoc): PackedSupplyDemandBucketDoc {
  const { figures, revised: _revised, releases: _releases, _meta, ...rest } = doc;
  return { ...rest, figures_json: packText(figures), ...packVersions(doc), _meta: packMeta(_meta) };
}

/** A packed sheet as it is stored (`_meta` absent when the read left it out). */
export function unpackSupplyDemandBucket(
  stored: Omit<PackedSupplyDemandBucketDoc, '_meta'> & { _meta?: PackedMeta },
): SupplyDemandBucketDoc {
  const { figures_json: packed, revised_json: _revised, releases_json: _releases, _meta, ...rest } = stored;
  return {
    ...rest,
    figures: unpackText<StoredFigure[]>(packed),
    ...unpackVersions<StoredFigure>(stored),
    ...(_meta === undefined ? {} : { _meta: unpackMeta(_meta) }),
  } as SupplyDemandBucketDoc;
}
