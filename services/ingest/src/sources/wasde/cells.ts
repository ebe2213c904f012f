import { decodeXml, scanXml, XmlError } from '../common/xml.ts';

/**
 * The first pass over a WASDE XML file: one walk of the document that collects, for each
 * sub-report (`<srNN><Report Name="srNN" sub_report_title=… Report_Month=…>`), every `Cell` that
 * carries a value, with the context its ancestors gave. The context is every attribute on the way
 * down, its name without the numeric suffix USDA appends (numbering continues across a file's
 * tables: `attribute1` in one, `attribute4` in the next), the nearest ancestor's value winning.
 * The unit filler rows (`m1_unit_descr3="Million Bushels"`) are kept per matrix and row number.
 */

/** A cell's context: attribute, market_year, forecast_month, region, region_header, … (suffix stripped). */
export type CellContext = Readonly<Record<string, string>>;

export interface RawCell {
  /** The `matrixN` the cell lies in (its N), or 0 outside one. */
  matrix: number;
  context: CellContext;
  /** The `cell_value*` text, decoded (`6,100`, `106.2 *`, `NA`, or empty). */
  value: string;
}

export interface SubReport {
  /** The element name: `sr12`. */
  name: string;
  title: string;
  subtitle: string;
  /** `Report_Month`: `June 2026`. */
  month: string;
  cells: RawCell[];
  /** The `matrixN` numbers of the sub-report, in document order (a US table's commodities by position). */
  matrices: number[];
  /** Per matrix, per unit row number: the row's label fragments in document order (`Thousand Short`, `Tons`). */
  unitRows: Map<number, Map<number, string[]>>;
}

/** The file is not WASDE XML we read (malformed, hostile, or without sub-reports): nothing is published. */
export class WasdeFileError extends Error {
  override readonly name = 'WasdeFileError';
}

const SUFFIX = /^(.*?)(\d+)$/;
const MAX_UNIT_PARTS = 4;
const MATRIX = /^matrix(\d+)$/;
const UNIT_ROW = /^m\d+_unit_descr(\d+)$/;
/** The meats table's unit label, in fragments beside its rows (`Million`, ` Pounds /4`): one label. */
const UNIT_LABEL = /^m\d+_unit_description\d*$/;
/** `cell_value3`; the meats table's `m1_cell_value1`. */
const CELL_VALUE = /^(?:m\d+_)?cell_value\d*$/;
/** The matrix prefix the meats table puts on its names (`m1_commodity1`, `m1_market_year1`). */
const MATRIX_PREFIX = /^m\d+_/;
/**
 * The context a cell is read with (names without their suffix); other attributes (fillers, titles,
 * footers) are not kept, so a context holds a handful of keys whatever the document holds.
 */
const CONTEXT_KEYS = new Set([
  'attribute',
  'attribute_group',
  'commodity',
  'market_year',
  'forecast_month',
  'region',
  'region_header',
]);

/** `attribute4` → `attribute`, `market_year1` → `market_year`, `m1_commodity1` → `commodity`, `Report_Month` as is. */
export const contextKey = (name: string): string => (SUFFIX.exec(name)?.[1] || name).replace(MATRIX_PREFIX, '');

interface Frame {
  context: Record<string, string>;
  matrix: number;
  report?: SubReport;
}

/** Whitespace runs (CRLF inside names included) as one space, trimmed. */
export const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * The sub-reports of a WASDE XML document, in file order. Throws WasdeFileError when the XML is
 * malformed or past the tokenizer's bounds.
 */
export function readSubReports(xml: string): SubReport[] {
  const reports: SubReport[] = [];
  const stack: Frame[] = [{ context: {}, matrix: 0 }];
  const matricesSeen = new Set<string>();
  const onOpen = (name: string, attrs: Record<string, string>) => {
    const parent = stack.at(-1)!;
    const frame: Frame = { context: parent.context, matrix: parent.matrix, report: parent.report };
    const m = MATRIX.exec(name);
    if (m !== null) {
      frame.matrix = Number(m[1]);
      if (frame.report !== undefined && !matricesSeen.has(`${reports.length}:${frame.matrix}`)) {
        matricesSeen.add(`${reports.length}:${frame.matrix}`);
        frame.report.matrices.push(frame.matrix);
      }
    }
    if (name === 'Report' && attrs.sub_report_title !== undefined) {
      frame.report = {
        // `Name="sr12"`; the July 2010 file writes `name="sr17"`
        name: decodeXml(attrs.Name ?? attrs.name ?? ''),
        title: squash(decodeXml(attrs.sub_report_title)),
        subtitle: squash(decodeXml(attrs.sub_report_subtitle ?? '')),
        month: squash(decodeXml(attrs.Report_Month ?? '')),
        cells: [],
        matrices: [],
        unitRows: new Map(),
      };
      frame.context = {};
      reports.push(frame.report);
    }
    let value: string | undefined;
    for (const [key, raw] of Object.entries(attrs)) {
      if (CELL_VALUE.test(key)) {
        value = decodeXml(raw);
        continue;
      }
      const unit = UNIT_ROW.exec(key);
      if (unit !== null && frame.report !== undefined) {
        noteUnit(frame.report, frame.matrix, Number(unit[1]), decodeXml(raw));
        continue;
      }
      if (UNIT_LABEL.test(key) && frame.report !== undefined) {
        noteUnit(frame.report, frame.matrix, 1, decodeXml(raw).replace(/(?:^|\s)(?:\d+\/|\/\d+)(?=\s|$)/g, ' '));
        continue;
      }
      const ctxKey = contextKey(key);
      if (!CONTEXT_KEYS.has(ctxKey)) continue;
      if (frame.context === parent.context) frame.context = { ...parent.context };
      frame.context[ctxKey] = decodeXml(raw);
    }
    if (name === 'Cell' && value !== undefined && frame.report !== undefined)
      frame.report.cells.push({ matrix: frame.matrix, context: frame.context, value });
    stack.push(frame);
  };
  try {
    scanXml(
      xml,
      {
        open: onOpen,
        close: () => void stack.pop(),
        text: () => undefined,
      },
      // the real files nest about 12 deep; a value is a number, a name a line of a table
      { maxDepth: 48, maxAttributes: 64, maxAttributeChars: 16 * 1024 },
    );
  } catch (err) {
    if (err instanceof XmlError) throw new WasdeFileError(`${err.message}; nothing was published`);
    throw err;
  }
  return reports;
}

function noteUnit(report: SubReport, matrix: number, row: number, raw: string): void {
  const label = squash(raw);
  if (label === '') return;
  let rows = report.unitRows.get(matrix);
  if (rows === undefined) report.unitRows.set(matrix, (rows = new Map<number, string[]>()));
  const parts = rows.get(row) ?? [];
  // a label comes in a fragment or two (`Thousand Short`, `Tons`); more is not a unit row
  if (parts.length < MAX_UNIT_PARTS && !parts.includes(label)) parts.push(label);
  rows.set(row, parts);
}
