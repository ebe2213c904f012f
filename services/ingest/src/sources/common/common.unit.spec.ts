import { describe, expect, it } from 'vitest';
import { normalizeHeader, parseCsvRecord, readCsvRecords } from './csv.ts';
import { streamJsonArrayObjects } from './json.ts';
import { readLines } from './text.ts';
import { readDecimal, readInt, usDateToIso } from './values.ts';

const all = async <T>(gen: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of gen) out.push(x);
  return out;
};

describe('line and CSV reading', () => {
  it('splits LF and CRLF lines across chunk boundaries, including a CR split from its LF', async () => {
    expect(await all(readLines(['a,b\r', '\nc', 'd\r\n\r\ne']))).toEqual(['a,b', 'cd', '', 'e']);
    const bytes = new TextEncoder().encode('\uFEFFé\nü');
    expect(await all(readLines([bytes.slice(0, 4), bytes.slice(4)]))).toEqual(['é', 'ü']);
  });

  it('parses quoted fields with commas, doubled quotes and newlines', async () => {
    expect(parseCsvRecord('"CORN, GRAIN - YIELD","say ""hi""",,x')).toEqual([
      'CORN, GRAIN - YIELD',
      'say "hi"',
      '',
      'x',
    ]);
    expect(parseCsvRecord('a,')).toEqual(['a', '']);
    expect(parseCsvRecord('"open')).toBeUndefined();
    expect(await all(readCsvRecords(['h1,h2\n"multi\nline",2\n\nx,3\n"never closed,4\n']))).toEqual([
      { fields: ['h1', 'h2'], line: 1 },
      { fields: ['multi\nline', '2'], line: 2 },
      { fields: ['x', '3'], line: 5 },
      { fields: [], line: 6, error: 'unterminated quoted field starting on line 6' },
    ]);
  });

  it('folds header spellings together', () => {
    expect(normalizeHeader(' Total Reportable Positions-Long (All)')).toBe('total_reportable_positions_long_all');
    expect(normalizeHeader('Swap__Positions_Short_All')).toBe('swap_positions_short_all');
    expect(normalizeHeader('Report_Date_as_YYYY-MM-DD')).toBe('report_date_as_yyyy_mm_dd');
  });
});

describe('cell values', () => {
  it('reads padded integers, `.` and withheld codes as missing, and thousands separators', () => {
    expect(readInt('  513710')).toEqual({ ok: true, value: 513710 });
    expect(readInt('.')).toEqual({ ok: false, missing: true, raw: '.' });
    expect(readInt('1,234')).toEqual({ ok: true, value: 1234 });
    expect(readInt('12.5')).toEqual({ ok: false, missing: false, raw: '12.5' });
    expect(readDecimal('11,100')).toEqual({ ok: true, value: 11100 });
    for (const w of ['(D)', '(NA)', '(Z)', '', ' ']) expect(readDecimal(w)).toMatchObject({ ok: false, missing: true });
    expect(readDecimal('1,2')).toMatchObject({ ok: false, missing: false });
    expect(usDateToIso('11/9/2022')).toBe('2022-11-09');
    expect(usDateToIso('02/30/2024')).toBeUndefined();
  });
});

describe('streaming JSON arrays', () => {
  it('extracts the elements of a nested data array across arbitrary chunk splits', async () => {
    const doc =
      '{"response":{"total":2,"note":"a \\"data\\": [x]","data":[{"a":"}{","b":[1,2]},{"a":"2"}]},"data2":[]}';
    for (let size = 1; size <= doc.length; size += 7) {
      const chunks: string[] = [];
      for (let i = 0; i < doc.length; i += size) chunks.push(doc.slice(i, i + size));
      expect(await all(streamJsonArrayObjects(chunks, 'data'))).toEqual([
        { index: 0, value: { a: '}{', b: [1, 2] } },
        { index: 1, value: { a: '2' } },
      ]);
    }
  });

  it('reads a root array and reports bad elements', async () => {
    expect(await all(streamJsonArrayObjects(['[{"a":1},{"b":tru}]'], null))).toEqual([
      { index: 0, value: { a: 1 } },
      { index: 1, error: expect.stringMatching(/^invalid JSON element/) },
    ]);
  });
});
