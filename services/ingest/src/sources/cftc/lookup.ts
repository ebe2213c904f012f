import { addUnique, type CatalogIndex, type CommodityDefinition } from '../../catalog/index.ts';
import { cftcOf } from './mapping.ts';

function byCode(commodities: readonly CommodityDefinition[]): Map<string, CommodityDefinition> {
  const out = new Map<string, CommodityDefinition>();
  for (const c of commodities) for (const code of cftcOf(c)?.codes ?? []) addUnique(out, code.trim(), c, 'CFTC code');
  return out;
}

/** The commodity of a CFTC_Contract_Market_Code (padding trimmed), legacy or disaggregated. */
export function byCftcCode(catalog: CatalogIndex, code: string): CommodityDefinition | undefined {
  return catalog.lookup(byCode).get(code.trim());
}
