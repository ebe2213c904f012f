import type { CotFormat } from '@cds/contracts';
import type { SourceItem } from '../types.ts';
import { byHeaderName, readJsonRows } from '../common/json.ts';
import type { ParseOptions } from '../common/records.ts';
import type { TextInput } from '../common/text.ts';
import { allFields, buildCotItem, openInterestOf } from './build-record.ts';

export interface CotSocrataOptions extends ParseOptions {
  format: CotFormat;
  /** Index of the first element of this page in the whole result (for rejection line numbers). */
  offset?: number;
}

/**
 * Streams a response of the CFTC public reporting (Socrata) API: a JSON array of row objects
 * whose values are all strings (`"open_interest_all":"513710"`, dates as
 * `2025-01-07T00:00:00.000`). Rejections carry the 1-based record number as `line`.
 */
export async function* parseCftcSocrataJson(input: TextInput, options: CotSocrataOptions): AsyncGenerator<SourceItem> {
  const { file, stats, format } = options;
  const { catalog } = options;
  const fields = allFields(format);
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
    const item = buildCotItem(format, (f) => resolved.get(f), {
      file,
      line,
      catalog,
      ...(stats ? { stats } : {}),
    });
    if (!item) continue;
    yield item;
    const oi = openInterestOf(item);
    if (oi) yield oi;
  }
}
