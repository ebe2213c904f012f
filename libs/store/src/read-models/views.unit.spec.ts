import { describe, expect, it } from 'vitest';
import type { SeriesRangeQuery, ViewedPoint } from '../index.ts';
import { seriesRangeFromBuckets, type ViewedSeriesBucket } from './views.ts';

/** Weekday points of a year, sorted by date, as a bucket in a view gives them. */
function bucket(year: number): ViewedSeriesBucket {
  const points: ViewedPoint[] = [];
  for (let t = Date.UTC(year, 0, 1); t < Date.UTC(year + 1, 0, 1); t += 86_400_000) {
    const day = new Date(t).getUTCDay();
    if (day !== 0 && day !== 6) points.push({ d: new Date(t).toISOString().slice(0, 10), v: t / 1e12 });
  }
  return { points };
}

const buckets = new Map([2023, 2024, 2025].map((y) => [y, bucket(y)]));
const all = [...buckets.values()].flatMap((b) => b.points);
const query = (startDate: string, endDate: string): SeriesRangeQuery => ({
  commodityId: 'GOLD',
  type: 'price',
  startDate,
  endDate,
  firstYear: 2023,
  lastYear: 2025,
});
const range = (startDate: string, endDate: string) =>
  seriesRangeFromBuckets(query(startDate, endDate), (ys) => Promise.resolve(ys.map((y) => buckets.get(y) ?? null)));

describe('seriesRangeFromBuckets', () => {
  it('takes the points from start_date to end_date, both included, across years, by binary search', async () => {
    const windows: [string, string][] = [
      ['2024-01-01', '2024-12-31'], // a whole year: its bucket's points as they are
      ['2023-12-07', '2024-12-06'], // across New Year
      ['2024-03-02', '2024-03-03'], // a weekend: nothing
      ['2024-03-04', '2024-03-04'], // one day
      ['2023-06-15', '2025-02-10'], // three years
      ['2022-01-01', '2023-01-03'], // before the first point
      ['2025-12-31', '2026-06-30'], // after the last point
      ['0001-01-01', '9999-12-31'], // everything
    ];
    for (const [start, end] of windows) {
      const expected = all.filter((p) => p.d >= start && p.d <= end);
      const got = await range(start, end);
      expect(got.points, `${start}..${end}`).toEqual(expected);
      // the bucket's own point objects, not copies
      expect(got.points.every((p, i) => p === expected[i])).toBe(true);
    }
  });
});
