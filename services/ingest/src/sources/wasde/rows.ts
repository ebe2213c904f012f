import type { RawCell, SubReport } from './cells.ts';
import { attributeOf } from './names.ts';

/**
 * The attribute of each cell's row. A row's name is its attribute (names.ts), but USDA repeats a
 * sub-row's name under different parents: the US sugar table prints `Other` under imports and
 * under deliveries. A name two rows of one matrix share (one class group, one region) is
 * qualified by each such row's parent, the nearest row above it printed less indented:
 * `imports_other`, `deliveries_other`. A sub-row whose own name says nothing alone (GENERIC_NAMES:
 * `Other`, `Total`) is qualified by its parent even where it is not repeated, so one figure keeps
 * one name over the years: the sugar table's deliveries `Other` is `deliveries_other` in 2010-2022
 * beside the imports' `Other` and still after May 2022, when the imports' row became
 * `High-tier tariff/other`. Every other row keeps its plain name.
 *
 * A repeated row printed flush left right after a sub-row belongs to that sub-row's parent: the
 * 2010-2015 sugar tables print the imports' `Other 5/` flush left between `    Other Program 4/`
 * and `    Mexico` (later files indent it under imports). A repeated row whose parent the table
 * does not show (the January 2011 sugar table indents no row) is skipped and counted: its plain
 * name would say one of two figures.
 */

interface Row {
  raw: string;
  indent: number;
  attribute: string | undefined;
  /** Indexes of the row's cells in the sub-report. */
  cells: number[];
}

/** Row names qualified by their parent wherever one is shown (see above). */
const GENERIC_NAMES: ReadonlySet<string> = new Set(['other', 'total']);

const indentOf = (raw: string) => /^[ \t]*/.exec(raw)![0].length;

/**
 * The rows of each matrix (class group, region) of a sub-report, in the order their names first
 * appear; a row is its printed name (indent and footnote mark included), wherever its cells lie
 * (a world table repeats its columns' names for each year).
 */
function rowsOf(report: SubReport): Row[][] {
  const scopes = new Map<string, Map<string, Row>>();
  report.cells.forEach((cell: RawCell, i) => {
    const ctx = cell.context;
    const scope = [cell.matrix, ctx.attribute_group ?? ctx.commodity ?? '', ctx.region ?? ''].join('\u0000');
    let rows = scopes.get(scope);
    if (rows === undefined) scopes.set(scope, (rows = new Map<string, Row>()));
    const raw = ctx.attribute ?? '';
    const row = rows.get(raw);
    if (row !== undefined) row.cells.push(i);
    else rows.set(raw, { raw, indent: indentOf(raw), attribute: attributeOf(raw), cells: [i] });
  });
  return [...scopes.values()].map((rows) => [...rows.values()]);
}

/** The row's parent: the nearest row above printed less indented (see above for a flush-left one). */
function parentOf(rows: readonly Row[], at: number): Row | undefined {
  const row = rows[at]!;
  for (let i = at - 1; i >= 0; i--) if (rows[i]!.indent < row.indent) return rows[i];
  const above = rows[at - 1];
  return row.indent === 0 && above !== undefined && above.indent > 0 ? parentOf(rows, at - 1) : undefined;
}

/** A cell's row: its attribute, none (a row without a name), or a repeated name whose parent is not shown. */
export type RowAttribute = string | undefined | { ambiguous: string };

/** A row's attribute: its name, qualified by its parent where repeated or generic (see above). */
function qualified(rows: readonly Row[], at: number, count: ReadonlyMap<string, number>): RowAttribute {
  const { attribute, indent } = rows[at]!;
  if (attribute === undefined) return undefined;
  const repeated = count.get(attribute)! > 1;
  if (!repeated && !(GENERIC_NAMES.has(attribute) && indent > 0)) return attribute;
  const parent = parentOf(rows, at)?.attribute;
  if (parent === undefined) return repeated ? { ambiguous: attribute } : attribute;
  return attributeOf(`${parent} ${attribute}`) ?? attribute;
}

/** Per cell of the sub-report (by index): its row's attribute. */
export function rowAttributes(report: SubReport): RowAttribute[] {
  const out = new Array<RowAttribute>(report.cells.length);
  for (const rows of rowsOf(report)) {
    const count = new Map<string, number>();
    for (const r of rows) if (r.attribute !== undefined) count.set(r.attribute, (count.get(r.attribute) ?? 0) + 1);
    rows.forEach((row, at) => {
      const attribute = qualified(rows, at, count);
      for (const i of row.cells) out[i] = attribute;
    });
  }
  return out;
}
