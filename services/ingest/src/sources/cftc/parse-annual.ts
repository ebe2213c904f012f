import {
  COT_DATASETS,
  cotDataset,
  defaultCotScope,
  type CotDataset,
  type CotFormat,
  type CotScope,
} from '@cds/contracts';
import type { SourceItem } from '../types.ts';
import { createCsvAssembler, normalizeHeader, parseCsvRecord, scanCsvRecord, type Assembled } from '../common/csv.ts';
import { rejected, type ParseOptions } from '../common/records.ts';
import { readLineBatches, type TextInput } from '../common/text.ts';
import {
  allFields,
  buildCotItem,
  cropYearsPresent,
  openInterestOf,
  optionalFields,
  SCOPE_WORDS,
} from './build-record.ts';
import { detectFormat, scopeOfCell, scopeOfFileName } from './fields.ts';

export interface CotCsvOptions extends ParseOptions {
  /** Expected format; detected from the header when omitted. A mismatch rejects the file. */
  format?: CotFormat;
  /**
   * The scope the input reads (default: the format's, futures only but for cit). A file that says
   * it is of the other scope (its CFTC name, or the FutOnly_or_Combined of its first row) is refused.
   */
  scope?: CotScope;
}

const FILES: Record<CotDataset, string> = {
  legacy: 'annual.txt of deacot<year>.zip',
  disaggregated: 'f_year.txt of fut_disagg_txt_<year>.zip',
  legacy_combined: 'annualof.txt of deahistfo<year>.zip',
  disaggregated_combined: 'c_year.txt of com_disagg_txt_<year>.zip',
  cit: 'annualci.txt of dea_cit_txt_<year>.zip',
};

const REPORTS: Record<CotDataset, string> = {
  legacy: 'legacy futures-only',
  disaggregated: 'disaggregated futures-only',
  legacy_combined: 'legacy futures-and-options combined',
  disaggregated_combined: 'disaggregated futures-and-options combined',
  cit: 'CIT supplement (futures and options combined)',
};

/** A column each format's header has, as the CFTC names it (named when a header has none of them). */
const EXPECTED_COLUMN: Record<CotFormat, string> = {
  legacy: '"Commercial Positions-Long (All)"',
  disaggregated: '"Prod_Merc_Positions_Long_All"',
  cit: '"CIT_Positions_Long_All"',
};

/** Why a file of `dataset` is refused: it is the report of another scope. */
function otherScope(dataset: CotDataset, what: string): string {
  return `${what}; expected the ${REPORTS[dataset]} report (${FILES[dataset]})`;
}

/**
 * Streams the CFTC Commitments of Traders annual comma-separated text files as the CFTC
 * publishes them (legacy `annual.txt` / `annualof.txt`, disaggregated `f_year.txt` / `c_year.txt`,
 * the CIT supplement's `annualci.txt`): header row, quoted market names, contract codes quoted or
 * not, space-padded numbers, `.` for a missing value, LF or CRLF. Rows are keyed on
 * CFTC_Contract_Market_Code (market names change over the years). A row whose code is not in the
 * catalog is skipped and counted; a row with a missing or bad value in a column we read is
 * rejected; `.` in any other column (changes, percentages, trader counts) does not matter. Where
 * the file has the Old and Other crop-year columns, each record is checked against them
 * (buildCotItem: flagged, not rejected).
 *
 * Lines are read a chunk at a time (one async step per chunk, a plain loop over its lines), and a
 * data row is scanned for its field count while only the columns read are copied out.
 */
export async function* parseCftcCotCsv(input: TextInput, options: CotCsvOptions): AsyncGenerator<SourceItem> {
  const { file, stats } = options;
  const { catalog } = options;
  let header: string[] | undefined;
  let headerFields: string[] = [];
  let dataset: CotDataset | undefined;
  /** Column → slot in `cells` of each logical field read (-1: column not read). */
  let pick = new Int32Array(0);
  const slotOf = new Map<string, number>();
  const cells: string[] = [];
  const read = (field: string): string | undefined => {
    const slot = slotOf.get(field);
    return slot === undefined ? undefined : cells[slot];
  };
  const where: Parameters<typeof buildCotItem>[1] = {
    file,
    line: 0,
    catalog,
    dataset: 'legacy',
    ...(stats ? { stats } : {}),
  };
  /** Until a row of the input's scope is read, a row of the other scope refuses the whole file. */
  let firstRow = true;

  // a record's value is its field count; the header's fields are kept whole, a data row's picked
  const assembler = createCsvAssembler<number>((text) => {
    if (header === undefined) {
      const fields = parseCsvRecord(text);
      if (fields === undefined) return undefined;
      headerFields = fields;
      return fields.length;
    }
    const n = scanCsvRecord(text, pick, cells);
    return n === -1 ? undefined : n;
  });

  /** Reads the header: the dataset and the columns of each field (a problem refuses the file). */
  const onHeader = (line: number): string | undefined => {
    header = headerFields.map(normalizeHeader);
    const layout = readCotHeader(header, options, line);
    if (typeof layout === 'string') return layout;
    dataset = layout.dataset;
    where.dataset = layout.dataset;
    for (const [field, slot] of layout.slotOf) slotOf.set(field, slot);
    if (layout.cropYears.length > 0) where.cropYears = layout.cropYears;
    pick = layout.pick;
    return undefined;
  };

  /** The items of one record (a header problem, or a first row of the other scope, ends the file: `stop`). */
  let stop = false;
  const onRecord = (rec: Assembled<number>, out: SourceItem[]): void => {
    if (rec.error !== undefined) {
      out.push(rejected(file, rec.line, rec.error, stats));
      return;
    }
    if (header === undefined) {
      const problem = onHeader(rec.line);
      if (problem !== undefined) {
        out.push(rejected(file, rec.line, problem, stats));
        stop = true;
      }
      return;
    }
    if (stats) stats.rows++;
    if (rec.value !== header.length) {
      out.push(rejected(file, rec.line, `expected ${header.length} fields, got ${rec.value}`, stats));
      return;
    }
    if (firstRow) {
      const rowScope = scopeOfCell(read('scope') ?? '');
      if (rowScope !== undefined && cotDataset(COT_DATASETS[dataset!].format, rowScope) !== dataset) {
        out.push(
          rejected(
            file,
            rec.line,
            otherScope(
              dataset!,
              `the file is ${SCOPE_WORDS[rowScope]} (FutOnly_or_Combined "${read('scope')!.trim()}" on its first row)`,
            ),
            stats,
          ),
        );
        stop = true;
        return;
      }
      firstRow = false;
    }
    where.line = rec.line;
    const item = buildCotItem(read, where);
    if (item) {
      out.push(item);
      const oi = openInterestOf(item);
      if (oi) out.push(oi);
    }
  };

  const out: SourceItem[] = [];
  for await (const lines of readLineBatches(input)) {
    for (const line of lines) {
      const rec = assembler.push(line);
      if (rec === undefined) continue;
      onRecord(rec, out);
      if (stop) break;
    }
    yield* out;
    out.length = 0;
    if (stop) return;
  }
  const last = assembler.end();
  if (last !== undefined) onRecord(last, out);
  yield* out;
  if (!header) yield rejected(file, 1, 'empty file: no header row', stats);
}

