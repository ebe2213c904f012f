import { decodeXml, localName, scanXml, XmlError } from '../common/xml.ts';
import { openZip, type ZipArchive, type ZipLimits } from '../common/zip-guard.ts';

/**
 * A small bounded reader of one sheet of an .xlsx workbook: the zip is checked and read by
 * ../common/zip-guard.ts (the guard and the reader are the same code), then only xl/workbook.xml, its
 * relationships, xl/sharedStrings.xml and the one sheet are inflated, each within its declared size,
 * and scanned once, linearly, by the shared tokenizer (sources/common/xml.ts). It builds nothing for merged ranges, data
 * validations, conditional formats, hyperlinks or styles: a cell exists only where the sheet
 * holds a `<c>` with a value, and every cell's row and column must lie within the limits.
 */

/** Limits on the workbook: the zip's, and the sheet's rows, columns and shared strings. */
export interface XlsxLimits extends ZipLimits {
  maxRows: number;
  maxColumns: number;
  maxSharedStrings: number;
}

/** A cell's value: a number, text (shared, inline or a formula's), a boolean, an error, or a formula without a value. */
export type XlsxValue = number | string | boolean | { error: string } | { formula: true };

/** One sheet's cells: `rows.get(r)?.[c]` is the value at row r, column c (both 1-based). */
export interface XlsxSheet {
  rows: ReadonlyMap<number, readonly (XlsxValue | undefined)[]>;
  /** The last row that holds a cell. */
  rowCount: number;
}

/** The workbook's XML is malformed, or its sheet lies outside the limits: nothing is read. */
export class XlsxError extends Error {
  override readonly name = 'XlsxError';
}

