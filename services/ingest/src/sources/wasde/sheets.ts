import { type SupplyDemandStatus } from '@cds/contracts';
import { squash, WasdeFileError, type RawCell, type SubReport } from './cells.ts';
import { columnEdition } from './editions.ts';
import { calendarYearOf, cellNumber, marketingYearOf, regionOf, unitInName } from './names.ts';
import { rowAttributes, type RowAttribute } from './rows.ts';
import { classCommodity, tableOf, type MatrixRole, type TableSpec } from './tables.ts';
import { unitsOfMatrix, type MatrixUnits } from './units.ts';

/**
 * The second pass: the cells of the mapped sub-reports as figures, grouped into balance sheets
 * (one per commodity, region, marketing year and edition), the US table and the world table's
 * row of the same region merged, each figure keyed by attribute and unit.
 */

/** A figure as read, with the decimals it was printed with (the rounding its check allows). */
export interface ReadFigure {
  attribute: string;
  unit: string;
  value: number;
  decimals: number;
}

export interface Sheet {
  commodity: string;
  region: string;
  marketingYear: string;
  edition: string;
  status: SupplyDemandStatus;
  figures: Map<string, ReadFigure>;
  /** The table's `Total Use` leaves exports beside it (the meats; checks.ts). */
  useBesideExports?: true;
}

export interface SheetsRead {
  sheets: Sheet[];
  /** Why cells or tables were left out, with how many (the CLI summary's skipped line). */
  skipped: Map<string, number>;
  /** Cells read from mapped tables. */
  cells: number;
}

const bump = (m: Map<string, number>, reason: string, n = 1) => m.set(reason, (m.get(reason) ?? 0) + n);

const decimalsOf = (raw: string) => /\.(\d+)/.exec(raw.replace(/[,*\s]/g, ''))?.[1]?.length ?? 0;

/** The sheets of a file's sub-reports, all of edition `fileEdition` or the earlier ones their columns name. */
export function readSheets(reports: readonly SubReport[], fileEdition: string): SheetsRead {
  const out: SheetsRead = { sheets: [], skipped: new Map(), cells: 0 };
  const byKey = new Map<string, Sheet>();
  for (const report of reports) {
    const spec = tableOf(report.title);
    if (spec === undefined) {
      bump(out.skipped, `table not read: ${tableName(report.title)}`);
      continue;
    }
    if (spec.skip !== undefined) {
      bump(out.skipped, `${tableName(report.title)}: ${spec.skip}`);
      continue;
    }
    const units = unitsOfReport(report, spec);
    const positions = new Map(report.matrices.map((m, i) => [m, i]));
    const attributes = rowAttributes(report);
    for (const [i, cell] of report.cells.entries()) {
      out.cells++;
      const placed = placeCell({ report, spec, units, positions }, cell, attributes[i], fileEdition);
      if (typeof placed === 'string') {
        bump(out.skipped, placed);
        continue;
      }
      const key = [placed.commodity, placed.region, placed.marketingYear, placed.edition].join('\u0000');
      let sheet = byKey.get(key);
      if (sheet === undefined) {
        sheet = { ...placed, figures: new Map(), ...(spec.useBesideExports ? { useBesideExports: true } : {}) };
        byKey.set(key, sheet);
        out.sheets.push(sheet);
      }
      const figureKey = `${placed.figure.attribute}|${placed.figure.unit}`;
      const before = sheet.figures.get(figureKey);
      if (before === undefined) sheet.figures.set(figureKey, placed.figure);
      else if (before.value !== placed.figure.value) bump(out.skipped, 'a second, different value of a figure');
    }
  }
  return out;
}