/**
 * What a COT file's (normalized) header says: its dataset (the format its columns show, in the
 * input's scope, which the CFTC's file name must not contradict), the slot of each field read and
 * the columns picked into them, and the crop-year columns present; or why the file is refused.
 */
function readCotHeader(
  header: readonly string[],
  options: CotCsvOptions,
  line: number,
):
  | string
  | {
      dataset: CotDataset;
      slotOf: Map<string, number>;
      pick: Int32Array<ArrayBuffer>;
      cropYears: ReturnType<typeof cropYearsPresent>;
    } {
  const { file } = options;
  const detected = detectFormat(new Set(header));
  if (!detected || (options.format && options.format !== detected)) {
    const expected = options.format ?? 'legacy, disaggregated or cit';
    return detected
      ? `header is a ${detected} COT file, expected ${expected}`
      : `header is not a CFTC COT ${expected} file: no ${options.format ? EXPECTED_COLUMN[options.format] : 'positions'} column`;
  }
  const scope = options.scope ?? defaultCotScope(detected);
  const dataset = cotDataset(detected, scope);
  if (dataset === undefined) return `the ${detected} report is not published ${SCOPE_WORDS[scope]}`;
  const named = scopeOfFileName(file);
  if (named !== undefined && named !== scope)
    return otherScope(dataset, `${file} is the CFTC's name of a ${SCOPE_WORDS[named]} file`);
  const slotOf = new Map<string, number>();
  const missing: string[] = [];
  const columns: number[] = [];
  const place = (field: string, aliases: readonly string[]): boolean => {
    const at = aliases.map((a) => header.indexOf(a)).find((i) => i !== -1);
    if (at === undefined) return false;
    slotOf.set(field, columns.length);
    columns.push(at);
    return true;
  };
  for (const [field, aliases] of allFields(detected))
    if (!place(field, aliases)) missing.push(`${field} (${aliases.join(' or ')})`);
  if (missing.length > 0)
    return `header lacks columns for ${missing.join(', ')} (line ${line}; names compared in snake_case)`;
  for (const [field, aliases] of optionalFields(detected)) place(field, aliases);
  const pick = new Int32Array(Math.max(...columns) + 1).fill(-1);
  columns.forEach((column, slot) => (pick[column] = slot));
  return { dataset, slotOf, pick, cropYears: cropYearsPresent(detected, (f) => slotOf.has(f)) };
}

/** The legacy futures-only annual file (`annual.txt`). */
export function parseCftcLegacyCsv(input: TextInput, options: ParseOptions): AsyncGenerator<SourceItem> {
  return parseCftcCotCsv(input, { ...options, format: 'legacy' });
}

/** The disaggregated futures-only annual file (`f_year.txt`). */
export function parseCftcDisaggregatedCsv(input: TextInput, options: ParseOptions): AsyncGenerator<SourceItem> {
  return parseCftcCotCsv(input, { ...options, format: 'disaggregated' });
}

/** The legacy futures-and-options combined annual file (`annualof.txt`). */
export function parseCftcLegacyCombinedCsv(input: TextInput, options: ParseOptions): AsyncGenerator<SourceItem> {
  return parseCftcCotCsv(input, { ...options, format: 'legacy', scope: 'futures_and_options' });
}

/** The disaggregated futures-and-options combined annual file (`c_year.txt`). */
export function parseCftcDisaggregatedCombinedCsv(input: TextInput, options: ParseOptions): AsyncGenerator<SourceItem> {
  return parseCftcCotCsv(input, { ...options, format: 'disaggregated', scope: 'futures_and_options' });
}

/** The CIT supplement's annual file (`annualci.txt`), futures and options combined. */
export function parseCftcCitCsv(input: TextInput, options: ParseOptions): AsyncGenerator<SourceItem> {
  return parseCftcCotCsv(input, { ...options, format: 'cit', scope: 'futures_and_options' });
}
