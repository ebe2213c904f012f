import { CATALOG } from '../../catalog/index.ts';
import type { SourceItem } from '../types.ts';
import { normalizeHeader, readCsvRecords } from '../common/csv.ts';
import { streamJsonArrayObjects } from '../common/json.ts';
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
  const catalog = options.catalog ?? CATALOG;
  const filter = options.filter ?? {};
  let index: Map<NassField, number> | undefined;
  let width = 0;
  for await (const rec of readCsvRecords(input)) {
    if (rec.error) {
      yield rejected(file, rec.line, rec.error, stats);
      continue;
    }
    if (!index) {
      const header = rec.fields.map(normalizeHeader);
      index = new Map();
      for (const [field, aliases] of Object.entries(NASS_FIELDS) as [NassField, readonly string[]][]) {
        const at = aliases.map((a) => header.indexOf(a)).find((i) => i !== -1);
        if (at !== undefined) index.set(field, at);
      }
      const missing = REQUIRED_NASS_FIELDS.filter((f) => !index!.has(f));
      if (missing.length > 0) {
        yield rejected(file, rec.line, `header is not a Quick Stats export: no ${missing.join(', ')} column`, stats);
        return;
      }
      width = header.length;
      continue;
    }
    if (stats) stats.rows++;
    if (rec.fields.length !== width) {
      yield rejected(file, rec.line, `expected ${width} fields, got ${rec.fields.length}`, stats);
      continue;
    }
    const fields = rec.fields;
    const at = index;
    const item = mapNassRow((f) => (at.has(f) ? fields[at.get(f)!] : undefined), {
      file,
      line: rec.line,
      catalog,
      filter,
      ...(stats ? { stats } : {}),
    });
    if (item) yield item;
  }
  if (!index) yield rejected(file, 1, 'empty file: no header row', stats);
}

/** Streams a Quick Stats API JSON body `{"data":[{...}]}` (all values are strings). */
export async function* parseNassJson(input: TextInput, options: NassOptions): AsyncGenerator<SourceItem> {
  const { file, stats } = options;
  const catalog = options.catalog ?? CATALOG;
  const filter = options.filter ?? {};
  for await (const el of streamJsonArrayObjects(input, 'data')) {
    const line = el.index + 1;
    if ('error' in el) {
      yield rejected(file, line, el.error, stats);
      continue;
    }
    if (stats) stats.rows++;
    const byName = new Map<string, unknown>();
    for (const [k, v] of Object.entries(el.value)) byName.set(normalizeHeader(k), v);
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
