import type { CotReport } from '@cds/contracts';
import { describe, expect, it } from 'vitest';
import { changesBetween, historyNeeded, indexOf, pctOfOi, percentTenths, withAnalytics } from './analytics.ts';

function legacy(date: string, oi: number, commercial: [number, number], nc: [number, number, number]): CotReport {
  return {
    report_date: date,
    commodity: 'GOLD',
    format: 'legacy',
    open_interest: oi,
    commercial: { long: commercial[0], short: commercial[1], net: commercial[0] - commercial[1] },
    non_commercial: { long: nc[0], short: nc[1], spreading: nc[2], net: nc[0] - nc[1] },
    non_reportable: { long: 10, short: 20, net: -10 },
  };
}

/** Weekly legacy reports whose commercial net is the given value (long = net + 1000, short = 1000). */
function series(nets: readonly number[]): CotReport[] {
  return nets.map((net, i) => {
    const day = new Date(Date.UTC(2020, 0, 7 + 7 * i)).toISOString().slice(0, 10);
    return legacy(day, 10_000, [net + 1000, 1000], [500, 400, 5]);
  });
}

describe('percentTenths: one decimal, half away from zero, exact', () => {
  it('rounds as the CFTC prints its % of OI columns', () => {
    expect(percentTenths(123_456, 400_000)).toBe(30.9); // 30.864
    expect(percentTenths(1, 2000)).toBe(0.1); // 0.05 exactly: away from zero
    expect(percentTenths(1, 2001)).toBe(0); // 0.04997…
    expect(percentTenths(3, 8)).toBe(37.5);
    expect(percentTenths(1, 3)).toBe(33.3);
    expect(percentTenths(2, 3)).toBe(66.7);
    expect(percentTenths(0, 5)).toBe(0);
    expect(percentTenths(5, 5)).toBe(100);
    // no binary noise at the .x5 boundaries: 100 × part / whole = k + 0.05 exactly rounds up for every whole
    for (let whole = 2000; whole <= 200_000; whole += 2000) {
      expect(percentTenths((whole / 2000) * 3, whole)).toBe(0.2); // 0.15
      expect(percentTenths((whole / 2000) * 2001, whole)).toBe(100.1); // 100.05
    }
  });
});

describe('changes', () => {
  it('this minus previous for every group, open interest and spreading; net change = long change - short change', () => {
    const prev = legacy('2020-01-07', 1000, [100, 250], [40, 30, 7]);
    const cur = legacy('2020-01-14', 1100, [120, 240], [35, 50, 9]);
    expect(changesBetween(prev, cur)).toEqual({
      open_interest: 100,
      commercial: { long: 20, short: -10, net: 30 },
      non_commercial: { long: -5, short: 20, spreading: 2, net: -25 },
      non_reportable: { long: 0, short: 0, net: 0 },
    });
  });
});

describe('pct_of_oi', () => {
  it('each group as a percent of open interest; absent when open interest is 0', () => {
    expect(pctOfOi(legacy('2020-01-07', 400, [123, 7], [1, 2, 200]))).toEqual({
      commercial: { long: 30.8, short: 1.8 }, // 30.75 → 30.8, 1.75 → 1.8
      non_commercial: { long: 0.3, short: 0.5, spreading: 50 }, // 0.25 → 0.3
      non_reportable: { long: 2.5, short: 5 },
    });
    expect(pctOfOi(legacy('2020-01-07', 0, [0, 0], [0, 0, 0]))).toBeUndefined();
  });
});

describe('cot_index', () => {
  it('(net - min) / (max - min) × 100 over the window, the current report included', () => {
    expect(indexOf([10, 30, 20])).toBe(50);
    expect(indexOf([10, 30, 30])).toBe(100);
    expect(indexOf([10, 30, 10])).toBe(0);
    expect(indexOf([-300, 0, -100])).toBe(66.7);
    expect(indexOf([0, 7, 1])).toBe(14.3); // 14.2857…
  });
  it('max = min (a flat window, or a window of one) is null', () => {
    expect(indexOf([5, 5, 5])).toBeNull();
    expect(indexOf([5])).toBeNull();
  });
  it('absent on reports with fewer than index_weeks reports up to them; present from the index_weeks-th', () => {
    const nets = Array.from({ length: 30 }, (_, i) => (i * 37) % 101);
    const all = series(nets);
    const out = withAnalytics(all, [], ['cot_index'], 26);
    for (let i = 0; i < 25; i += 1) expect(out[i]!.cot_index).toBeUndefined();
    for (let i = 25; i < 30; i += 1) {
      const window = nets.slice(i - 25, i + 1);
      const expected = indexOf(window);
      expect(out[i]!.cot_index).toEqual({ commercial: expected, non_commercial: null, non_reportable: null });
    }
    // the 26th report by hand: nets 0..25 of (i*37)%101
    const w = nets.slice(0, 26);
    const [min, max] = [Math.min(...w), Math.max(...w)];
    expect((out[25]!.cot_index as Record<string, number | null>).commercial).toBe(
      percentTenths(nets[25]! - min, max - min),
    );
  });
});

