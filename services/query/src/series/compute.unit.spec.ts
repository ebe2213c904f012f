import type { StoredPoint, StoredRelease } from '@cds/read-models';
import type { ViewedPoint } from '@cds/store';
import { describe, expect, it } from 'vitest';
import { dateRange } from '../testing/fixtures.ts';
import {
  applyTransform,
  computeSeries,
  isFinerThan,
  laterRelease,
  predecessorValue,
  resample,
  round6,
  type SeriesComputation,
} from './compute.ts';
import { isoWeekStart, periodStart, yearsBetween } from './dates.ts';

const p = (d: string, v: number, extra: Partial<StoredPoint> = {}): StoredPoint => ({ d, v, ...extra });

function base(overrides: Partial<SeriesComputation>): SeriesComputation {
  return {
    type: 'open_interest',
    native: 'daily',
    frequency: 'daily',
    transform: 'none',
    sortOrder: 'asc',
    inRange: [],
    before: [],
    ...overrides,
  };
}

describe('periods', () => {
  it('ISO weeks run Monday to Sunday, across year boundaries', () => {
    expect(isoWeekStart('2024-12-30')).toBe('2024-12-30'); // Monday
    expect(isoWeekStart('2025-01-05')).toBe('2024-12-30'); // Sunday of the same ISO week
    expect(isoWeekStart('2025-01-06')).toBe('2025-01-06');
    expect(isoWeekStart('2021-01-01')).toBe('2020-12-28'); // Friday, ISO week 53 of 2020
    expect(isoWeekStart('2024-02-29')).toBe('2024-02-26');
  });
  it('monthly periods are calendar months; daily periods are days', () => {
    expect(periodStart('2024-02-29', 'monthly')).toBe('2024-02-01');
    expect(periodStart('2024-02-29', 'daily')).toBe('2024-02-29');
    expect(yearsBetween('2023-06-01', '2025-01-01')).toEqual([2023, 2024, 2025]);
  });
  it('orders frequencies: weekly is finer than monthly, daily is finer than both', () => {
    expect(isFinerThan('daily', 'weekly')).toBe(true);
    expect(isFinerThan('weekly', 'monthly')).toBe(true);
    expect(isFinerThan('monthly', 'daily')).toBe(false);
    expect(isFinerThan('weekly', 'weekly')).toBe(false);
  });
});

describe('resampling', () => {
  it('price to weekly: open first, high max, low min, close = value = last close, volume sum, dated at the last observation', () => {
    const week = [
      p('2024-12-30', 10, { o: 9, h: 11, l: 8.5, c: 10, vol: 100 }),
      p('2024-12-31', 12, { o: 10, h: 13, l: 9.5, c: 12, vol: 200 }),
      p('2025-01-02', 11, { o: 12, h: 12.5, l: 7, c: 11, vol: 300 }),
      p('2025-01-03', 14, { o: 11, h: 15, l: 10, c: 14, vol: 400 }),
    ];
    const next = [p('2025-01-06', 20, { o: 19, h: 21, l: 18, c: 20, vol: 5 })];
    expect(resample([...week, ...next], 'weekly', 'ohlc')).toEqual([
      { d: '2025-01-03', v: 14, o: 9, h: 15, l: 7, c: 14, vol: 1000 },
      { d: '2025-01-06', v: 20, o: 19, h: 21, l: 18, c: 20, vol: 5 },
    ]);
  });
  it('price fields absent from every observation stay absent', () => {
    expect(resample([p('2025-01-06', 1), p('2025-01-07', 2)], 'weekly', 'ohlc')).toEqual([
      { d: '2025-01-07', v: 2, c: 2 },
    ]);
  });
  it('volume sums, other types take the last value, by calendar month', () => {
    const pts = [p('2024-01-15', 1), p('2024-01-31', 2), p('2024-02-01', 3), p('2024-02-29', 4), p('2024-04-02', 5)];
    expect(resample(pts, 'monthly', 'sum')).toEqual([p('2024-01-31', 3), p('2024-02-29', 7), p('2024-04-02', 5)]);
    expect(resample(pts, 'monthly', 'last')).toEqual([p('2024-01-31', 2), p('2024-02-29', 4), p('2024-04-02', 5)]);
  });
  it('daily (or nothing to resample) returns the observations unchanged', () => {
    const pts = [p('2024-01-01', 1), p('2024-01-02', 2)];
    expect(resample(pts, 'daily', 'last')).toEqual(pts);
    expect(resample([], 'weekly', 'ohlc')).toEqual([]);
  });
});

