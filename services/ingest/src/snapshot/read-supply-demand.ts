import { SupplyDemandBatch } from '@cds/contracts';
import { readCsvTable } from '../sources/common/csv.ts';
import { rejected } from '../sources/common/records.ts';
import type { ParseStats } from '../sources/common/stats.ts';
import type { SourceItem } from '../sources/types.ts';
import {
  FAILED_CHECKS_SEPARATOR,
  FIGURE_FIELD_SEPARATOR,
  FIGURE_SEPARATOR,
  SNAPSHOT_FORMAT,
  SUPPLY_DEMAND_COLUMNS,
} from './format.ts';

type Column = (typeof SUPPLY_DEMAND_COLUMNS)[number];
/** Supply and demand releases by edition (YYYY-MM): from `since`, before `before`. */
export interface EditionRange {
  since?: string;
  before?: string;
}
type Figure = { attribute: string; unit: string; value: number };

/** The figures cell: `attribute|unit|value`, `;`-separated; a part of another shape is named. */
function figuresOf(cell: string): Figure[] | string {
  const figures: Figure[] = [];
  for (const part of cell === '' ? [] : cell.split(FIGURE_SEPARATOR)) {
    const fields = part.split(FIGURE_FIELD_SEPARATOR);
    if (fields.length !== 3) return `figures: "${part.slice(0, 80)}" is not attribute|unit|value`;
    const [attribute, unit, raw] = fields as [string, string, string];
    figures.push({ attribute, unit, value: raw.trim() === '' ? Number.NaN : Number(raw) });
  }
  return figures;
}

/** A row as one balance sheet, validated by the contract's schema (as the parser's items are). */
function sheetOf(
  cells: (name: Column) => string,
  line: number,
  file: string,
  stats: ParseStats | undefined,
): SourceItem {
  const figures = figuresOf(cells('figures'));
  if (typeof figures === 'string') return rejected(file, line, figures, stats);
  const failed = cells('failed_checks');
  const candidate = {
    commodity_id: cells('commodity_id'),
    region: cells('region'),
    marketing_year: cells('marketing_year'),
    edition: cells('edition'),
    status: cells('status'),
    ...(cells('source') !== '' ? { source: cells('source') } : {}),
    published_at: cells('published_at'),
    ...(cells('published_at_estimated') === 'true' ? { published_at_estimated: true } : {}),
    ...(failed !== '' ? { failed_checks: failed.split(FAILED_CHECKS_SEPARATOR) } : {}),
    figures,
  };
  const parsed = SupplyDemandBatch.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return rejected(file, line, `${issue?.path.join('.') || 'sheet'}: ${issue?.message}`, stats);
  }
  if (stats) stats.emitted++;
  return { kind: 'supply_demand', ...parsed.data };
}

/**
 * The balance sheets of a snapshot's supply and demand file (`text`: its inflated chunks): each
 * row is one release of one sheet (snapshot format 4), published when it says; only the editions
 * in `editions` when given (`npm start` loads the older ones after the keys). A file of another
 * layout (format 3: one row per figure) is refused by its header; a commodity `known` refuses is
 * skipped; a row of the wrong width, a figures cell of another shape or a sheet the contract
 * refuses is rejected with its line.
 */
export async function* readSupplyDemandPart(
  text: AsyncIterable<Buffer>,
  opts: {
    file: string;
    stats: ParseStats | undefined;
    known: (id: string | undefined) => id is string;
    editions?: EditionRange;
  },
): AsyncGenerator<SourceItem> {
  const { file, stats } = opts;
  const { since, before } = opts.editions ?? {};
  const header = (names: string[]) =>
    names.length === SUPPLY_DEMAND_COLUMNS.length && names.every((n, i) => n === SUPPLY_DEMAND_COLUMNS[i])
      ? undefined
      : `${file}: header is not ${SUPPLY_DEMAND_COLUMNS.join(',')} (snapshot format ${SNAPSHOT_FORMAT}: one row per release of a sheet); rebuild the snapshot with npm run snapshot:build`;
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
    const edition = cells('edition');
    if ((since !== undefined && edition < since) || (before !== undefined && edition >= before)) continue;
    if (!opts.known(cells('commodity_id'))) continue;
    yield sheetOf(cells, row.line, file, stats);
  }
}
