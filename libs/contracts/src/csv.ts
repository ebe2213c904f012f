import { z } from 'zod';
import { COT_INCLUDES, type CotInclude } from './params.ts';
import { type CotFormat, type CotScope, defaultCotScope, type SeriesType, type Transform } from './primitives.ts';
import {
  CitCotReport,
  CommoditySummary,
  DisaggregatedCotReport,
  LegacyCotReport,
  PUBLICATION_FIELDS,
  TimeSeriesPoint,
} from './resources.ts';
import { SupplyDemandFigure } from './supply-demand.ts';

/**
 * The CSV form of the data answers (`Accept: text/csv` on the list, series and COT endpoints):
 * one row per item of `data`, a header row first, RFC 4180 (CRLF line ends; a field holding `"`,
 * `,`, CR or LF is quoted with its quotes doubled). `meta` has no place in the rows.
 *
 * Columns come from the contract's schemas, so a field added to a resource appears in its CSV: a
 * column is the path of a leaf field joined with `_` (`commercial.long` → `commercial_long`,
 * `changes.open_interest` → `changes_open_interest`, `cot_index.commercial` → `cot_index_commercial`).
 * The set of columns depends only on the request (format, include, type, transform), never on the
 * data, so every answer to one request shape has the same header.
 *
 * Cells: a number exactly as JSON.stringify prints it (so a parser reads back the JSON's value), a
 * string as it is, null or absent as an empty field. A COT index of null (max = min) and an absent
 * one (fewer than index_weeks reports) are therefore both empty in CSV. Cells are not altered to
 * defuse spreadsheet formulas: a value starting with `-` is a negative number, and the CSV keeps
 * every value exactly as the JSON has it.
 */

/** A CSV column: its header name and the path of the field it reads in an item of `data`. */
export interface CsvColumn {
  readonly name: string;
  readonly path: readonly string[];
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
    s = s.unwrap() as z.ZodType;
  }
  return s;
}

/** The leaf fields of a schema under `prefix`, in the schema's order, as columns. */
function leafColumns(schema: z.ZodType, prefix: readonly string[]): CsvColumn[] {
  const s = unwrap(schema);
  if (!(s instanceof z.ZodObject)) return [{ name: prefix.join('_'), path: prefix }];
  return Object.entries(s.shape as Record<string, z.ZodType>).flatMap(([key, child]) =>
    leafColumns(child, [...prefix, key]),
  );
}

function columnsOf(shape: Record<string, z.ZodType>, keys: readonly string[]): CsvColumn[] {
  const columns = keys.flatMap((key) => leafColumns(shape[key]!, [key]));
  const names = new Set(columns.map((c) => c.name));
  if (names.size !== columns.length) throw new Error(`CSV columns collide: ${columns.map((c) => c.name).join(',')}`);
  return columns;
}

const LIST_COLUMNS: readonly CsvColumn[] = columnsOf(CommoditySummary.shape, Object.keys(CommoditySummary.shape));

/** The columns of GET /commodities: every field of a commodity summary (id, name, symbol, category, exchange, unit). */
export function listCsvColumns(): readonly CsvColumn[] {
  return LIST_COLUMNS;
}

// The publication fields (point in time) and a conversion's rate of each point are JSON only: the CSV keeps its columns.
const JSON_ONLY_POINT_KEYS: readonly string[] = [...PUBLICATION_FIELDS, 'fx_rate', 'fx_rate_date'];
const POINT_KEYS = Object.keys(TimeSeriesPoint.shape).filter(
  (k) => !JSON_ONLY_POINT_KEYS.includes(k),
) as (keyof typeof TimeSeriesPoint.shape)[];
const SERIES_COLUMNS = {
  /** Untransformed price series also carry open, high, low, close and volume (docs/decisions.md). */
  bars: columnsOf(TimeSeriesPoint.shape, POINT_KEYS),
  value: columnsOf(TimeSeriesPoint.shape, ['date', 'value']),
};

/**
 * The columns of GET /commodities/{slug}/series: date and value; an untransformed price series adds
 * open, high, low, close and volume (empty on a point that lacks them), as its JSON points may
 * carry them. With a transform, points carry value only.
 */
export function seriesCsvColumns(request: { type: SeriesType; transform: Transform }): readonly CsvColumn[] {
  return request.type === 'price' && request.transform === 'none' ? SERIES_COLUMNS.bars : SERIES_COLUMNS.value;
}

const COT_LEADING = ['report_date', 'commodity', 'format', 'exchange', 'open_interest'] as const;
/** A combined answer's leading columns: scope follows format (a futures-only CSV keeps its columns). */
const COT_LEADING_SCOPED = ['report_date', 'commodity', 'format', 'scope', 'exchange', 'open_interest'] as const;
const COT_TRAILING = ['source', 'last_updated'] as const;