describe('withAnalytics across page boundaries', () => {
  const nets = Array.from({ length: 40 }, (_, i) => (i * 53) % 97);
  const all = series(nets);
  const full = withAnalytics(all, [], ['changes', 'pct_of_oi', 'cot_index'], 26);

  it('the first report has no changes; every other has them', () => {
    expect(full[0]!.changes).toBeUndefined();
    expect(full[1]!.changes).toMatchObject({ commercial: { net: nets[1]! - nets[0]! } });
  });
  it('a page given its history (as the repository supplies it) equals the same reports computed whole, in any order', () => {
    for (const [from, to] of [
      [30, 35],
      [1, 4],
      [25, 40],
      [0, 3],
    ] as const) {
      const page = all.slice(from, to).reverse();
      const history = all.slice(Math.max(0, from - historyNeeded(['changes', 'cot_index'], 26)), from);
      const got = withAnalytics(page, history, ['changes', 'pct_of_oi', 'cot_index'], 26);
      expect(got).toEqual(full.slice(from, to).reverse());
    }
  });
  it('history needed: 1 for changes, index_weeks - 1 for cot_index, 0 for pct_of_oi', () => {
    expect(historyNeeded(['pct_of_oi'], 156)).toBe(0);
    expect(historyNeeded(['changes'], 156)).toBe(1);
    expect(historyNeeded(['changes', 'cot_index'], 26)).toBe(25);
  });
  it('adds only what was asked for', () => {
    const only = withAnalytics(all.slice(5, 6), all.slice(4, 5), ['changes'], 26)[0]!;
    expect(Object.keys(only)).toContain('changes');
    expect(only.pct_of_oi).toBeUndefined();
    expect(only.cot_index).toBeUndefined();
  });
});

describe('cit reports', () => {
  const cit = (date: string, oi: number, index: [number, number]): CotReport => ({
    report_date: date,
    commodity: 'CORN',
    format: 'cit',
    scope: 'futures_and_options',
    open_interest: oi,
    commercial: { long: 100, short: 300, net: -200 },
    non_commercial: { long: 250, short: 100, spreading: 40, net: 150 },
    index_traders: { long: index[0], short: index[1], net: index[0] - index[1] },
    non_reportable: { long: 60, short: 90, net: -30 },
  });
  it('changes, pct_of_oi and cot_index cover the four groups, index traders included', () => {
    const prev = cit('2025-01-07', 1000, [300, 20]);
    const cur = cit('2025-01-14', 1200, [330, 30]);
    expect(changesBetween(prev, cur)).toEqual({
      open_interest: 200,
      commercial: { long: 0, short: 0, net: 0 },
      non_commercial: { long: 0, short: 0, spreading: 0, net: 0 },
      index_traders: { long: 30, short: 10, net: 20 },
      non_reportable: { long: 0, short: 0, net: 0 },
    });
    expect(pctOfOi(cur)).toEqual({
      commercial: { long: 8.3, short: 25 },
      non_commercial: { long: 20.8, short: 8.3, spreading: 3.3 },
      index_traders: { long: 27.5, short: 2.5 },
      non_reportable: { long: 5, short: 7.5 },
    });
    const weeks = Array.from({ length: 26 }, (_, i) =>
      cit(new Date(Date.UTC(2025, 0, 7 + 7 * i)).toISOString().slice(0, 10), 1000, [300 + i, 20]),
    );
    const [newest] = withAnalytics([weeks.at(-1)!], weeks.slice(0, -1), ['cot_index'], 26);
    expect((newest as Record<string, unknown>).cot_index).toEqual({
      commercial: null,
      non_commercial: null,
      index_traders: 100,
      non_reportable: null,
    });
  });
});
