import { readLines, type TextInput } from './text.ts';

/** One CSV record and the 1-based line it starts on. */
export interface CsvRecord {
  fields: string[];
  line: number;
}

/** A quoted field may span lines; beyond this many characters the record is given up as malformed. */
const MAX_RECORD_CHARS = 1_000_000;

/**
 * Parses one CSV record (RFC 4180: quoted fields may hold commas, doubled quotes and newlines).
 * Returns undefined when a quoted field is still open at the end of `text`.
 */
export function parseCsvRecord(text: string): string[] | undefined {
  if (text.indexOf('"') === -1) return text.split(',');
  const fields: string[] = [];
  let i = 0;
  const n = text.length;
  for (;;) {
    if (text.charCodeAt(i) === 34) {
      // quoted field
      let value = '';
      let j = i + 1;
      for (;;) {
        const q = text.indexOf('"', j);
        if (q === -1) return undefined;
        value += text.slice(j, q);
        if (text.charCodeAt(q + 1) === 34) {
          value += '"';
          j = q + 2;
          continue;
        }
        j = q + 1;
        break;
      }
      // tolerate stray characters between the closing quote and the delimiter (kept verbatim)
      const comma = text.indexOf(',', j);
      const end = comma === -1 ? n : comma;
      if (end > j) value += text.slice(j, end);
      fields.push(value);
      if (comma === -1) return fields;
      i = comma + 1;
    } else {
      const comma = text.indexOf(',', i);
      if (comma === -1) {
        fields.push(text.slice(i));
        return fields;
      }
      fields.push(text.slice(i, comma));
      i = comma + 1;
    }
    if (i === n) {
      fields.push('');
      return fields;
    }
  }
}

const unterminated = (line: number) => `unterminated quoted field starting on line ${line}`;

/**
 * Streams CSV records from text chunks. Empty lines are skipped. An unterminated quote yields
 * `{ fields: [], line, error }` once and parsing continues after the offending stretch.
 */
export async function* readCsvRecords(input: TextInput): AsyncGenerator<CsvRecord & { error?: string }> {
  let lineNo = 0;
  let pending = '';
  let pendingStart = 0;
  for await (const line of readLines(input)) {
    lineNo++;
    if (pending.length === 0) {
      if (line.length === 0) continue;
      const fields = parseCsvRecord(line);
      if (fields) {
        yield { fields, line: lineNo };
        continue;
      }
      pending = line;
      pendingStart = lineNo;
      continue;
    }
    pending += '\n' + line;
    const fields = parseCsvRecord(pending);
    if (fields) {
      yield { fields, line: pendingStart };
      pending = '';
    } else if (pending.length > MAX_RECORD_CHARS) {
      yield { fields: [], line: pendingStart, error: unterminated(pendingStart) };
      pending = '';
    }
  }
  if (pending.length > 0) {
    yield { fields: [], line: pendingStart, error: unterminated(pendingStart) };
  }
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
