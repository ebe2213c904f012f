import type { SupplyDemandCheck } from '@cds/contracts';
import type { ReadFigure } from './sheets.ts';

/**
 * The consistency check of a balance sheet on ingest, supply_equals_use_plus_ending_stocks, within
 * the table's rounding: every printed figure is rounded to its last digit (half a unit either
 * way), so a sum of n printed figures may miss the printed total by n/2 units of the finest last
 * digit among them. In the June 2026 file the US tables close within one unit (soybean meal
 * 2024/25: 59,704 supply against 59,305 use + 398 ending stocks) and the world table's country
 * rows within two hundredths.
 *
 * - A US table states `supply_total` and `use_total`: supply_total = use_total + ending_stocks.
 * - A world table states neither: beginning_stocks + production + imports = domestic_total +
 *   exports + ending_stocks. Not checked on the world aggregates (`world`, `world_less_…`,
 *   `total_foreign`): their imports and exports are sums over local marketing years, which differ
 *   by the world's trade imbalance, so that balance does not close by design.
 *
 * Where a table states what else leaves the balance, it is on the use side: cotton's `unaccounted`
 * (U.S.) and `loss` (world). The U.S. meats table's `Total Use` is domestic use: its `exports` are
 * on the use side beside it (supply_total = use_total + exports + ending_stocks).
 *
 * Each unit is checked on its own (a merged sheet holds the US table in bushels and the world
 * table's row in metric tons); a sheet missing a term is not checked.
 */

export const SUPPLY_CHECK: SupplyDemandCheck = 'supply_equals_use_plus_ending_stocks';

interface Sides {
  supply: readonly string[];
  use: readonly string[];
  /** Terms counted on the use side when the sheet has them. */
  optional?: readonly string[];
}
const US_SIDES: Sides = { supply: ['supply_total'], use: ['use_total', 'ending_stocks'], optional: ['unaccounted'] };
/** The meats: `Total Use` is domestic use, exports beside it. */
const US_BESIDE_EXPORTS: Sides = { supply: ['supply_total'], use: ['use_total', 'exports', 'ending_stocks'] };
const WORLD_SIDES: Sides = {
  supply: ['beginning_stocks', 'production', 'imports'],
  use: ['domestic_total', 'exports', 'ending_stocks'],
  optional: ['loss'],
};

/** Regions whose balance does not close by design (the world's trade imbalance). */
export const isWorldAggregate = (region: string) => /^world(?:_|$)/.test(region) || region === 'total_foreign';

/** Whether the figures of one unit balance within rounding; undefined when a term is missing. */
export function balances(byAttribute: ReadonlyMap<string, ReadFigure>, sides: Sides): boolean | undefined {
  const use = [...sides.use, ...(sides.optional ?? []).filter((a) => byAttribute.has(a))];
  const terms = [...sides.supply, ...use].map((a) => byAttribute.get(a));
  if (terms.some((t) => t === undefined)) return undefined;
  const sum = (names: readonly string[]) => names.reduce((n, a) => n + byAttribute.get(a)!.value, 0);
  const decimals = Math.max(...terms.map((t) => t!.decimals));
  const unit = 10 ** -decimals;
  const tolerance = (terms.length / 2) * unit + unit * 1e-6;
  return Math.abs(sum(sides.supply) - sum(use)) <= tolerance;
}

/** The checks a sheet fails (empty when it passes or cannot be checked). */
export function failedChecks(
  region: string,
  figures: Iterable<ReadFigure>,
  opts: { useBesideExports?: boolean } = {},
): SupplyDemandCheck[] {
  const byUnit = new Map<string, Map<string, ReadFigure>>();
  for (const f of figures) {
    let m = byUnit.get(f.unit);
    if (m === undefined) byUnit.set(f.unit, (m = new Map<string, ReadFigure>()));
    m.set(f.attribute, f);
  }
  for (const byAttribute of byUnit.values()) {
    const us = opts.useBesideExports === true ? US_BESIDE_EXPORTS : US_SIDES;
    const sides = byAttribute.has('supply_total') ? us : isWorldAggregate(region) ? undefined : WORLD_SIDES;
    if (sides !== undefined && balances(byAttribute, sides) === false) return [SUPPLY_CHECK];
  }
  return [];
}