function cotColumns(shape: Record<string, z.ZodType>) {
  const fixed = new Set<string>([
    ...COT_LEADING_SCOPED,
    ...COT_TRAILING,
    ...COT_INCLUDES,
    ...PUBLICATION_FIELDS,
    'failed_checks',
  ]);
  const groups = Object.keys(shape).filter((k) => !fixed.has(k));
  return {
    leading: columnsOf(shape, [...COT_LEADING, ...groups]),
    leadingScoped: columnsOf(shape, [...COT_LEADING_SCOPED, ...groups]),
    analytics: Object.fromEntries(COT_INCLUDES.map((inc) => [inc, columnsOf(shape, [inc])])) as Record<
      CotInclude,
      CsvColumn[]
    >,
    trailing: columnsOf(shape, COT_TRAILING),
  };
}

const COT_COLUMNS: Record<CotFormat, ReturnType<typeof cotColumns>> = {
  legacy: cotColumns(LegacyCotReport.shape),
  disaggregated: cotColumns(DisaggregatedCotReport.shape),
  cit: cotColumns(CitCotReport.shape),
};

/**
 * The columns of GET /commodities/{slug}/cot: report_date, commodity, format, (scope, in a
 * futures-and-options answer), exchange, open_interest; each trader group of the format flattened (`<group>_long`, `<group>_short`,
 * `<group>_spreading` where the group has it, `<group>_net`); then the included analytics in the
 * order changes, pct_of_oi, cot_index (`changes_open_interest`, `changes_<group>_long`, …,
 * `pct_of_oi_<group>_long`, …, `cot_index_<group>`); last the provenance, source and last_updated.
 */
export function cotCsvColumns(request: {
  format: CotFormat;
  scope?: CotScope | undefined;
  include?: readonly CotInclude[] | undefined;
}) {
  const c = COT_COLUMNS[request.format];
  const included = new Set(request.include ?? []);
  const scoped = (request.scope ?? defaultCotScope(request.format)) !== 'futures_only';
  return [
    ...(scoped ? c.leadingScoped : c.leading),
    ...COT_INCLUDES.filter((i) => included.has(i)).flatMap((i) => c.analytics[i]),
    ...c.trailing,
  ];
}

const SUPPLY_DEMAND_KEYS = ['marketing_year', 'region', 'attribute', 'value', 'unit', 'edition', 'status', 'derived'];
const SUPPLY_DEMAND_COLUMNS = {
  figures: columnsOf(SupplyDemandFigure.shape, SUPPLY_DEMAND_KEYS),
  editions: columnsOf(SupplyDemandFigure.shape, [...SUPPLY_DEMAND_KEYS, 'change']),
};

/**
 * The columns of GET /commodities/{slug}/supply-demand: marketing_year, region, attribute, value,
 * unit, edition, status, derived (true on the derived stocks_to_use, else empty); view=editions
 * adds change (empty at the first edition). The publication instants and revisions are JSON only.
 */
export function supplyDemandCsvColumns(request: { view: 'figures' | 'editions' }): readonly CsvColumn[] {
  return SUPPLY_DEMAND_COLUMNS[request.view];
}

const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One CSV field: null or undefined → empty; a finite number as JSON.stringify prints it (a
 * non-finite one, which JSON prints as null, → empty); a boolean as true/false; a string quoted
 * when it holds `"`, `,`, CR or LF. Anything else (an object, a bigint) is a column that does not
 * point at a leaf: a TypeError.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : '';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
    default:
      throw new TypeError(`a CSV field must be a string, number, boolean or null, not ${typeof value}`);
  }
}

/** One CSV record of fields already formatted by csvField, with its CRLF. */
function record(fields: readonly string[]): string {
  return `${fields.join(',')}\r\n`;
}

