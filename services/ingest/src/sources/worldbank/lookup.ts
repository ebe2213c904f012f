import { addUnique, type CatalogIndex, type CommodityDefinition } from '../../catalog/index.ts';
import { worldbankOf, type WorldBankMapping } from './mapping.ts';

/** A catalog series fed by a Pink Sheet series. */
export interface PinkSheetMatch {
  commodity: CommodityDefinition;
  series: WorldBankMapping;
}

function byCode(commodities: readonly CommodityDefinition[]): Map<string, PinkSheetMatch> {
  const out = new Map<string, PinkSheetMatch>();
  for (const c of commodities)
    for (const w of worldbankOf(c)?.series ?? [])
      addUnique(out, w.code.toUpperCase(), { commodity: c, series: w }, 'World Bank series');
  return out;
}

/** A World Bank Pink Sheet series code (row 7 of `Monthly Prices`), e.g. GOLD. */
export function byPinkSheetCode(catalog: CatalogIndex, code: string): PinkSheetMatch | undefined {
  return catalog.lookup(byCode).get(code.trim().toUpperCase());
}
