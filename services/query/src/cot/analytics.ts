import type { CotInclude, CotReport } from '@cds/contracts';

/**
 * The opt-in COT analytics (docs/decisions.md, "COT analytics"): pure computations over reports of
 * one commodity and COT dataset (a format in one scope). Integers only until the final division, so the rounding is exact.
 */

type Group = { long: number; short: number; spreading?: number; net: number };

const GROUPS = {
  legacy: ['commercial', 'non_commercial', 'non_reportable'],
  disaggregated: ['producer_merchant', 'swap_dealer', 'managed_money', 'other_reportable'],
  cit: ['commercial', 'non_commercial', 'index_traders', 'non_reportable'],
} as const satisfies Record<CotReport['format'], readonly string[]>;

function groupsOf(r: CotReport): [string, Group][] {
  const rec = r as unknown as Record<string, Group>;
  return GROUPS[r.format].map((name) => [name, rec[name]!]);
}

/**
 * round(100 × part / whole, 1), half away from zero, for 0 ≤ part and whole > 0, in integers:
 * tenths = floor((2000 × part + whole) / (2 × whole)). Exact for counts below 2^53 / 2000.
 */
export function percentTenths(part: number, whole: number): number {
  return Math.floor((2000 * part + whole) / (2 * whole)) / 10;
}

/** The change of each group (and open interest) from `prev` to `cur`; net's is long's minus short's. */
export function changesBetween(prev: CotReport, cur: CotReport): Record<string, unknown> {
  const before = new Map(groupsOf(prev));
  const out: Record<string, unknown> = { open_interest: cur.open_interest - prev.open_interest };
  for (const [name, g] of groupsOf(cur)) {
    const p = before.get(name)!;
    out[name] = {
      long: g.long - p.long,
      short: g.short - p.short,
      ...(g.spreading === undefined ? {} : { spreading: g.spreading - (p.spreading ?? 0) }),
      net: g.net - p.net,
    };
  }
  return out;
}

/** Each group's long, short (and spreading) as a percent of open interest; undefined when it is 0. */
export function pctOfOi(r: CotReport): Record<string, unknown> | undefined {
  const oi = r.open_interest;
  if (!(oi > 0)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, g] of groupsOf(r)) {
    out[name] = {
      long: percentTenths(g.long, oi),
      short: percentTenths(g.short, oi),
      ...(g.spreading === undefined ? {} : { spreading: percentTenths(g.spreading, oi) }),
    };
  }
  return out;
}

/**
 * (net - min) / (max - min) × 100 over `nets` (the window, the current net last), one decimal half
 * away from zero; null when max = min.
 */
export function indexOf(nets: readonly number[]): number | null {
  const net = nets[nets.length - 1]!;
  let min = net;
  let max = net;
  for (const n of nets) {
    if (n < min) min = n;
    if (n > max) max = n;
  }
  if (max === min) return null;
  return percentTenths(net - min, max - min);
}

/** How many reports before the earliest one of a page the analytics need. */
export function historyNeeded(include: readonly CotInclude[], indexWeeks: number): number {
  let n = 0;
  if (include.includes('changes')) n = 1;
  if (include.includes('cot_index')) n = Math.max(n, indexWeeks - 1);
  return n;
}

/**
 * Adds the requested analytics to `page` (any order, contiguous in date order) given `history`:
 * the reports before the page's earliest one, in ascending date order, at least
 * historyNeeded(…) of them unless the commodity has fewer (then all of them: `history` must then
 * begin at the commodity's first report). Returns new reports in the page's order.
 */
export function withAnalytics(
  page: readonly CotReport[],
  history: readonly CotReport[],
  include: readonly CotInclude[],
  indexWeeks: number,
): CotReport[] {
  const ascending = [...page].sort((a, b) => (a.report_date < b.report_date ? -1 : 1));
  const all = [...history, ...ascending];
  const position = new Map(all.map((r, i) => [r.report_date, i]));
  const wantChanges = include.includes('changes');
  const wantPct = include.includes('pct_of_oi');
  const wantIndex = include.includes('cot_index');
  return page.map((r) => {
    const i = position.get(r.report_date)!;
    const extra: Record<string, unknown> = {};
    if (wantChanges && i > 0) extra.changes = changesBetween(all[i - 1]!, r);
    if (wantPct) {
      const p = pctOfOi(r);
      if (p !== undefined) extra.pct_of_oi = p;
    }
    if (wantIndex && i + 1 >= indexWeeks) {
      const window = all.slice(i + 1 - indexWeeks, i + 1);
      const index: Record<string, number | null> = {};
      for (const [name] of groupsOf(r)) {
        index[name] = indexOf(window.map((w) => (w as unknown as Record<string, Group>)[name]!.net));
      }
      extra.cot_index = index;
    }
    return { ...r, ...extra };
  });
}
