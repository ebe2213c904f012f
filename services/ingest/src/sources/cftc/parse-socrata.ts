import { cotDataset, type CotFormat, type CotScope } from '@cds/contracts';
import type { SourceItem } from '../types.ts';
import { byHeaderName, readJsonRows } from '../common/json.ts';
import type { ParseOptions } from '../common/records.ts';
import type { TextInput } from '../common/text.ts';
import { allFields, buildCotItem, cropYearsPresent, openInterestOf, optionalFields } from './build-record.ts';

export interface CotSocrataOptions extends ParseOptions {
  format: CotFormat;
  /** The dataset's scope (default: the format's); a row whose futonly_or_combined names the other is rejected. */
  scope?: CotScope;
  /** Index of the first element of this page in the whole result (for rejection line numbers). */
  offset?: number;
}

/**
 * Streams a response of the CFTC public reporting (Socrata) API: a JSON array of row objects
 * whose values are all strings (`"open_interest_all":"513710"`, dates as
 * `2025-01-07T00:00:00.000`). Rejections carry the 1-based record number as `line`. A row with
 * the Old and Other crop-year fields is checked against them (buildCotItem).
 */
export async function* parseCftcSocrataJson(input: TextInput, options: CotSocrataOptions): AsyncGenerator<SourceItem> {
  const { file, stats, format } = options;
  const { catalog } = options;
  const dataset = cotDataset(format, options.scope);
  if (dataset === undefined) throw new Error(`the ${format} report is not published ${options.scope}`);
  const fields = [...allFields(format), ...optionalFields(format)];
  for await (const row of readJsonRows(input, null, options)) {
    if (row.kind === 'rejected') {
      yield row;
      continue;
    }
    const { line } = row;
    const byName = byHeaderName(row.value);
    const resolved = new Map<string, string | undefined>();
    for (const [field, aliases] of fields) {
      const hit = aliases.find((a) => byName.has(a));
      const v = hit === undefined ? undefined : byName.get(hit);
      resolved.set(field, typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
    }
    const cropYears = cropYearsPresent(format, (f) => resolved.get(f) !== undefined);
    const item = buildCotItem((f) => resolved.get(f), {
      file,
      line,
      catalog,
      dataset,
      ...(cropYears.length > 0 ? { cropYears } : {}),
      ...(stats ? { stats } : {}),
    });
    if (!item) continue;
    yield item;
    const oi = openInterestOf(item);
    if (oi) yield oi;
  }
}
