import type { CatalogIndex, CommodityDefinition } from '../../catalog/index.ts';
import { byPinkSheetCode } from './lookup.ts';
import { worldbankOf, type WorldBankMapping } from './mapping.ts';
import type { SourceItem } from '../types.ts';
import { rejected, seriesItem, type ParseOptions } from '../common/records.ts';
import { statedDayStamp } from '../common/published.ts';
import { countSkip } from '../common/stats.ts';
import { isMissing, monthNumber, readDecimal } from '../common/values.ts';
import { monthEnd } from '../common/periods.ts';
import { normalizeSeriesName, PINK_SHEET_NAMES } from './names.ts';
import { readXlsxSheet, XlsxError, type XlsxSheet, type XlsxValue } from './xlsx.ts';
import { ZipGuardError } from '../common/zip-guard.ts';

/** The sheet of the Pink Sheet workbook (CMO-Historical-Data-Monthly.xlsx) that holds the prices. */
export const PINK_SHEET_SHEET = 'Monthly Prices';

/**
 * Bounds on an untrusted workbook, fitted to the real one with margin: the Pink Sheet is 0.6-0.8 MB,
 * about 30 entries, its "Monthly Prices" sheet 2.4-4 MB unpacked (6 MB in all), ~800 rows by 89
 * columns, ~1,100 shared strings. docs/sources.md lists what is refused.
 */
export const PINK_SHEET_LIMITS = {
  maxBytes: 8 * 1024 * 1024,
  maxEntryBytes: 10 * 1024 * 1024,
  maxUnzippedBytes: 16 * 1024 * 1024,
  maxEntries: 200,
  maxRows: 5_000,
  maxColumns: 500,
  maxSharedStrings: 50_000,
  /** The header (notes, names, units, codes) must end within these rows. */
  headerRows: 30,
} as const;

/** A workbook we do not read: too large, not an .xlsx, or a changed layout. Nothing is published. */
export class WorldBankFileError extends Error {
  override readonly name = 'WorldBankFileError';
}

/** Bytes of the workbook: a buffer, or a stream of chunks (read whole, up to `maxBytes`). */
export type XlsxInput = Uint8Array | AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

/** What the parser learnt about the file (pass one in to read it, like ParseStats). */
export interface WorldBankFileInfo {
  /** The "Updated on <date>" note (row 4) as YYYY-MM-DD: the vintage of the file. */
  vintage?: string;
  /** `codes`: columns found by the codes row (row 7); `names`: by the names row (no codes row). */
  layout?: 'codes' | 'names';
  /** Newest period read, e.g. 2025M11. */
  lastPeriod?: string;
}

export interface WorldBankOptions extends ParseOptions {
  /** Largest file read (default 20 MB). */
  maxBytes?: number;
  info?: WorldBankFileInfo;
}

interface MappedColumn {
  commodity: CommodityDefinition;
  series: WorldBankMapping;
  column: number;
}

/** A workbook whose layout was checked: the vintage, and its items (read on demand). */
export interface WorldBankWorkbook {
  vintage: string | undefined;
  layout: 'codes' | 'names';
  items(): Generator<SourceItem>;
  /** The same items as an async iterable (what the ingest pipeline takes). */
  stream(): AsyncGenerator<SourceItem>;
}

const PERIOD = /^(\d{4})M(\d{2})$/;
const CODE_LIKE = /^[A-Za-z][A-Za-z0-9_]*$/;
/** The Pink Sheet's "no value": `…` (U+2026) and `...` today, `..` in the 2022 vintages. */
const PINK_MISSING = new Set(['…', '...', '..']);

/** The text of a cell (rich text joined, a formula's result), or undefined for a number or nothing. */
function cellText(v: XlsxValue | undefined): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** The value at row r, column col of the sheet. */
const cellAt = (ws: XlsxSheet, r: number, col: number): XlsxValue | undefined => ws.rows.get(r)?.[col];

