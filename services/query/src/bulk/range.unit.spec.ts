import { costRatio } from '@cds/http/testing';
import { describe, expect, it } from 'vitest';
import { ifRangeHolds, parseRange } from './range.ts';

describe('parseRange', () => {
  it('serves one range: first-last, first-, -suffix (clamped to the file)', () => {
    expect(parseRange('bytes=0-99', 1000)).toEqual({ kind: 'partial', start: 0, end: 99 });
    expect(parseRange('bytes=900-', 1000)).toEqual({ kind: 'partial', start: 900, end: 999 });
    expect(parseRange('bytes=900-5000', 1000)).toEqual({ kind: 'partial', start: 900, end: 999 });
    expect(parseRange('bytes=-100', 1000)).toEqual({ kind: 'partial', start: 900, end: 999 });
    expect(parseRange('bytes=-5000', 1000)).toEqual({ kind: 'partial', start: 0, end: 999 });
    expect(parseRange('Bytes = 5 - 5', 1000)).toEqual({ kind: 'partial', start: 5, end: 5 });
  });

  it('is unsatisfiable past the end, or for a zero suffix', () => {
    expect(parseRange('bytes=1000-', 1000)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=2000-3000', 1000)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=-0', 1000)).toEqual({ kind: 'unsatisfiable' });
  });

  it('ignores what it does not serve: no header, another unit, several ranges, malformed, last before first', () => {
    for (const header of [
      undefined,
      'items=0-1',
      'bytes=0-1,5-9',
      'bytes=abc',
      'bytes=-',
      'bytes=9-3',
      ['bytes=0-1'],
    ]) {
      expect(parseRange(header, 1000)).toEqual({ kind: 'whole' });
    }
  });
});

describe('ifRangeHolds', () => {
  const current = { etag: '"abc"', lastModified: new Date('2026-11-20T10:00:00.500Z') };
  it('holds without If-Range, for the strong ETag, or for Last-Modified to the second', () => {
    expect(ifRangeHolds(undefined, current)).toBe(true);
    expect(ifRangeHolds('"abc"', current)).toBe(true);
    expect(ifRangeHolds('Fri, 20 Nov 2026 10:00:00 GMT', current)).toBe(true);
  });
  it('fails for another tag, a weak tag, another date or garbage', () => {
    expect(ifRangeHolds('"abd"', current)).toBe(false);
    expect(ifRangeHolds('W/"abc"', current)).toBe(false);
    expect(ifRangeHolds('Fri, 20 Nov 2026 09:59:59 GMT', current)).toBe(false);
    expect(ifRangeHolds('soon', current)).toBe(false);
  });
});

describe('Range and If-Range in linear time', () => {
  // A ten times longer header costs about ten times more (a backtracking pattern: a hundred).
  const LINEAR = 30;
  const ETAG = `"${'A'.repeat(43)}"`;
  const current = { etag: ETAG, lastModified: new Date('2026-12-01T00:00:00Z') };

  it.each([
    ['spaces before the end', (n: number) => `bytes=0-${' '.repeat(n)}x`],
    ['spaces between first and the dash', (n: number) => `bytes=0${' '.repeat(n)}x-1`],
    ['spaces and tabs after the unit', (n: number) => `bytes${' \t'.repeat(n / 2)}=0-1x`],
    ['a long number', (n: number) => `bytes=${'1'.repeat(n)}-x`],
  ])('Range: %s', (_, header) => {
    const parse = (h: string) => parseRange(h, 1000);
    expect(costRatio(parse, header(800), header(8000))).toBeLessThan(LINEAR);
  });

  it.each([
    ['a tag with inner spaces', (n: number) => `"a${' '.repeat(n)}b"`],
    ['many tags', (n: number) => Array.from({ length: n / 40 }, () => ETAG).join(', ')],
    ['a long date', (n: number) => `Tue, 01 Dec 2026 00:00:00 GMT${' '.repeat(n)}x`],
  ])('If-Range: %s', (_, header) => {
    const holds = (h: string) => ifRangeHolds(h, current);
    expect(costRatio(holds, header(800), header(8000))).toBeLessThan(LINEAR);
  });

  it('still reads what the grammar allows, whatever the whitespace', () => {
    expect(parseRange(`bytes${' '.repeat(3000)}=\t0${' '.repeat(3000)}-${' '.repeat(3000)}9\t`, 1000)).toEqual({
      kind: 'partial',
      start: 0,
      end: 9,
    });
    expect(parseRange(`bytes=0-9${' '.repeat(3000)}x`, 1000)).toEqual({ kind: 'whole' });
    expect(parseRange('BYTES=-10', 1000)).toEqual({ kind: 'partial', start: 990, end: 999 });
    expect(parseRange('bytes=', 1000)).toEqual({ kind: 'whole' });
    expect(parseRange('bytes', 1000)).toEqual({ kind: 'whole' });
  });
});