/** A title without its footnote marks and "(Cont'd.)": how the summary names a table. */
export const tableName = (title: string) =>
  squash(title.replace(/\(cont'?d\.?\)/gi, ' ').replace(/(?:^|\s)\d+\/(?=\s|$)/g, ' '));

const layoutError = (report: SubReport, what: string) =>
  new WasdeFileError(
    `${report.name} (${tableName(report.title)}) is not a layout this reader knows: ${what}; nothing was published`,
  );

/** The units of each matrix of a US table (checked against its role's proof); a world table's from its subtitle. */
function unitsOfReport(report: SubReport, spec: TableSpec): Map<number, MatrixUnits> {
  const out = new Map<number, MatrixUnits>();
  const matrices = report.matrices;
  for (const [i, matrix] of matrices.entries()) {
    if (spec.kind === 'world') {
      const quantity = squash(report.subtitle.replace(/[()]/g, ' '));
      out.set(matrix, { quantity: quantity || undefined });
      continue;
    }
    const role = spec.matrices?.[i];
    // a matrix past those known is skipped (commodityOf): the known ones keep their place
    if (role === undefined) continue;
    const units = unitsOfMatrix(report.unitRows.get(matrix), spec.quantityUnit);
    out.set(
      matrix,
      'commodity' in role && role.proof !== undefined ? proveRole(report, role, i, units, matrix) : units,
    );
  }
  return out;
}

function proveRole(
  report: SubReport,
  role: Extract<MatrixRole, { commodity: string }>,
  index: number,
  units: MatrixUnits,
  matrix: number,
): MatrixUnits {
  const proof = role.proof!;
  const names = report.cells.filter((c) => c.matrix === matrix).map((c) => c.context.attribute ?? '');
  const fails: string[] = [];
  if (proof.attribute !== undefined && !names.some((n) => proof.attribute!.test(n)))
    fails.push(`no row matches ${String(proof.attribute)}`);
  if (proof.notAttribute !== undefined && names.some((n) => proof.notAttribute!.test(n)))
    fails.push(`a row matches ${String(proof.notAttribute)}`);
  const unitFails = proof.unit !== undefined && !proof.unit.test(units.quantity ?? '');
  // rows that prove the matrix outweigh its unit rows where USDA repeated another matrix's (fallbackUnits)
  if (unitFails && (fails.length > 0 || proof.attribute === undefined || role.fallbackUnits === undefined))
    fails.push(`its quantity unit is "${units.quantity ?? 'none'}"`);
  if (fails.length > 0)
    throw layoutError(report, `matrix ${index + 1} does not read as ${role.commodity} (${fails.join(', ')})`);
  return unitFails ? role.fallbackUnits! : units;
}

/** A sub-report being read: its spec, its matrices' units and each matrix's position. */
interface Table {
  report: SubReport;
  spec: TableSpec;
  units: Map<number, MatrixUnits>;
  positions: Map<number, number>;
}

interface Placed {
  commodity: string;
  region: string;
  marketingYear: string;
  edition: string;
  status: SupplyDemandStatus;
  figure: ReadFigure;
}

/** Where a cell of the row `attribute` (rows.ts) belongs, or why it is left out (a string); throws on a cell without year or row context. */
function placeCell(table: Table, cell: RawCell, row: RowAttribute, fileEdition: string): Placed | string {
  const { report, spec, units } = table;
  const ctx = cell.context;
  const commodity = commodityOf(table, cell);
  if (commodity.skip !== undefined) return commodity.skip;
  const year = spec.calendarYears
    ? calendarYearOf(ctx.market_year ?? '')
    : (marketingYearOf(ctx.region_header ?? '') ?? marketingYearOf(ctx.market_year ?? ''));
  if (year === undefined)
    throw layoutError(
      report,
      `a cell without a marketing year (${JSON.stringify(ctx.market_year ?? ctx.region_header ?? '')})`,
    );
  const rowName = ctx.attribute;
  if (typeof row === 'object')
    return `${tableName(report.title)}: a repeated row "${row.ambiguous}" whose parent row the table does not show (no indent)`;
  const attribute = row;
  if (rowName === undefined || attribute === undefined)
    throw layoutError(report, `a cell without a row name (${JSON.stringify(rowName ?? '')})`);
  let region = 'united_states';
  if (spec.kind === 'world') {
    // the summary layout names the region in `region_header` where the year is a `market_year`
    const header = marketingYearOf(ctx.region_header ?? '') === undefined ? ctx.region_header : undefined;
    const r = regionOf(ctx.region ?? header ?? '');
    if (r === undefined) throw layoutError(report, `a cell without a region (${JSON.stringify(ctx.region ?? '')})`);
    region = r;
  }
  const edition = columnEdition(fileEdition, ctx.forecast_month);
  if (edition === undefined)
    throw layoutError(report, `a column headed by an unknown month (${JSON.stringify(ctx.forecast_month)})`);
  const value = cellNumber(cell.value);
  if (value === undefined) return squash(cell.value) === '' ? 'empty cell' : 'cell not a number (NA)';
  const unit = unitOf(rowName, attribute, spec, units.get(cell.matrix));
  if (unit === undefined) return `${tableName(report.title)}: no unit for the row "${squash(rowName)}"`;
  return {
    commodity: commodity.id!,
    region,
    marketingYear: year.year,
    edition,
    status: year.status,
    figure: { attribute, unit, value, decimals: decimalsOf(cell.value) },
  };
}

function commodityOf({ report, spec, positions }: Table, cell: RawCell): { id?: string; skip?: string } {
  if (spec.kind === 'world') return { id: spec.commodity! };
  const index = positions.get(cell.matrix) ?? -1;
  const role = spec.matrices?.[index];
  if (role === undefined)
    return {
      skip: `${tableName(report.title)}: matrix ${index + 1} of ${report.matrices.length} (the table has ${spec.matrices?.length ?? 0})`,
    };
  if ('skip' in role) return { skip: `${tableName(report.title)}: ${role.skip}` };
  if ('commodity' in role) return { id: role.commodity };
  const name = cell.context.commodity ?? cell.context.attribute_group ?? '';
  const id = classCommodity(role.classes, name);
  if (id !== undefined) return { id };
  if (squash(name) === '') return { skip: `${tableName(report.title)}: a by-class cell without its class` };
  return { skip: `${tableName(report.title)}: ${squash(name).toLowerCase()} (no catalog commodity)` };
}

const AREA = /^area_/;

/** A row's unit: one its name states, else the price unit of the table, else by the matrix's unit rows. */
function unitOf(
  rowName: string,
  attribute: string,
  spec: TableSpec,
  units: MatrixUnits | undefined,
): string | undefined {
  const named = unitInName(rowName);
  if (named !== undefined) return named;
  if (/price/.test(attribute)) return spec.priceUnit;
  if (/ratio/.test(attribute)) return 'Percent';
  if (/per_capita/.test(attribute) && spec.perCapitaUnit !== undefined) return spec.perCapitaUnit;
  if (AREA.test(attribute)) return units?.area ?? 'Million Acres';
  if (attribute === 'yield') return units?.yield ?? spec.yieldUnit;
  return units?.quantity ?? spec.quantityUnit;
}

/** The rows one matrix holds, for the specs: raw cells of a sub-report by matrix. */
export function cellsOfMatrix(report: SubReport, matrix: number): RawCell[] {
  return report.cells.filter((c) => c.matrix === matrix);
}
