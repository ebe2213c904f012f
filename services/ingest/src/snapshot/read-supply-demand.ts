import { SupplyDemandBatch } from '@cds/contracts';
import { readCsvTable } from '../sources/common/csv.ts';
import { rejected } from '../sources/common/records.ts';
import type { ParseStats } from '../sources/common/stats.ts';
import type { SourceItem } from '../sources/types.ts';
import { FAILED_CHECKS_SEPARATOR, SUPPLY_DEMAND_COLUMNS } from './format.ts';

type Column = (typeof SUPPLY_DEMAND_COLUMNS)[number];
/** The columns that tell one release of one sheet from another: the rows of a release share them. */
const RELEASE_COLUMNS: readonly Column[] = SUPPLY_DEMAND_COLUMNS.slice(0, 9);

interface Release {
  line: number;
  key: string;
  cells: (name: Column) => string;
  figures: { attribute: string; unit: string; value: number }[];
}

/** A release's rows as one balance sheet, validated by the contract's schema (as the parser's items are). */
function sheetOf(r: Release, file: string, stats: ParseStats | undefined): SourceItem {
  const failed = r.cells('failed_checks');
  const candidate = {
    commodity_id: r.cells('commodity_id'),
    region: r.cells('region'),
    marketing_year: r.cells('marketing_year'),
    edition: r.cells('edition'),
    status: r.cells('status'),
    ...(r.cells('source') !== '' ? { source: r.cells('source') } : {}),
    published_at: r.cells('published_at'),
    ...(r.cells('published_at_estimated') === 'true' ? { published_at_estimated: true } : {}),
    ...(failed !== '' ? { failed_checks: failed.split(FAILED_CHECKS_SEPARATOR) } : {}),
    figures: r.figures,
  };
  const parsed = SupplyDemandBatch.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return rejected(file, r.line, `${issue?.path.join('.') || 'sheet'}: ${issue?.message}`, stats);
  }
  if (stats) stats.emitted++;
  return { kind: 'supply_demand', ...parsed.data };
}

/**
 * The balance sheets of a snapshot's supply and demand file (`text`: its inflated chunks): the
 * consecutive rows of one release of one sheet make one item, each release published when its
 * rows say. A commodity `known` refuses is skipped; a row of the wrong width, or a sheet the
 * contract refuses, is rejected with its line.
 */
export async function* readSupplyDemandPart(
  text: AsyncIterable<Buffer>,
  opts: { file: string; stats: ParseStats | undefined; known: (id: string | undefined) => id is string },
): AsyncGenerator<SourceItem> {
  const { file, stats } = opts;
  const header = (names: string[]) =>
    names.length === SUPPLY_DEMAND_COLUMNS.length && names.every((n, i) => n === SUPPLY_DEMAND_COLUMNS[i])
      ? undefined
      : `${file}: header is not ${SUPPLY_DEMAND_COLUMNS.join(',')}`;
  let open: Release | undefined;
  for await (const row of readCsvTable(text, { file, stats }, header)) {
    if (row.kind === 'rejected') {
      yield row;
      continue;
    }
    if (row.fields.length !== SUPPLY_DEMAND_COLUMNS.length) {
      yield rejected(
        file,
        row.line,
        `expected ${SUPPLY_DEMAND_COLUMNS.length} fields, got ${row.fields.length}`,
        stats,
      );
      continue;
    }
    const fields = row.fields;
    const cells = (name: Column) => fields[SUPPLY_DEMAND_COLUMNS.indexOf(name)] ?? '';
    const key = RELEASE_COLUMNS.map(cells).join('\u0000');
    if (open !== undefined && open.key !== key) {
      yield sheetOf(open, file, stats);
      open = undefined;
    }
    if (open === undefined) {
      if (!opts.known(cells('commodity_id'))) continue;
      open = { line: row.line, key, cells, figures: [] };
    }
    const raw = cells('value');
    open.figures.push({
      attribute: cells('attribute'),
      unit: cells('unit'),
      value: raw.trim() === '' ? Number.NaN : Number(raw),
    });
  }
  if (open !== undefined) yield sheetOf(open, file, stats);
}