describe('transforms', () => {
  const pts = [p('2024-01-01', 0.1), p('2024-01-02', 0.3), p('2024-01-03', 0.6)];
  it('change uses the predecessor before the range, rounded to 6 places', () => {
    expect(applyTransform(pts, 'change', 0.2)).toEqual([
      { d: '2024-01-01', v: -0.1 },
      { d: '2024-01-02', v: 0.2 },
      { d: '2024-01-03', v: 0.3 },
    ]);
  });
  it('change and pct_change leave the first point out when there is no predecessor', () => {
    expect(applyTransform(pts, 'change', undefined).map((x) => x.d)).toEqual(['2024-01-02', '2024-01-03']);
    expect(applyTransform(pts, 'pct_change', undefined)).toEqual([
      { d: '2024-01-02', v: 200 },
      { d: '2024-01-03', v: 100 },
    ]);
  });
  it('pct_change leaves out every point whose predecessor is 0', () => {
    const withZero = [p('2024-01-01', 0), p('2024-01-02', 5), p('2024-01-03', 0), p('2024-01-04', 3)];
    expect(applyTransform(withZero, 'pct_change', 2)).toEqual([
      { d: '2024-01-01', v: -100 },
      { d: '2024-01-03', v: -100 },
    ]);
    expect(applyTransform([p('2024-01-01', 4)], 'pct_change', 0)).toEqual([]);
  });
  it('cumulative is the running sum from the first point in range, with no float noise', () => {
    expect(applyTransform([p('a', 0.1), p('b', 0.2), p('c', 0.3)], 'cumulative', 99)).toEqual([
      { d: 'a', v: 0.1 },
      { d: 'b', v: 0.3 },
      { d: 'c', v: 0.6 },
    ]);
  });
  it('round6 removes float noise, keeps large integers and never returns -0', () => {
    expect(round6(0.1 + 0.2)).toBe(0.3);
    expect(round6(1 / 3)).toBe(0.333333);
    expect(round6(12_345_678.1234567)).toBe(12_345_678.123457);
    expect(round6(15_000_000_000.25)).toBe(15_000_000_000.25);
    expect(Object.is(round6(-0.0000001), 0)).toBe(true);
  });
});

describe('the predecessor of the first point in range', () => {
  it('daily: the last observation before start_date', () => {
    expect(predecessorValue([p('2023-12-28', 1), p('2023-12-29', 2)], 'daily', 'last')).toBe(2);
    expect(predecessorValue([], 'daily', 'last')).toBeUndefined();
  });
  it('weekly: the period of the last observation before start_date, from its observations before start_date', () => {
    // start_date 2025-01-01 (a Wednesday): Mon 12-30 and Tue 12-31 form the predecessor, summed for volume
    const before = [p('2024-12-27', 100), p('2024-12-30', 7), p('2024-12-31', 8)];
    expect(predecessorValue(before, 'weekly', 'sum')).toBe(15);
    expect(predecessorValue(before, 'weekly', 'last')).toBe(8);
  });
  it('computeSeries: change from the predecessor at the effective frequency', () => {
    const inRange = dateRange('2025-01-01', '2025-01-12').map((d, i) => p(d, 10 + i));
    const out = computeSeries(
      base({
        type: 'volume',
        frequency: 'weekly',
        transform: 'change',
        inRange,
        before: [p('2024-12-30', 1), p('2024-12-31', 2)],
      }),
    );
    // in-range weeks: Wed 1 .. Sun 5 (10..14, sum 60), Mon 6 .. Sun 12 (15..21, sum 126); predecessor 3
    expect(out).toEqual([
      { date: '2025-01-05', value: 57 },
      { date: '2025-01-12', value: 66 },
    ]);
  });
});