/** The date of an "Updated on December 02, 2025" note, as 2025-12-02; undefined if there is none. */
export function readPinkSheetVintage(text: string): string | undefined {
  const m = /Updated on\s+([A-Za-z]+)\s+(\d{1,2}),?\s+(\d{4})/i.exec(text);
  if (!m) return undefined;
  const month = monthNumber(m[1]!);
  const day = Number(m[2]);
  if (month === undefined || day < 1 || day > 31) return undefined;
  return `${m[3]}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** `1960M01` → `1960-01-31` (a monthly average is dated at the month's last day, as EIA monthly). */
export function pinkSheetPeriodDate(period: string): string | undefined {
  const m = PERIOD.exec(period.trim());
  if (!m) return undefined;
  const month = Number(m[2]);
  return month >= 1 && month <= 12 ? monthEnd(Number(m[1]), month) : undefined;
}

async function readBounded(input: XlsxInput, maxBytes: number, file: string): Promise<Buffer> {
  const tooLarge = () =>
    new WorldBankFileError(
      `worldbank: ${file} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB (the Pink Sheet is under 1 MB): not read`,
    );
  if (input instanceof Uint8Array) {
    if (input.byteLength > maxBytes) throw tooLarge();
    return Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  }
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    if (typeof chunk === 'string') throw new WorldBankFileError(`worldbank: ${file} is text, not an .xlsx workbook`);
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    parts.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(parts, size);
}

/** Every catalog series mapped onto a Pink Sheet code. */
function mappedSeries(catalog: CatalogIndex): { commodity: CommodityDefinition; series: WorldBankMapping }[] {
  return catalog.commodities.flatMap((commodity) =>
    (worldbankOf(commodity)?.series ?? []).map((series) => ({ commodity, series })),
  );
}

/** The non-empty text cells of a row from column B on, by column. */
function headerCells(ws: XlsxSheet, row: number, maxColumns: number): Map<number, string> {
  const out = new Map<number, string>();
  const r = ws.rows.get(row) ?? [];
  for (let col = 2; col <= Math.min(r.length - 1, maxColumns); col++) {
    const text = cellText(r[col])?.trim();
    if (text) out.set(col, text);
  }
  return out;
}

interface Layout {
  layout: 'codes' | 'names';
  firstDataRow: number;
  unitsRow: number;
  columns: MappedColumn[];
  /** Header cells of columns we do not map (counted once each as unknown_series). */
  unmapped: number;
}

/**
 * Finds the columns of the mapped series: by the codes row (the row above the data whose cells all
 * look like codes and include a mapped one; row 7 today), its units in the row above; or, for a
 * workbook without codes (the 2022 layout), by the names row with the units row under it. Every
 * mapped code must be there, with the unit the mapping expects: anything else is a layout change.
 */
function locateColumns(ws: XlsxSheet, catalog: CatalogIndex, file: string): Layout {
  const nothing = `; nothing was read from ${file}`;
  const fail = (msg: string) => new WorldBankFileError(`worldbank: ${msg}${nothing}`);
  const limits = PINK_SHEET_LIMITS;
  let firstDataRow = 0;
  for (let r = 1; r <= Math.min(limits.headerRows, ws.rowCount); r++) {
    if (PERIOD.test(cellText(cellAt(ws, r, 1))?.trim() ?? '')) {
      firstDataRow = r;
      break;
    }
  }
  if (firstDataRow === 0)
    throw fail(
      `the "${PINK_SHEET_SHEET}" sheet has no data row (a period such as 1960M01 in column A) in its first ${limits.headerRows} rows`,
    );
  const wanted = mappedSeries(catalog);

  let codesRow = 0;
  let header = new Map<number, string>();
  for (let r = firstDataRow - 1; r >= 1; r--) {
    const cells = headerCells(ws, r, limits.maxColumns);
    const texts = [...cells.values()];
    if (texts.length > 0 && texts.every((t) => CODE_LIKE.test(t)) && texts.some((t) => byPinkSheetCode(catalog, t))) {
      codesRow = r;
      header = cells;
      break;
    }
  }

  const columns: MappedColumn[] = [];
  const missing: string[] = [];
  let unitsRow: number;
  let layout: 'codes' | 'names';
  if (codesRow > 1) {
    layout = 'codes';
    unitsRow = codesRow - 1;
    const byCode = new Map<string, number>();
    for (const [col, code] of header) {
      const key = code.toUpperCase();
      if (byCode.has(key)) throw fail(`the "${PINK_SHEET_SHEET}" sheet has two columns ${code} (row ${codesRow})`);
      byCode.set(key, col);
    }
    for (const w of wanted) {
      const col = byCode.get(w.series.code.toUpperCase());
      if (col === undefined) missing.push(w.series.code);
      else columns.push({ ...w, column: col });
    }
  } else {
    // No codes row: the row above the data must hold units, the one above it the names.
    layout = 'names';
    unitsRow = firstDataRow - 1;
    const units = [...headerCells(ws, unitsRow, limits.maxColumns).values()];
    if (firstDataRow < 3 || units.length === 0 || !units.every((u) => /^\(.*\)$/.test(u)))
      throw fail(
        `the "${PINK_SHEET_SHEET}" sheet has neither a codes row (series codes such as GOLD above the data) nor a names row over a units row`,
      );
    header = headerCells(ws, firstDataRow - 2, limits.maxColumns);
    const byName = new Map<string, number>();
    for (const [col, name] of header) byName.set(normalizeSeriesName(name), col);
    for (const w of wanted) {
      const name = PINK_SHEET_NAMES[w.series.code.toUpperCase()];
      const col = name === undefined ? undefined : byName.get(normalizeSeriesName(name));
      if (col === undefined) missing.push(`${w.series.code} ("${name ?? 'no known name'}")`);
      else columns.push({ ...w, column: col });
    }
  }
  if (missing.length > 0) throw fail(`the "${PINK_SHEET_SHEET}" sheet has no column ${missing.join(', ')} (renamed?)`);

  const changed: string[] = [];
  for (const c of columns) {
    const unit = cellText(cellAt(ws, unitsRow, c.column))?.trim() ?? '';
    if (unit !== c.series.source_unit)
      changed.push(`the unit of ${c.series.code} in row ${unitsRow} is "${unit}", expected "${c.series.source_unit}"`);
  }
  if (changed.length > 0) throw fail(`${changed.join('; ')} (the publisher changed it?)`);
  return { layout, firstDataRow, unitsRow, columns, unmapped: header.size - columns.length };
}

/** The value of one cell: a number, missing, or a reason to reject it. */
function cellNumber(v: XlsxValue | undefined): { value: number } | { missing: true } | { bad: string } {
  if (typeof v === 'number') return Number.isFinite(v) ? { value: v } : { bad: `value is not a number "${v}"` };
  if (v === undefined) return { missing: true };
  if (typeof v === 'object' && 'error' in v) return { bad: `the cell holds ${v.error}` };
  if (typeof v === 'object') return { bad: 'the cell holds a formula without a value' };
  const text = cellText(v);
  if (text === undefined) return { bad: `value is not a number (${typeof v})` };
  const s = text.trim();
  if (PINK_MISSING.has(s) || isMissing(s)) return { missing: true };
  const n = readDecimal(s);
  return n.ok ? { value: n.value } : { bad: `value is not a number "${s}"` };
}

/**
 * Reads a World Bank Pink Sheet workbook (`CMO-Historical-Data-Monthly.xlsx`) and checks its
 * layout, throwing a WorldBankFileError (nothing read) when the file is too large, not an .xlsx, has
 * no `Monthly Prices` sheet, lacks a mapped code, or shows another unit for it. An .xlsx is a zip,
 * so the file is read whole (bounded to `maxBytes`), then its zip and its one sheet are read by the
 * bounded reader of xlsx.ts (zip-guard.ts refuses a lying or hostile container before anything is
 * inflated; every entry inflates within its declared size; rows, columns and merged ranges past
 * PINK_SHEET_LIMITS are refused): time and memory bounded by the limits, whatever the file holds.
 */
export async function readWorldBankWorkbook(input: XlsxInput, options: WorldBankOptions): Promise<WorldBankWorkbook> {
  const { file, stats, info } = options;
  const { catalog } = options;
  const limits = PINK_SHEET_LIMITS;
  const bytes = await readBounded(input, options.maxBytes ?? limits.maxBytes, file);
  let read: ReturnType<typeof readXlsxSheet>;
  try {
    read = readXlsxSheet(bytes, PINK_SHEET_SHEET, limits);
  } catch (err) {
    if (err instanceof ZipGuardError)
      throw new WorldBankFileError(`worldbank: ${file} is not an .xlsx workbook we read: ${err.message}`);
    if (err instanceof XlsxError)
      throw new WorldBankFileError(
        `worldbank: ${file} cannot be read as an .xlsx workbook (${err.message}); nothing was read`,
      );
    throw err;
  }
  const { sheet: maybeSheet } = read;
  if (maybeSheet === undefined)
    throw new WorldBankFileError(
      `worldbank: ${file} has no "${PINK_SHEET_SHEET}" sheet (sheets: ${read.sheetNames.map((n) => `"${n}"`).join(', ') || 'none'})`,
    );
  const sheet: XlsxSheet = maybeSheet;
  const found = locateColumns(sheet, catalog, file);
  let vintage: string | undefined;
  for (let r = 1; r < found.firstDataRow && vintage === undefined; r++)
    for (let col = 1; col <= 3 && vintage === undefined; col++)
      vintage = readPinkSheetVintage(cellText(cellAt(sheet, r, col)) ?? '');
  if (info) {
    if (vintage !== undefined) info.vintage = vintage;
    info.layout = found.layout;
  }

  // "Updated on" is the publisher's own date of the file: its points were published that day
  const published = vintage !== undefined ? statedDayStamp(vintage) : undefined;
  function* items(): Generator<SourceItem> {
    if (stats) for (let i = 0; i < found.unmapped; i++) countSkip(stats, 'unknown_series');
    for (let r = found.firstDataRow; r <= sheet.rowCount; r++) {
      const row = sheet.rows.get(r);
      if (row === undefined) continue;
      if (stats) stats.rows++;
      const first = row[1];
      const rawPeriod = cellText(first) ?? (typeof first === 'number' ? String(first) : '');
      const date = pinkSheetPeriodDate(rawPeriod);
      if (date === undefined) {
        yield rejected(file, r, `period is not YYYYMmm (such as 1960M01): "${rawPeriod.trim()}"`, stats);
        continue;
      }
      const period = rawPeriod.trim();
      if (info && (info.lastPeriod === undefined || period > info.lastPeriod)) info.lastPeriod = period;
      for (const c of found.columns) {
        const cell = cellNumber(row[c.column]);
        if ('missing' in cell) {
          if (stats) countSkip(stats, 'missing_value');
          continue;
        }
        if ('bad' in cell) {
          yield rejected(file, r, `${c.series.code} (${period}): ${cell.bad}`, stats);
          continue;
        }
        yield seriesItem(
          c.commodity.entry.id,
          c.series.type,
          c.series.frequency,
          c.series.unit,
          { date, value: cell.value },
          { file, line: r, ...(stats ? { stats } : {}) },
          `worldbank:${c.series.code}`,
          c.series.basis,
          published,
        );
      }
    }
  }
  async function* stream(): AsyncGenerator<SourceItem> {
    let n = 0;
    for (const item of items()) {
      yield item;
      // let other work run now and then (the whole sheet is ~10,000 points), as generateDemo does
      if (++n % 5_000 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
  return { vintage, layout: found.layout, items, stream };
}

/**
 * Streams the items of a World Bank Pink Sheet workbook (sheet `Monthly Prices`): for each mapped
 * code (catalog `sources.worldbank`), one monthly `price` point per period, dated at the month's
 * last day, the value exactly as published, `source` = `worldbank:<CODE>`, basis
 * `monthly_average`, published on the file's "Updated on" day (stated; none without the note).
 * `…`, `...`, `..` and empty cells are skipped (`missing_value`); unmapped
 * columns are skipped (`unknown_series`, once per column); a period that is not `YYYYMmm` rejects
 * its row. A layout problem throws WorldBankFileError before anything is yielded.
 */
export async function* parseWorldBankXlsx(input: XlsxInput, options: WorldBankOptions): AsyncGenerator<SourceItem> {
  const book = await readWorldBankWorkbook(input, options);
  yield* book.stream();
}
