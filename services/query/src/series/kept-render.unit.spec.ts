import type { ViewedPoint } from '@cds/store';
import { describe, expect, it } from 'vitest';
import { responseSerializer } from '../http/response-serializer.ts';
import { dateRange } from '../testing/fixtures.ts';
import { computeSeries, type SeriesComputation } from './compute.ts';
import { isKeptRender, keepYear, keptDataBytes } from './kept-render.ts';

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

/** Two kept years as the read memo gives them: each year's points one array, marked by keepYear. */
function keptYears(change?: number): ViewedPoint[] {
  const year = (from: string, to: string, base: number): ViewedPoint[] =>
    dateRange(from, to, true).map((d, i) => ({
      d,
      v: base + i / 8 + (i === change ? 1 : 0),
      o: base,
      h: base + 1,
      l: base - 1,
      c: base + i / 8,
      ...(i === 3 ? { vol: 12 } : {}),
      release: { p: `${d}T21:00:00.000Z`, f: `${d}T21:01:00.000Z`, lo: d, hi: d },
    }));
  const a = year('2024-10-01', '2024-12-31', 70);
  const b = year('2025-01-01', '2025-03-31', 80);
  keepYear(a);
  keepYear(b);
  return [...a.slice(40), ...b];
}

describe("kept years (answers written from slices of each year's bytes)", () => {
  const serialize = responseSerializer(undefined as never, false);
  const bytesOf = (out: ReturnType<typeof serialize>) =>
    typeof out === 'string' ? out : Buffer.concat(out.pieces).toString('utf8');
  const hashOf = (out: ReturnType<typeof serialize>) => (typeof out === 'string' ? undefined : out.hash);
  const inRange = keptYears();
  // a multi-byte character after the points: the answer's bytes, not its characters, are counted
  const meta2 = { ...meta, unit: 'USD/m³' };

  it("writes JSON.stringify's bytes, across the two years, in any order and limit, first and later", () => {
    for (const over of [{}, { sortOrder: 'desc' as const }, { limit: 30 }, { sortOrder: 'desc' as const, limit: 5 }]) {
      for (let round = 0; round < 2; round += 1) {
        const data = computeSeries(computation({ ...over, inRange, kept: true }));
        const body = { data, meta: { ...meta2, count: data.length } };
        const out = serialize(body);
        // newest first, each point is a run of its own: past 32 runs the texts are joined instead
        expect(typeof out).toBe(over.sortOrder === 'desc' && over.limit === undefined ? 'string' : 'object');
        expect(bytesOf(out)).toBe(JSON.stringify(body));
      }
    }
  });

  it('names the bytes by the runs taken: the same answer the same hash, any other byte another', () => {
    const body = (over: Partial<SeriesComputation>, m: Record<string, unknown> = meta2) => {
      const data = computeSeries(computation({ inRange, ...over, kept: true }));
      return { data, meta: { ...m, count: data.length } };
    };
    const whole = hashOf(serialize(body({})));
    expect(whole).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hashOf(serialize(body({})))).toBe(whole);
    const others = [
      hashOf(serialize(body({ limit: 30 }))),
      hashOf(serialize(body({ sortOrder: 'desc', limit: 30 }))),
      hashOf(serialize(body({ inRange: inRange.slice(1) }))),
      hashOf(serialize(body({}, { ...meta2, unit: 'USD/bbl' }))),
      hashOf(serialize(body({ type: 'stocks' }))),
    ];
    expect(new Set([whole, ...others]).size).toBe(6);
    // the years read again (new objects, as after the memo dropped them): the same hash; with one
    // value changed, another
    expect(hashOf(serialize(body({ inRange: keptYears() })))).toBe(whole);
    const changed = hashOf(serialize(body({ inRange: keptYears(50) })));
    expect(changed).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(changed).not.toBe(whole);
  });

  it('shares the bytes of a run of at least half its year, and copies a shorter one', () => {
    const data = computeSeries(computation({ inRange, kept: true }));
    const kept = keptDataBytes(data)!;
    // two runs: 2024's last 20-odd points (copied) and the whole of the first quarter of 2025
    expect(kept.pieces).toHaveLength(3);
    const [tail2024, comma, quarter2025] = kept.pieces;
    expect(comma?.toString()).toBe(',');
    expect(tail2024!.byteLength).toBe(tail2024!.buffer.byteLength);
    expect(quarter2025!.buffer.byteLength).toBeGreaterThan(quarter2025!.byteLength);
    expect(keptDataBytes(data)!.pieces[2]!.buffer).toBe(quarter2025!.buffer);
  });

  it('joins texts (hashed by the response cache) when an item is not a point of a kept year', () => {
    const data = computeSeries(computation({ kept: true }));
    expect(keptDataBytes(data)).toBeUndefined();
    const body = { data, meta: { ...meta, count: data.length } };
    expect(serialize(body)).toBe(JSON.stringify(body));
  });
});