/** OOXML's `_x000D_` escapes in cell text. */
const decodeOoxml = (s: string) =>
  s.indexOf('_x') === -1
    ? s
    : s.replace(/_x([0-9A-Fa-f]{4})_/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** `CK803` → { col: 89, row: 803 }; undefined for anything else (columns up to XFD, 3 letters). */
export function cellRef(ref: string): { col: number; row: number } | undefined {
  const m = /^\$?([A-Za-z]{1,3})\$?([0-9]{1,7})$/.exec(ref);
  if (!m) return undefined;
  let col = 0;
  for (const ch of m[1]!.toUpperCase()) col = col * 26 + (ch.charCodeAt(0) - 64);
  return { col, row: Number(m[2]) };
}

/** The last row and column of a range (`A1:CK803`, or one cell). */
function rangeEnd(ref: string): { col: number; row: number } | undefined {
  const parts = ref.split(':');
  if (parts.length > 2) return undefined;
  const cells = parts.map(cellRef);
  if (cells.some((c) => c === undefined)) return undefined;
  return {
    col: Math.max(...cells.map((c) => c!.col)),
    row: Math.max(...cells.map((c) => c!.row)),
  };
}

/** The text of a `<t>` run list (a shared string or an inline one), phonetic runs (`<rPh>`) left out. */
function textCollector() {
  let inT = false;
  let inPhonetic = 0;
  let parts = '';
  return {
    open(name: string) {
      if (name === 't') inT = true;
      else if (name === 'rPh') inPhonetic++;
    },
    close(name: string) {
      if (name === 't') inT = false;
      else if (name === 'rPh') inPhonetic--;
    },
    text(raw: string) {
      if (inT && inPhonetic === 0) parts += raw;
    },
    take(): string {
      const out = decodeOoxml(decodeXml(parts));
      parts = '';
      return out;
    },
  };
}

function readSharedStrings(xml: string, limits: XlsxLimits): string[] {
  const out: string[] = [];
  let collector: ReturnType<typeof textCollector> | undefined;
  scanXml(xml, {
    open(name, attrs) {
      if (name === 'sst' && Number(attrs.uniqueCount ?? 0) > limits.maxSharedStrings)
        throw new XlsxError(
          `the workbook declares ${attrs.uniqueCount} shared strings, more than the ${limits.maxSharedStrings} read`,
        );
      if (name === 'si') {
        if (out.length >= limits.maxSharedStrings)
          throw new XlsxError(`the workbook holds more than the ${limits.maxSharedStrings} shared strings read`);
        collector = textCollector();
      } else collector?.open(name);
    },
    close(name) {
      if (name === 'si' && collector) {
        out.push(collector.take());
        collector = undefined;
      } else collector?.close(name);
    },
    text(raw) {
      collector?.text(raw);
    },
  });
  return out;
}

function readSheet(xml: string, strings: readonly string[], limits: XlsxLimits, what: string): XlsxSheet {
  const rows = new Map<number, (XlsxValue | undefined)[]>();
  const beyond = (where: string) =>
    new XlsxError(`${what} ${where}, beyond the ${limits.maxRows} rows by ${limits.maxColumns} columns read`);
  let inData = false;
  let row: (XlsxValue | undefined)[] | undefined;
  let rowNum = 0;
  let lastRow = 0;
  let col = 0;
  // the cell being read
  let type = '';
  let ref = '';
  let formula = false;
  let inV = false;
  let v: string | undefined;
  let inline: ReturnType<typeof textCollector> | undefined;

  scanXml(xml, {
    open(name, attrs) {
      if (inline) {
        inline.open(name);
        return;
      }
      switch (name) {
        case 'dimension': {
          const end = rangeEnd(attrs.ref ?? '');
          if (end === undefined) throw new XlsxError(`${what} has a malformed dimension "${attrs.ref ?? ''}"`);
          if (end.row > limits.maxRows || end.col > limits.maxColumns)
            throw beyond(`declares ${end.row} rows by ${end.col} columns (dimension ${attrs.ref})`);
          break;
        }
        case 'mergeCell': {
          const end = rangeEnd(attrs.ref ?? '');
          if (end === undefined) throw new XlsxError(`${what} has a malformed merged range "${attrs.ref ?? ''}"`);
          if (end.row > limits.maxRows || end.col > limits.maxColumns) throw beyond(`merges the range ${attrs.ref}`);
          break;
        }
        case 'sheetData':
          inData = true;
          break;
        case 'row': {
          if (!inData) break;
          const r = attrs.r === undefined ? lastRow + 1 : Number(attrs.r);
          if (!Number.isInteger(r) || r < 1) throw new XlsxError(`${what} has a malformed row number "${attrs.r}"`);
          if (r > limits.maxRows) throw beyond(`has a row ${r}`);
          if (r <= lastRow) throw new XlsxError(`${what} lists row ${r} after row ${lastRow}`);
          rowNum = r;
          lastRow = r;
          row = undefined;
          col = 0;
          break;
        }
        case 'c': {
          if (rowNum === 0) throw new XlsxError(`${what} has a cell outside a row`);
          ref = attrs.r ?? '';
          const at = ref === '' ? { col: col + 1, row: rowNum } : cellRef(ref);
          if (at === undefined) throw new XlsxError(`${what} has a malformed cell reference "${ref}"`);
          if (at.row !== rowNum) throw new XlsxError(`${what} has cell ${ref} in row ${rowNum}`);
          if (at.col > limits.maxColumns) throw beyond(`has a cell ${ref}`);
          if (at.col <= col) throw new XlsxError(`${what} lists cell ${ref} after column ${col} of row ${rowNum}`);
          col = at.col;
          type = attrs.t ?? 'n';
          formula = false;
          v = undefined;
          break;
        }
        case 'f':
          formula = true;
          break;
        case 'v':
          inV = true;
          v = '';
          break;
        case 'is':
          inline = textCollector();
          break;
        default:
          break;
      }
    },
    close(name) {
      if (inline) {
        if (name !== 'is') {
          inline.close(name);
          return;
        }
        v = inline.take();
        inline = undefined;
        return;
      }
      if (name === 'v') inV = false;
      else if (name === 'sheetData') inData = false;
      else if (name === 'c' && rowNum > 0) {
        const value = cellValue(type, formula, v, strings, ref || `column ${col} of row ${rowNum}`, what);
        if (value !== undefined) {
          row ??= [];
          row[col] = value;
          rows.set(rowNum, row);
        }
      }
    },
    text(raw) {
      if (inline) inline.text(raw);
      else if (inV) v += raw;
    },
  });
  let rowCount = 0;
  for (const r of rows.keys()) rowCount = Math.max(rowCount, r);
  return { rows, rowCount };
}

function cellValue(
  type: string,
  formula: boolean,
  raw: string | undefined,
  strings: readonly string[],
  ref: string,
  what: string,
): XlsxValue | undefined {
  if (raw === undefined || (raw === '' && type !== 'str' && type !== 'inlineStr'))
    return formula ? { formula: true } : undefined;
  switch (type) {
    case 's': {
      const index = Number(decodeXml(raw));
      const s = Number.isInteger(index) ? strings[index] : undefined;
      if (s === undefined)
        throw new XlsxError(
          `${what}: cell ${ref} refers to shared string "${raw}", the workbook has ${strings.length}`,
        );
      return s;
    }
    case 'str':
      return decodeOoxml(decodeXml(raw));
    case 'inlineStr':
      return raw;
    case 'b':
      return decodeXml(raw).trim() !== '0';
    case 'e':
      return { error: decodeXml(raw).trim() };
    default: {
      const s = decodeXml(raw).trim();
      return s === '' ? undefined : Number(s);
    }
  }
}

/** `worksheets/sheet2.xml` from xl/workbook.xml's relationships → `xl/worksheets/sheet2.xml`. */
function resolvePart(target: string): string {
  const parts = target.startsWith('/') ? [] : ['xl'];
  for (const seg of target.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  return parts.join('/');
}

const utf8 = (zip: ZipArchive, name: string) => zip.read(name).toString('utf8');

/**
 * Reads the sheet named `sheetName` of the .xlsx in `bytes`, within `limits`. Returns the
 * workbook's sheet names and the sheet (undefined when there is no such sheet). Throws
 * ZipGuardError for the container, XlsxError for the content. `cost.inflatedBytes` tells what was
 * inflated, refused or not (0 when the container was refused).
 */
export function readXlsxSheet(
  bytes: Uint8Array,
  sheetName: string,
  limits: XlsxLimits,
  cost?: { inflatedBytes: number },
): { sheetNames: string[]; sheet: XlsxSheet | undefined } {
  const zip = openZip(bytes, limits);
  try {
    return readParts(zip, sheetName, limits);
  } catch (err) {
    // the tokenizer's refusals are the workbook's content refused
    if (err instanceof XmlError) throw new XlsxError(err.message);
    throw err;
  } finally {
    if (cost) cost.inflatedBytes = zip.inflatedBytes;
  }
}

function readParts(
  zip: ZipArchive,
  sheetName: string,
  limits: XlsxLimits,
): { sheetNames: string[]; sheet: XlsxSheet | undefined } {
  if (!zip.has('xl/workbook.xml')) throw new XlsxError('the archive has no xl/workbook.xml (not an .xlsx workbook)');
  const sheets: { name: string; rid: string }[] = [];
  scanXml(utf8(zip, 'xl/workbook.xml'), {
    open(name, attrs) {
      if (name !== 'sheet') return;
      if (sheets.length >= limits.maxEntries)
        throw new XlsxError(`the workbook lists more than ${limits.maxEntries} sheets`);
      const rid = Object.entries(attrs).find(([k]) => k.includes(':') && localName(k) === 'id')?.[1] ?? '';
      sheets.push({ name: decodeXml(attrs.name ?? ''), rid: decodeXml(rid) });
    },
    close() {},
    text() {},
  });
  const sheetNames = sheets.map((s) => s.name);
  const wanted = sheets.find((s) => s.name === sheetName);
  if (wanted === undefined) return { sheetNames, sheet: undefined };

  const rels = new Map<string, { type: string; target: string; external: boolean }>();
  if (zip.has('xl/_rels/workbook.xml.rels'))
    scanXml(utf8(zip, 'xl/_rels/workbook.xml.rels'), {
      open(name, attrs) {
        if (name === 'Relationship' && attrs.Id !== undefined)
          rels.set(decodeXml(attrs.Id), {
            type: decodeXml(attrs.Type ?? ''),
            target: decodeXml(attrs.Target ?? ''),
            external: attrs.TargetMode === 'External',
          });
      },
      close() {},
      text() {},
    });
  const rel = rels.get(wanted.rid);
  const sheetPart = rel && !rel.external ? resolvePart(rel.target) : undefined;
  if (sheetPart === undefined || !zip.has(sheetPart))
    throw new XlsxError(`the workbook's sheet "${sheetName}" points at no part of the archive`);
  const stringsRel = [...rels.values()].find((r) => r.type.endsWith('/sharedStrings') && !r.external);
  const stringsPart = stringsRel ? resolvePart(stringsRel.target) : 'xl/sharedStrings.xml';
  const strings = zip.has(stringsPart) ? readSharedStrings(utf8(zip, stringsPart), limits) : [];
  const sheet = readSheet(utf8(zip, sheetPart), strings, limits, `the "${sheetName}" sheet`);
  return { sheetNames, sheet };
}
