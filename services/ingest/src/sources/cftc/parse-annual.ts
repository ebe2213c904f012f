import type { CotFormat } from '@cds/contracts';
import type { SourceItem } from '../types.ts';
import { createCsvAssembler, normalizeHeader, parseCsvRecord, scanCsvRecord, type Assembled } from '../common/csv.ts';
import { rejected, type ParseOptions } from '../common/records.ts';
import { readLineBatches, type TextInput } from '../common/text.ts';
import { allFields, buildCotItem, openInterestOf } from './build-record.ts';
import { detectFormat } from './fields.ts';

export interface CotCsvOptions extends ParseOptions {
  /** Expected format; detected from the header when omitted. A mismatch rejects the file. */
  format?: CotFormat;
}

/**
 * Streams the CFTC Commitments of Traders annual comma-separated text files as the CFTC
 * publishes them (legacy `annual.txt` / `deacot<year>`, disaggregated `f_year.txt`): header row,
 * quoted market names, space-padded numbers, `.` for a missing value, LF or CRLF. Rows are keyed
 * on CFTC_Contract_Market_Code (market names change over the years). A row whose code is not in
 * the catalog is skipped and counted; a row with a missing or bad value in a column we read is
 * rejected; `.` in any other column (changes, percentages, trader counts) does not matter.
 *
 * Lines are read a chunk at a time (one async step per chunk, a plain loop over its lines), and a
 * data row is scanned for its field count while only the columns read are copied out.
 */
export async function* parseCftcCotCsv(input: TextInput, options: CotCsvOptions): AsyncGenerator<SourceItem> {
  const { file, stats } = options;
  const { catalog } = options;
  let header: string[] | undefined;
  let headerFields: string[] = [];
  let format: CotFormat | undefined;
  /** Column → slot in `cells` of each logical field read (-1: column not read). */
  let pick = new Int32Array(0);
  const slotOf = new Map<string, number>();
  const cells: string[] = [];
  const read = (field: string): string | undefined => cells[slotOf.get(field)!];
  const where = { file, line: 0, catalog, ...(stats ? { stats } : {}) };

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

  /** The items of one record (a header problem ends the file: `stop`). */
  let stop = false;
  const onRecord = (rec: Assembled<number>, out: SourceItem[]): void => {
    if (rec.error !== undefined) {
      out.push(rejected(file, rec.line, rec.error, stats));
      return;
    }
    if (header === undefined) {
      header = headerFields.map(normalizeHeader);
      const detected = detectFormat(new Set(header));
      if (!detected || (options.format && options.format !== detected)) {
        out.push(
          rejected(
            file,
            rec.line,
            detected
              ? `header is a ${detected} COT file, expected ${options.format}`
              : 'header is not a CFTC COT legacy or disaggregated file',
            stats,
          ),
        );
        stop = true;
        return;
      }
      format = detected;
      const missing: string[] = [];
      const columns: number[] = [];
      for (const [field, aliases] of allFields(format)) {
        const at = aliases.map((a) => header!.indexOf(a)).find((i) => i !== -1);
        if (at === undefined) missing.push(field);
        else {
          slotOf.set(field, columns.length);
          columns.push(at);
        }
      }
      if (missing.length > 0) {
        out.push(rejected(file, rec.line, `header lacks columns for ${missing.join(', ')}`, stats));
        stop = true;
        return;
      }
      pick = new Int32Array(Math.max(...columns) + 1).fill(-1);
      columns.forEach((column, slot) => (pick[column] = slot));
      return;
    }
    if (stats) stats.rows++;
    if (rec.value !== header.length) {
      out.push(rejected(file, rec.line, `expected ${header.length} fields, got ${rec.value}`, stats));
      return;
    }
    where.line = rec.line;
    const item = buildCotItem(format!, read, where);
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

/** The legacy futures-only annual file (`annual.txt`). */
export function parseCftcLegacyCsv(input: TextInput, options: ParseOptions): AsyncGenerator<SourceItem> {
  return parseCftcCotCsv(input, { ...options, format: 'legacy' });
}

/** The disaggregated futures-only annual file (`f_year.txt`). */
export function parseCftcDisaggregatedCsv(input: TextInput, options: ParseOptions): AsyncGenerator<SourceItem> {
  return parseCftcCotCsv(input, { ...options, format: 'disaggregated' });
}
