import { IsoDate } from '@cds/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createCsvAssembler, normalizeHeader, parseCsvRecord, readCsvRecords, scanCsvRecord } from './csv.ts';
import { streamJsonArrayObjects } from './json.ts';
import { readLineBatches, readLines } from './text.ts';
import { boundedChunks, InputBoundError } from './bounds.ts';
import { isRealDate, readDecimal, readInt, usDateToIso } from './values.ts';

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

describe('input bounds', () => {
  /** Chunks of `size` characters of `text`, counting how many were pulled. */
  function counted(text: string, size: number) {
    const seen = { chunks: 0 };
    function* gen() {
      for (let i = 0; i < text.length; i += size) {
        seen.chunks++;
        yield text.slice(i, i + size);
      }
    }
    return { seen, chunks: gen() };
  }

  it('refuses a line past the bound as soon as it passes it, whatever follows', async () => {
    await expect(all(readLines(['a\n', 'b'.repeat(101), '\n'], 100))).rejects.toThrow(
      new InputBoundError('line 2 is longer than the 100 characters read (not a line-based file?)'),
    );
    // a file with no line break at all: read up to the bound, then refused; ten times longer costs the same
    const short = counted('x'.repeat(10_000), 10);
    const long = counted('x'.repeat(100_000), 10);
    await expect(all(readLines(short.chunks, 100))).rejects.toBeInstanceOf(InputBoundError);
    await expect(all(readLines(long.chunks, 100))).rejects.toBeInstanceOf(InputBoundError);
    expect([short.seen.chunks, long.seen.chunks]).toEqual([11, 11]);
    // lines within the bound, the last one unterminated, are read
    expect(await all(readLines(['a'.repeat(100), '\n', 'b'.repeat(100)], 100))).toEqual([
      'a'.repeat(100),
      'b'.repeat(100),
    ]);
  });

  it('refuses a JSON element or a string past the bound, reading no further', async () => {
    const big = `{"data":[{"a":1},{"a":"${'x'.repeat(500)}"}]}`;
    const parts = counted(big, 50);
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const el of streamJsonArrayObjects(parts.chunks, 'data', 200)) seen.push(el);
      })(),
    ).rejects.toThrow('JSON element 2 is longer than the 200 characters read (not one record?)');
    expect(seen).toEqual([{ index: 0, value: { a: 1 } }]);
    expect(parts.seen.chunks).toBeLessThan(big.length / 50);
    // the same element in one chunk is refused too
    await expect(all(streamJsonArrayObjects([big], 'data', 200))).rejects.toBeInstanceOf(InputBoundError);
    await expect(all(streamJsonArrayObjects(['{"', 'k'.repeat(300), '":[]}'], 'data', 200))).rejects.toThrow(
      'a JSON string is longer than the 200 characters read',
    );
  });

  it('counts the bytes of a stream against its bound', async () => {
    expect(await all(boundedChunks(['ab', 'cd'], 4, 'f'))).toEqual(['ab', 'cd']);
    await expect(all(boundedChunks(['ab', 'cd', 'é'], 4, 'f'))).rejects.toThrow('f is larger than the 4 bytes read');
  });
});

describe('selective CSV scanning', () => {
  const cell = fc.oneof(
    fc.constantFrom('', ' 12', 'a', '.', '"q"', '"a,b"', '"say ""hi"""', '"x"tail', 'mid"quote', '"open', '""'),
    fc.string({ maxLength: 6 }),
  );
  const line = fc.array(cell, { minLength: 1, maxLength: 12 }).map((cells) => cells.join(','));

  it('counts fields and copies the picked ones exactly as parseCsvRecord reads them', () => {
    fc.assert(
      fc.property(line, fc.array(fc.boolean(), { maxLength: 14 }), (text, wanted) => {
        const pick = new Int32Array(wanted.length).fill(-1);
        let slots = 0;
        wanted.forEach((w, i) => {
          if (w) pick[i] = slots++;
        });
        const out: string[] = [];
        const n = scanCsvRecord(text, pick, out);
        const fields = parseCsvRecord(text);
        if (fields === undefined) {
          expect(n).toBe(-1);
          return;
        }
        expect(n).toBe(fields.length);
        wanted.forEach((w, i) => {
          if (w && i < fields.length) expect(out[pick[i]!]).toBe(fields[i]);
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('joins a quoted field across lines and reports a record left open', () => {
    const assembler = createCsvAssembler(parseCsvRecord);
    const got = ['a,"b', 'c",d', '', 'e', '"never'].map((l) => assembler.push(l));
    expect(got).toEqual([
      undefined,
      { value: ['a', 'b\nc', 'd'], line: 1 },
      undefined,
      { value: ['e'], line: 4 },
      undefined,
    ]);
    expect(assembler.end()).toEqual({ line: 5, error: 'unterminated quoted field starting on line 5' });
  });

  it('reads lines a chunk at a time', async () => {
    expect(await all(readLineBatches(['a\r\nb\nc', 'd\n', 'e']))).toEqual([['a', 'b'], ['cd'], ['e']]);
  });
});

describe('integer cells', () => {
  it('the fast path reads what the general rule reads', () => {
    const raw = fc.oneof(
      fc.integer().map((n) => `${' '.repeat(n & 3)}${n}${' '.repeat((n >> 2) & 3)}`),
      fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
      fc.string({ maxLength: 8 }),
      fc.constantFrom('-', '-0', '007', ' \t5', '1,234', '12.5', '.', '', '(D)', '9007199254740993'),
    );
    fc.assert(
      fc.property(raw, (s) => {
        const t = s.trim();
        const expected = /^-?\d+$/.test(t) ? { ok: true, value: Number(t) } : undefined;
        const got = readInt(s);
        if (expected) expect(got).toEqual(expected);
        else expect(got.ok && !/^-?\d{1,3}(?:,\d{3})+$/.test(t)).toBe(false);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('calendar dates', () => {
  it('isRealDate is the contract’s date rule (proleptic Gregorian, year 0000 included)', () => {
    const shaped = fc
      .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }))
      .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
    fc.assert(
      fc.property(fc.oneof(shaped, fc.constantFrom('0000-02-29', '1900-02-29', '2000-02-29', '0004-02-29')), (iso) => {
        expect(isRealDate(iso)).toBe(IsoDate.safeParse(iso).success);
      }),
      { numRuns: 3000 },
    );
  });
});
