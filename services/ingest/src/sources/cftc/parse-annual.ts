import type { CotFormat } from '@cds/contracts';
import { CATALOG } from '../../catalog/index.ts';
import type { SourceItem } from '../types.ts';
import { normalizeHeader, readCsvRecords } from '../common/csv.ts';
import { rejected, type ParseOptions } from '../common/records.ts';
import type { TextInput } from '../common/text.ts';
import { allFields, buildCotItem } from './build-record.ts';
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
 */
export async function* parseCftcCotCsv(input: TextInput, options: CotCsvOptions): AsyncGenerator<SourceItem> {
  const { file, stats } = options;
  const catalog = options.catalog ?? CATALOG;
  let header: string[] | undefined;
  let format: CotFormat | undefined;
  const index = new Map<string, number>();

  for await (const rec of readCsvRecords(input)) {
    if (rec.error) {
      yield rejected(file, rec.line, rec.error, stats);
      continue;
    }
    if (!header) {
      header = rec.fields.map(normalizeHeader);
      const columns = new Set(header);
      const detected = detectFormat(columns);
      if (!detected || (options.format && options.format !== detected)) {
        yield rejected(
          file,
          rec.line,
          detected
            ? `header is a ${detected} COT file, expected ${options.format}`
            : 'header is not a CFTC COT legacy or disaggregated file',
          stats,
        );
        return;
      }
      format = detected;
      const missing: string[] = [];
      for (const [field, aliases] of allFields(format)) {
        const at = aliases.map((a) => header!.indexOf(a)).find((i) => i !== -1);
        if (at === undefined) missing.push(field);
        else index.set(field, at);
      }
      if (missing.length > 0) {
        yield rejected(file, rec.line, `header lacks columns for ${missing.join(', ')}`, stats);
        return;
      }
      continue;
    }
    if (stats) stats.rows++;
    if (rec.fields.length !== header.length) {
      yield rejected(file, rec.line, `expected ${header.length} fields, got ${rec.fields.length}`, stats);
      continue;
    }
    const fields = rec.fields;
    const item = buildCotItem(format!, (f) => fields[index.get(f)!], {
      file,
      line: rec.line,
      catalog,
      ...(stats ? { stats } : {}),
    });
    if (item) yield item;
  }
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
