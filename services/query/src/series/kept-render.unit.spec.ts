import type { ViewedPoint } from '@cds/store';
import { describe, expect, it } from 'vitest';
import { responseSerializer } from '../http/response-serializer.ts';
import { dateRange } from '../testing/fixtures.ts';
import { computeSeries, type SeriesComputation } from './compute.ts';
import { isKeptRender } from './kept-render.ts';

// Points as the read memo keeps them: the same objects for every request.
const kept: ViewedPoint[] = dateRange('2025-01-01', '2025-03-31', true).map((d, i) => ({
  d,
  v: 70 + i / 7,
  o: 70,
  h: 71.5,
  l: 69.25,
  c: 70 + i / 7,
  vol: 1000 + i,
  release: { p: `${d}T21:00:00.000Z`, f: `${d}T21:01:00.000Z`, lo: d, hi: d, ...(i % 5 === 0 ? { e: true } : {}) },
}));

const computation = (over: Partial<SeriesComputation> = {}): SeriesComputation => ({
  type: 'price',
  native: 'daily',
  frequency: 'daily',
  transform: 'none',
  sortOrder: 'asc',
  inRange: kept,
  before: [],
  ...over,
});

const meta = { commodity_id: 'CRUDE_OIL_WTI', type: 'price', count: 0, unit: undefined, request_id: '' };

describe('kept rendered points (the read memo current view)', () => {
  it('renders each kept point once: the same objects, equal to a fresh rendering', () => {
    const first = computeSeries(computation({ kept: true }));
    const again = computeSeries(computation({ kept: true }));
    expect(again.every((p, i) => p === first[i])).toBe(true);
    expect(first).toEqual(computeSeries(computation()));
    expect(isKeptRender(first[0])).toBe(true);
    expect(isKeptRender(computeSeries(computation())[0])).toBe(false);
    // another kind of series of the same points (no price fields) is another rendering
    const stocks = computeSeries(computation({ type: 'stocks', kept: true }));
    expect(stocks[0]).not.toHaveProperty('open');
    expect(stocks).toEqual(computeSeries(computation({ type: 'stocks' })));
  });

  it("serializes to JSON.stringify's bytes, first and later, in any order and limit", () => {
    const serialize = responseSerializer(undefined as never, false);
    for (const over of [{}, { sortOrder: 'desc' as const }, { sortOrder: 'desc' as const, limit: 7 }, { limit: 1 }]) {
      for (let round = 0; round < 2; round += 1) {
        const data = computeSeries(computation({ ...over, kept: true }));
        const body = { data, meta: { ...meta, count: data.length } };
        expect(serialize(body)).toBe(JSON.stringify(body));
      }
    }
    const empty = { data: [], meta };
    expect(serialize(empty)).toBe(JSON.stringify(empty));
  });

  it('renders resampled and transformed answers anew (their points are not the kept ones)', () => {
    const weekly = computeSeries(computation({ frequency: 'weekly', kept: true }));
    expect(isKeptRender(weekly[0])).toBe(false);
    const change = computeSeries(computation({ transform: 'change', kept: true }));
    expect(isKeptRender(change[0])).toBe(false);
  });
});
