import { STOCKS_TO_USE, supplyDemandFigureKey } from '@cds/contracts';
import type { StoredFigure, StoredRelease, SupplyDemandBucketDoc } from '@cds/read-models';

/**
 * The derived stocks_to_use of a balance sheet: ending stocks over total use, in the same unit,
 * rounded to 4 decimals, unit "ratio". Computed on read, never stored (docs/supply-demand.md).
 *
 * Which sheets: the grains and soybeans (CORN, the WHEAT sheets and its classes, OATS, BARLEY,
 * SORGHUM, the RICE sheets, SOYBEANS), whose balance sheets end in stocks carried into the next
 * year. Not the products (soybean oil and meal), cotton, sugar or livestock.
 *
 * Total use: the row `use_total` of the same unit; a world-table region has none, so its use is
 * `domestic_total` plus `exports` (the world: `domestic_total` alone, its exports being its imports).
 */
export const STOCKS_TO_USE_UNIT = 'ratio';
const DECIMALS = 4;
const GRAINS = /^(?:CORN|OATS|BARLEY|SORGHUM|SOYBEANS|WHEAT(?:_[A-Z0-9_]+)?|(?:ROUGH_)?RICE(?:_[A-Z0-9_]+)?)$/;

/** Whether a commodity's balance sheets carry the derived stocks_to_use. */
export function hasStocksToUse(commodityId: string): boolean {
  return GRAINS.test(commodityId);
}

/** ending / use rounded to 4 decimals; undefined when use is not positive. */
export function stocksToUseRatio(ending: number, use: number): number | undefined {
  if (!(use > 0) || !Number.isFinite(ending)) return undefined;
  const scale = 10 ** DECIMALS;
  return Math.round((ending / use) * scale) / scale;
}

/** The version of each key in force at `p` (published at or before it), from a sheet's versions by key. */
function inForceAt(
  byKey: ReadonlyMap<string, StoredFigure[]>,
  releases: readonly StoredRelease[],
  key: string,
  p: string,
): StoredFigure | undefined {
  let found: StoredFigure | undefined;
  for (const v of byKey.get(key) ?? []) {
    const at = v.r === undefined ? '' : (releases[v.r]?.p ?? '');
    if (at <= p) found = v;
  }
  return found;
}

/** The figures whose ratio makes stocks_to_use in a unit at a release, or undefined when the sheet lacks them. */
function ratioAt(
  byKey: ReadonlyMap<string, StoredFigure[]>,
  releases: readonly StoredRelease[],
  unit: string,
  p: string,
  world: boolean,
): { value: number; from: StoredFigure } | undefined {
  const at = (attribute: string) => inForceAt(byKey, releases, supplyDemandFigureKey(attribute, unit), p);
  const ending = at('ending_stocks');
  if (ending === undefined) return undefined;
  let use = at('use_total')?.v;
  if (use === undefined) {
    const domestic = at('domestic_total')?.v;
    const exports = world ? 0 : at('exports')?.v;
    if (domestic !== undefined && exports !== undefined) use = domestic + exports;
  }
  const value = use === undefined ? undefined : stocksToUseRatio(ending.v, use);
  return value === undefined ? undefined : { value, from: ending };
}

/** The derived figure of a sheet: its versions, and the key of the ending stocks it follows. */
export interface DerivedFigure {
  versions: StoredFigure[];
  /** The ending stocks' key: the releases that carried it carried the ratio. */
  basis: string;
}

/**
 * The versions of the derived stocks_to_use of a sheet, as if they were stored figures: at every
 * release of the sheet (oldest first), the ratio of the versions in force then; a release that
 * leaves the ratio as it was adds no version (as versions.ts collapses a confirmation). Each
 * version carries the status and failed checks of the ending stocks in force, and the release it
 * was computed at, so the point-in-time views (viewItems) and the editions view treat it as any
 * figure. A sheet stating its ending stocks in two units (the United States: the US table's
 * bushels, the world table's tonnes) gets one ratio, from the unit that has a use_total row (then
 * the first in text order). Undefined when the sheet has no ratio.
 */
export function derivedStocksToUse(sheet: SupplyDemandBucketDoc): DerivedFigure | undefined {
  const releases = sheet.releases ?? [];
  const byKey = new Map<string, StoredFigure[]>();
  for (const v of [...(sheet.revised ?? []), ...sheet.figures]) {
    const list = byKey.get(v.k);
    if (list === undefined) byKey.set(v.k, [v]);
    else list.push(v);
  }
  const hasUseTotal = (unit: string) => byKey.has(supplyDemandFigureKey('use_total', unit));
  const units = [
    ...new Set(
      [...byKey.values()]
        .flat()
        .filter((f) => f.a === 'ending_stocks')
        .map((f) => f.u),
    ),
  ].sort((a, b) => Number(hasUseTotal(b)) - Number(hasUseTotal(a)) || (a < b ? -1 : a > b ? 1 : 0));
  const order = releases.map((_, i) => i).sort((a, b) => (releases[a]!.p < releases[b]!.p ? -1 : 1));
  for (const unit of units) {
    const versions: StoredFigure[] = [];
    let last: number | undefined;
    for (const r of order) {
      const ratio = ratioAt(byKey, releases, unit, releases[r]!.p, sheet.region === 'world');
      if (ratio === undefined || ratio.value === last) continue;
      last = ratio.value;
      versions.push({
        k: supplyDemandFigureKey(STOCKS_TO_USE, STOCKS_TO_USE_UNIT),
        a: STOCKS_TO_USE,
        u: STOCKS_TO_USE_UNIT,
        v: ratio.value,
        s: ratio.from.s,
        ...(ratio.from.x === undefined ? {} : { x: ratio.from.x }),
        r,
      });
    }
    if (versions.length > 0) return { versions, basis: supplyDemandFigureKey('ending_stocks', unit) };
  }
  return undefined;
}