describe('computeSeries ordering and limits', () => {
  const inRange = dateRange('2024-01-01', '2024-01-20').map((d, i) => p(d, i, { o: i, h: i, l: i, c: i, vol: 1 }));
  it('desc + limit 5 gives the five latest points', () => {
    const out = computeSeries(base({ type: 'price', inRange, sortOrder: 'desc', limit: 5 }));
    expect(out.map((x) => x.date)).toEqual(['2024-01-20', '2024-01-19', '2024-01-18', '2024-01-17', '2024-01-16']);
    expect(out[0]).toEqual({ date: '2024-01-20', value: 19, open: 19, high: 19, low: 19, close: 19, volume: 1 });
  });
  it('with a transform, price points carry value only; transforms run in ascending order before sorting', () => {
    const out = computeSeries(base({ type: 'price', inRange, transform: 'cumulative', sortOrder: 'desc', limit: 2 }));
    expect(out).toEqual([
      { date: '2024-01-20', value: 190 },
      { date: '2024-01-19', value: 171 },
    ]);
  });
  it('without limit at most 10,000 points, the first ones in sort order', () => {
    const many = dateRange('1990-01-01', '2023-12-31').map((d) => p(d, 1));
    expect(many.length).toBeGreaterThan(10_000);
    const asc = computeSeries(base({ inRange: many }));
    expect(asc).toHaveLength(10_000);
    expect(asc[0]!.date).toBe('1990-01-01');
    const desc = computeSeries(base({ inRange: many, sortOrder: 'desc' }));
    expect(desc[0]!.date).toBe('2023-12-31');
  });
  it('non-price series never carry price fields', () => {
    const out = computeSeries(base({ type: 'stocks', inRange: [p('2024-01-01', 5, { o: 1 })] }));
    expect(out).toEqual([{ date: '2024-01-01', value: 5 }]);
  });
});

describe('publication carried through resampling and transforms', () => {
  const rel = (p: string, e = false): StoredRelease => ({
    p,
    f: p.replace('T00', 'T06'),
    ...(e ? { e: true as const } : {}),
    lo: '2024-01-01',
    hi: '2024-12-31',
  });
  const jan = rel('2024-02-01T00:00:00.000Z');
  const feb = rel('2024-03-01T00:00:00.000Z', true);
  const mar = rel('2024-04-01T00:00:00.000Z');
  const vp = (d: string, v: number, release?: StoredRelease): ViewedPoint => ({
    d,
    v,
    ...(release === undefined ? {} : { release }),
  });

  it('a resampled period carries the latest release of its observations, whatever their order', () => {
    const pts = [vp('2024-01-29', 1, feb), vp('2024-01-30', 2, jan), vp('2024-02-05', 3)];
    for (const how of ['ohlc', 'sum', 'last'] as const) {
      expect(resample(pts, 'weekly', how).map((x) => x.release)).toEqual([feb, undefined]);
    }
    expect(laterRelease(undefined, jan)).toBe(jan);
    expect(laterRelease(mar, feb)).toBe(mar);
  });

  it('change takes the later of the point and its predecessor; cumulative the latest so far', () => {
    const pts = [vp('2024-01-02', 10, feb), vp('2024-01-03', 11, jan), vp('2024-01-04', 13, mar)];
    expect(applyTransform(pts, 'change', 9, jan).map((x) => x.release)).toEqual([feb, feb, mar]);
    expect(applyTransform(pts, 'pct_change', 9).map((x) => x.release)).toEqual([feb, feb, mar]);
    expect(applyTransform(pts, 'cumulative', undefined).map((x) => x.release)).toEqual([feb, feb, mar]);
    // without releases (data stored before versions) nothing is added
    expect(applyTransform([vp('2024-01-02', 1), vp('2024-01-03', 2)], 'change', 0)).toEqual([
      { d: '2024-01-02', v: 1 },
      { d: '2024-01-03', v: 1 },
    ]);
  });

  it('computeSeries renders published_at, first_seen_at, the estimate flag and the revisions', () => {
    const point: ViewedPoint = {
      d: '2024-01-31',
      v: 12,
      o: 11,
      release: feb,
      earlier: [{ d: '2024-01-31', v: 10, o: 9, release: jan }],
    };
    expect(computeSeries(base({ type: 'price', inRange: [point] }))).toEqual([
      {
        date: '2024-01-31',
        value: 12,
        open: 11,
        published_at: feb.p,
        first_seen_at: feb.f,
        published_at_estimated: true,
        revisions: [{ value: 10, open: 9, published_at: jan.p, first_seen_at: jan.f }],
      },
    ]);
    // the first point's predecessor comes from before start_date, with its release
    const changed = computeSeries(
      base({ transform: 'change', inRange: [vp('2024-01-03', 5, jan)], before: [vp('2024-01-02', 4, mar)] }),
    );
    expect(changed).toEqual([{ date: '2024-01-03', value: 1, published_at: mar.p, first_seen_at: mar.f }]);
  });
});