function valueAt(item: unknown, path: readonly string[]): unknown {
  let v = item;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** How many rows a chunk of csvChunks holds unless told: about 10-30 KB of CSV for series and COT rows. */
export const DEFAULT_CSV_CHUNK_ROWS = 256;

/**
 * The CSV text of `rows` as a lazy sequence of chunks: the header row alone first (so an answer
 * starts at once), then one chunk per `rowsPerChunk` rows, pulling rows from the iterable only as
 * chunks are asked for. The whole text is never built; `Readable.from(csvChunks(…))` streams it.
 * An empty `rows` gives the header only.
 */
export function* csvChunks(
  columns: readonly CsvColumn[],
  rows: Iterable<unknown>,
  opts: { rowsPerChunk?: number } = {},
): Generator<string, void, undefined> {
  const perChunk = opts.rowsPerChunk ?? DEFAULT_CSV_CHUNK_ROWS;
  if (!Number.isInteger(perChunk) || perChunk < 1) throw new RangeError('rowsPerChunk must be a positive integer');
  yield record(columns.map((c) => csvField(c.name)));
  let chunk = '';
  let n = 0;
  for (const row of rows) {
    chunk += record(columns.map((c) => csvField(valueAt(row, c.path))));
    if (++n === perChunk) {
      yield chunk;
      chunk = '';
      n = 0;
    }
  }
  if (n > 0) yield chunk;
}

/** What a CSV answer holds, for its file name: the endpoint and the request's defining parameters. */
export type CsvFileSubject =
  | { endpoint: 'list'; category?: string | undefined; page?: number | undefined }
  | {
      endpoint: 'series';
      commodity: string;
      type: string;
      frequency?: string | undefined;
      transform?: string | undefined;
      start_date?: string | undefined;
      end_date?: string | undefined;
      /** Point in time: the as_of instant, and first_release (docs/point-in-time.md). */
      as_of?: string | undefined;
      first_release?: boolean | undefined;
      /** Conversion (docs/conversion.md): `EUR`, and the unit asked for (`t`, `USc/bu` written `USc_per_bu`). */
      currency?: string | undefined;
      unit?: string | undefined;
    }
  | {
      endpoint: 'cot';
      commodity: string;
      format: string;
      start_date?: string | undefined;
      end_date?: string | undefined;
      as_of?: string | undefined;
      page?: number | undefined;
    }
  | {
      endpoint: 'supply-demand';
      commodity: string;
      region: string;
      marketing_year?: string | undefined;
      attribute?: string | undefined;
      page?: number | undefined;
    };

/** Longest file name contentDisposition gives, `.csv` included: well inside every file system's limit. */
export const MAX_CSV_FILE_NAME = 120;

/** A file name part of ASCII letters, digits, `.`, `_` and `-` only; any run of other characters becomes `_`. */
function safePart(part: string): string {
  return part.replace(/[^A-Za-z0-9._-]+/g, '_');
}

/** `asof-2025-11-20T235959.999Z`: the instant without its colons (not allowed in Windows file names). */
function asOfPart(asOf: string | undefined): string[] {
  return asOf === undefined ? [] : [`asof-${asOf.replace(/:/g, '')}`];
}

function dateRange(start: string | undefined, end: string | undefined): string[] {
  if (start !== undefined && end !== undefined) return [`${start}_${end}`];
  if (start !== undefined) return [`from-${start}`];
  if (end !== undefined) return [`to-${end}`];
  return [];
}

/**
 * A file name that says what the CSV holds, e.g. `CORN-series-price-2025-01-01_2025-12-31.csv`,
 * `CORN-series-price-weekly-pct_change-2025-01-01_2025-12-31.csv`, `GOLD-cot-legacy-2024-01-01_2024-12-31-page-2.csv`,
 * `commodities-energy.csv`, `CORN-supply-demand-united_states-2026-27-ending_stocks.csv`. Defaults are left out (transform none, page 1); pass the resolved dates
 * of a series (its defaults are a date range too).
 */
export function csvFileName(subject: CsvFileSubject): string {
  const page = (p: number | undefined) => (p !== undefined && p !== 1 ? ['page', String(p)] : []);
  let parts: string[];
  switch (subject.endpoint) {
    case 'list':
      parts = ['commodities', ...(subject.category ? [subject.category] : []), ...page(subject.page)];
      break;
    case 'series':
      parts = [
        subject.commodity,
        'series',
        subject.type,
        ...(subject.frequency ? [subject.frequency] : []),
        ...(subject.transform && subject.transform !== 'none' ? [subject.transform] : []),
        ...dateRange(subject.start_date, subject.end_date),
        ...asOfPart(subject.as_of),
        ...(subject.first_release === true ? ['first-release'] : []),
        ...(subject.currency ? [subject.currency] : []),
        ...(subject.unit ? [`unit-${subject.unit.replace('/', '_per_')}`] : []),
      ];
      break;
    case 'cot':
      parts = [
        subject.commodity,
        'cot',
        subject.format,
        ...dateRange(subject.start_date, subject.end_date),
        ...asOfPart(subject.as_of),
        ...page(subject.page),
      ];
      break;
    case 'supply-demand':
      parts = [
        subject.commodity,
        'supply-demand',
        subject.region,
        // 2026/27 is written 2026-27 (no slash in a file name)
        ...(subject.marketing_year ? [subject.marketing_year.replace('/', '-')] : []),
        ...(subject.attribute ? [subject.attribute] : []),
        ...page(subject.page),
      ];
      break;
  }
  return `${parts.map(safePart).join('-')}.csv`;
}

/**
 * The Content-Disposition of a CSV answer (RFC 6266): `attachment; filename="<name>"`, the name
 * reduced to ASCII letters, digits, `.`, `_` and `-` (so no quoting, escaping or `filename*` is
 * needed and no path or header can be smuggled in), without leading dots, ending in `.csv`, at most
 * MAX_CSV_FILE_NAME characters; `data.csv` when nothing is left.
 */
export function contentDisposition(fileName: string): string {
  let base = safePart(fileName.replace(/\.csv$/i, '')).replace(/^[._-]+/, '');
  if (base === '' || base === '_') base = 'data';
  base = base.slice(0, MAX_CSV_FILE_NAME - '.csv'.length);
  return `attachment; filename="${base}.csv"`;
}
