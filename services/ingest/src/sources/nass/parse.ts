import type { SourceItem } from '../types.ts';
import { readCsvTable } from '../common/csv.ts';
import { byHeaderName, readJsonRows } from '../common/json.ts';
import { rejected, type ParseOptions } from '../common/records.ts';
import type { TextInput } from '../common/text.ts';
import { mapNassRow, NASS_FIELDS, REQUIRED_NASS_FIELDS, type NassField, type NassFilter } from './map-row.ts';

export interface NassOptions extends ParseOptions {
  filter?: NassFilter;
}

/**
 * Streams Quick Stats CSV: the web export (`Program,Year,Period,...,Data Item,...,Value,CV (%)`,
 * fully or minimally quoted, `"11,100"` thousands separators) and the API's CSV (API field names
 * as headers). Rows map by `Data Item`/short_desc onto the catalog; withheld values `(D)`, `(NA)`,
 * `(Z)` are skipped and counted; see NassFilter for which locations map.
 */
export async function* parseNassCsv(input: TextInput, options: NassOptions): AsyncGenerator<SourceItem> {
  const { file, stats } = options;
  const { catalog } = options;
  const filter = options.filter ?? {};
  const index = new Map<NassField, number>();
  let width = 0;
  const readHeader = (header: string[]): string | undefined => {
    for (const [field, aliases] of Object.entries(NASS_FIELDS) as [NassField, readonly string[]][]) {
      const at = aliases.map((a) => header.indexOf(a)).find((i) => i !== -1);
      if (at !== undefined) index.set(field, at);
    }
    const missing = REQUIRED_NASS_FIELDS.filter((f) => !index.has(f));
    if (missing.length > 0) return `header is not a Quick Stats export: no ${missing.join(', ')} column`;
    width = header.length;
    return undefined;
  };
  for await (const rec of readCsvTable(input, options, readHeader)) {
    if (rec.kind === 'rejected') {
      yield rec;
      continue;
    }
    if (rec.fields.length !== width) {
      yield rejected(file, rec.line, `expected ${width} fields, got ${rec.fields.length}`, stats);
      continue;
    }
    const fields = rec.fields;
    const item = mapNassRow((f) => (index.has(f) ? fields[index.get(f)!] : undefined), {
      file,
      line: rec.line,
      catalog,
      filter,
      ...(stats ? { stats } : {}),
    });
    if (item) yield item;
  }
}

/** Streams a Quick Stats API JSON body `{"data":[{...}]}` (all values are strings). */
export async function* parseNassJson(input: TextInput, options: NassOptions): AsyncGenerator<SourceItem> {
  const { file, stats } = options;
  const { catalog } = options;
  const filter = options.filter ?? {};
  for await (const row of readJsonRows(input, 'data', options)) {
    if (row.kind === 'rejected') {
      yield row;
      continue;
    }
    const { line } = row;
    const byName = byHeaderName(row.value);
    const read = (f: NassField): string | undefined => {
      for (const a of NASS_FIELDS[f]) {
        const v = byName.get(a);
        if (typeof v === 'string') return v;
        if (typeof v === 'number') return String(v);
      }
      return undefined;
    };
    const item = mapNassRow(read, { file, line, catalog, filter, ...(stats ? { stats } : {}) });
    if (item) yield item;
  }
}
