import { DatasetLedger, LEDGER_MAX_ENTRIES, type LedgerEntry } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { encodeLedger, LedgerBook } from './book.ts';

const P1 = '2026-03-04T15:30:00.000Z';
const P2 = '2026-03-11T15:30:00.000Z';
const entry = (lo: string, hi: string, f: string, p = P1, e?: true): LedgerEntry => ({
  lo,
  hi,
  f,
  p,
  ...(e ? { e } : {}),
});

function bookOf(entries: readonly LedgerEntry[]): LedgerBook {
  const book = new LedgerBook();
  for (const e of entries) book.add(e);
  return book;
}

describe('LedgerBook: merging the stretches of a release', () => {
  it('merges stretches of the same release that touch or lie within 10 days, keeping the earliest f', () => {
    const book = bookOf([
      entry('2026-02-02', '2026-02-06', '2026-03-04T15:31:00.000Z'),
      // 10 days after the 6th: merged
      entry('2026-02-16', '2026-02-20', '2026-03-04T15:30:30.000Z'),
    ]);
    expect(book.entries()).toEqual([entry('2026-02-02', '2026-02-20', '2026-03-04T15:30:30.000Z')]);
  });

  it('keeps stretches more than 10 days apart, and other releases, as entries of their own', () => {
    const book = bookOf([
      entry('2026-02-02', '2026-02-06', '2026-03-04T15:31:00.000Z'),
      entry('2026-02-17', '2026-02-20', '2026-03-04T15:31:00.000Z'),
      entry('2026-02-05', '2026-02-13', '2026-03-11T15:31:00.000Z', P2),
      // the same instant, estimated: another release
      entry('2026-02-03', '2026-02-03', '2026-03-04T15:32:00.000Z', P1, true),
    ]);
    expect(book.entries()).toEqual([
      entry('2026-02-02', '2026-02-06', '2026-03-04T15:31:00.000Z'),
      entry('2026-02-03', '2026-02-03', '2026-03-04T15:32:00.000Z', P1, true),
      entry('2026-02-05', '2026-02-13', '2026-03-11T15:31:00.000Z', P2),
      entry('2026-02-17', '2026-02-20', '2026-03-04T15:31:00.000Z'),
    ]);
    expect(book.size).toBe(4);
  });

  it('joins the entries a new stretch bridges into one', () => {
    const book = bookOf([
      entry('2026-01-01', '2026-01-05', '2026-03-04T15:31:00.000Z'),
      entry('2026-01-20', '2026-01-22', '2026-03-04T15:33:00.000Z'),
      entry('2026-02-10', '2026-02-10', '2026-03-04T15:34:00.000Z'),
    ]);
    expect(book.size).toBe(3);
    expect(book.add(entry('2026-01-10', '2026-01-12', '2026-03-04T15:35:00.000Z'))).toBe(true);
    expect(book.entries()).toEqual([
      entry('2026-01-01', '2026-01-22', '2026-03-04T15:31:00.000Z'),
      entry('2026-02-10', '2026-02-10', '2026-03-04T15:34:00.000Z'),
    ]);
    expect(book.size).toBe(2);
  });

  it('is idempotent under replay: the same stretches applied again later change nothing and move no f', () => {
    const first = [
      entry('2026-01-05', '2026-01-09', '2026-01-14T15:31:00.000Z', '2026-01-14T15:30:00.000Z'),
      entry('2026-01-12', '2026-01-16', '2026-01-21T15:31:00.000Z', '2026-01-21T15:30:00.000Z'),
      entry('2026-01-02', '2026-01-02', '2026-01-14T15:32:00.000Z', '2026-01-14T15:30:00.000Z'),
    ];
    const book = bookOf(first);
    const before = book.entries();
    const replayed = first.map((e) => ({ ...e, f: '2026-12-06T17:00:00.000Z' })).reverse();
    for (const e of replayed) expect(book.add(e)).toBe(false);
    expect(book.entries()).toEqual(before);
  });

  it('ends with the same ledger whatever the order of the additions (a replica merging another copy in)', () => {
    const all = [
      entry('2026-01-05', '2026-01-09', '2026-01-14T15:35:00.000Z'),
      entry('2026-01-01', '2026-01-03', '2026-01-14T15:31:00.000Z'),
      entry('2026-01-20', '2026-01-21', '2026-01-14T15:36:00.000Z'),
      entry('2026-01-12', '2026-01-12', '2026-01-14T15:40:00.000Z'),
      entry('2026-01-05', '2026-01-05', '2026-01-21T15:31:00.000Z', P2),
    ];
    const expected = bookOf(all).entries();
    expect(bookOf([...all].reverse()).entries()).toEqual(expected);
    expect(bookOf([all[2]!, all[0]!, all[4]!, all[3]!, all[1]!]).entries()).toEqual(expected);
    expect(expected).toEqual([
      entry('2026-01-01', '2026-01-21', '2026-01-14T15:31:00.000Z'),
      entry('2026-01-05', '2026-01-05', '2026-01-21T15:31:00.000Z', P2),
    ]);
  });

  it('an earlier f replayed moves the stretch earlier, never later', () => {
    const book = bookOf([entry('2026-01-05', '2026-01-09', '2026-01-14T15:35:00.000Z')]);
    expect(book.add(entry('2026-01-05', '2026-01-09', '2026-01-14T15:31:00.000Z'))).toBe(true);
    expect(book.add(entry('2026-01-06', '2026-01-07', '2026-01-14T15:50:00.000Z'))).toBe(false);
    expect(book.entries()).toEqual([entry('2026-01-05', '2026-01-09', '2026-01-14T15:31:00.000Z')]);
  });
});

describe('LedgerBook: the caps', () => {
  const weekly = (n: number): LedgerEntry[] =>
    Array.from({ length: n }, (_, i) => {
      const day = new Date(Date.UTC(1990, 0, 2 + 7 * i)).toISOString().slice(0, 10);
      return entry(day, day, `${day}T20:31:00.000Z`, `${day}T20:30:00.000Z`);
    });

  it('keeps the LEDGER_MAX_ENTRIES latest by hi, the oldest dropped first', () => {
    const all = weekly(LEDGER_MAX_ENTRIES + 3);
    const book = bookOf([...all].reverse());
    expect(book.trim()).toBe(3);
    expect(book.size).toBe(LEDGER_MAX_ENTRIES);
    const kept = book.entries();
    expect(kept[0]).toEqual(all[3]);
    expect(kept.at(-1)).toEqual(all.at(-1));
    expect(book.trim()).toBe(0);
  });

  it('encodes a DatasetLedger sorted by lo, within the byte bound (the oldest by hi dropped)', () => {
    const book = bookOf(weekly(500));
    const text = encodeLedger('a_dataset', book, 10_000);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(10_000);
    const ledger = DatasetLedger.parse(JSON.parse(text));
    expect(ledger.dataset).toBe('a_dataset');
    expect(ledger.entries.length).toBeGreaterThan(50);
    expect(ledger.entries.at(-1)).toEqual(weekly(500).at(-1));
    expect(ledger.entries.map((e) => e.lo)).toEqual([...ledger.entries.map((e) => e.lo)].sort());
    expect(book.size).toBe(ledger.entries.length);
    const whole = encodeLedger('a_dataset', bookOf(weekly(5)), 10_000);
    expect(DatasetLedger.parse(JSON.parse(whole)).entries).toEqual(weekly(5));
  });
});
