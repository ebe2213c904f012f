import type { RejectedItem } from '../types.ts';
import { rejected } from './records.ts';
import type { ParseStats } from './stats.ts';
import { readLineBatches, type TextInput } from './text.ts';

/** One CSV record and the 1-based line it starts on. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/** A quoted field may span lines; beyond this many characters the record is given up as malformed. */
const MAX_RECORD_CHARS = 1_000_000;

function identityPick(length: number): Int32Array {
  const pick = new Int32Array(length);
  for (let i = 1; i < length; i++) pick[i] = i;
  return pick;
}

/** pick[i] = i: scanCsvRecord with it copies every field of a record of up to 4,095 characters. */
const EVERY_COLUMN = identityPick(4096);

/**
 * Parses one CSV record (RFC 4180: quoted fields may hold commas, doubled quotes and newlines).
 * Returns undefined when a quoted field is still open at the end of `text`.
 */
export function parseCsvRecord(text: string): string[] | undefined {
  if (text.indexOf('"') === -1) return text.split(',');
  // scanCsvRecord picking every column: a record has at most one field more than it has characters
  // (and than it has commas, counted for the rare record too long for the shared table)
  let everyColumn = EVERY_COLUMN;
  if (text.length >= EVERY_COLUMN.length) {
    let fields = 1;
    for (let c = text.indexOf(','); c !== -1; c = text.indexOf(',', c + 1)) fields++;
    everyColumn = identityPick(fields);
  }
  const out: string[] = [];
  return scanCsvRecord(text, everyColumn, out) === -1 ? undefined : out;
}

/**
 * Scans one CSV record (RFC 4180, as parseCsvRecord reads it) but copies only the columns `pick`
 * selects (`out[pick[i]]` = field i when `pick[i] >= 0`; columns past `pick` are skipped), so a
 * 129-column row costs one search per field and a string only for the fields read. Returns the
 * number of fields, or -1 when a quoted field is still open at the end of `text`.
 */
export function scanCsvRecord(text: string, pick: Int32Array, out: string[]): number {
  const n = text.length;
  const picked = pick.length;
  let i = 0;
  let col = 0;
  for (;;) {
    const slot = col < picked ? pick[col]! : -1;
    if (text.charCodeAt(i) === 34) {
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q === -1) return -1;
        if (slot >= 0) value += text.slice(j, q);
        if (text.charCodeAt(q + 1) === 34) {
          if (slot >= 0) value += '"';
          j = q + 2;
          continue;
        }
        j = q + 1;
        break;
      }
      // tolerate stray characters between the closing quote and the delimiter (kept verbatim)
      const comma = text.indexOf(',', j);
      const end = comma === -1 ? n : comma;
      if (slot >= 0) out[slot] = end > j ? value + text.slice(j, end) : value;
      col++;
      if (comma === -1) return col;
      i = comma + 1;
    } else {
      const comma = text.indexOf(',', i);
      if (comma === -1) {
        if (slot >= 0) out[slot] = text.slice(i);
        return col + 1;
      }
      if (slot >= 0) out[slot] = text.slice(i, comma);
      col++;
      i = comma + 1;
    }
    if (i === n) {
      if (col < picked && pick[col]! >= 0) out[pick[col]!] = '';
      return col + 1;
    }
  }
}

const unterminated = (line: number) => `unterminated quoted field starting on line ${line}`;

/** What a CsvAssembler made of a line: a record, an unterminated record given up, or nothing yet. */
export type Assembled<T> = { value: T; line: number; error?: undefined } | { line: number; error: string };

export interface CsvAssembler<T> {
  /** Feeds the next line; returns a completed record (or error), or undefined (empty line, open quote). */
  push(line: string): Assembled<T> | undefined;
  /** At the end of input: the record still open, as an error. */
  end(): Assembled<T> | undefined;
}

/**
 * Joins lines into CSV records synchronously (a quoted field may span lines): `parse` turns a
 * record's text into T, or undefined while a quoted field is still open. Empty lines are skipped.
 * An unterminated quote is reported once and parsing continues after the offending stretch.
 */
export function createCsvAssembler<T>(parse: (text: string) => T | undefined): CsvAssembler<T> {
  let lineNo = 0;
  let pending = '';
  let pendingStart = 0;
  return {
    push(line) {
      lineNo++;
      if (pending.length === 0) {
        if (line.length === 0) return undefined;
        const value = parse(line);
        if (value !== undefined) return { value, line: lineNo };
        pending = line;
        pendingStart = lineNo;
        return undefined;
      }
      pending += '\n' + line;
      const value = parse(pending);
      if (value !== undefined) {
        pending = '';
        return { value, line: pendingStart };
      }
      if (pending.length > MAX_RECORD_CHARS) {
        pending = '';
        return { line: pendingStart, error: unterminated(pendingStart) };
      }
      return undefined;
    },
    end() {
      if (pending.length === 0) return undefined;
      pending = '';
      return { line: pendingStart, error: unterminated(pendingStart) };
    },
  };
}

/**
 * Streams CSV records from text chunks. Empty lines are skipped. An unterminated quote yields
 * `{ fields: [], line, error }` once and parsing continues after the offending stretch.
 */
export async function* readCsvRecords(input: TextInput): AsyncGenerator<CsvRecord & { error?: string }> {
  const assembler = createCsvAssembler(parseCsvRecord);
  for await (const lines of readLineBatches(input)) {
    for (const line of lines) {
      const r = assembler.push(line);
      if (r === undefined) continue;
      yield r.error === undefined ? { fields: r.value, line: r.line } : { fields: [], line: r.line, error: r.error };
    }
  }
  const r = assembler.end();
  if (r?.error !== undefined) yield { fields: [], line: r.line, error: r.error };
}

/** Folds a header cell to snake_case so spellings line up (`Swap__Positions_Short_All` = `swap_positions_short_all`). */
export function normalizeHeader(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/%/g, 'pct')
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

/** A data row of a CSV table and the 1-based line it starts on. */
export interface CsvRow {
  kind: 'row';
  fields: string[];
  line: number;
}

/**
 * A CSV source with a header row: `header` reads the header (cells folded by normalizeHeader) and
 * returns why it is not the expected one, if it is not (then that is the last thing yielded, as a
 * rejection); then every row, counted in `stats.rows`. A record that does not parse comes as its
 * rejection; a file with no record at all as one rejection at line 1.
 */
export async function* readCsvTable(
  input: TextInput,
  options: { file: string; stats?: ParseStats | undefined },
  header: (names: string[]) => string | undefined,
): AsyncGenerator<CsvRow | RejectedItem> {
  const { file, stats } = options;
  let headerRead = false;
  for await (const rec of readCsvRecords(input)) {
    if (rec.error) {
      yield rejected(file, rec.line, rec.error, stats);
      continue;
    }
    if (!headerRead) {
      headerRead = true;
      const wrong = header(rec.fields.map(normalizeHeader));
      if (wrong === undefined) continue;
      yield rejected(file, rec.line, wrong, stats);
      return;
    }
    if (stats) stats.rows++;
    yield { kind: 'row', fields: rec.fields, line: rec.line };
  }
  if (!headerRead) yield rejected(file, 1, 'empty file: no header row', stats);
}
