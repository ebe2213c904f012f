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
