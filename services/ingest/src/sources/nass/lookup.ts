import { addUnique, type CatalogIndex, type CommodityDefinition } from '../../catalog/index.ts';
import { nassOf, type NassItemMapping } from './mapping.ts';

/** A catalog series fed by a NASS data item. */
export interface NassItemMatch {
  commodity: CommodityDefinition;
  item: NassItemMapping;
}

interface NassLookups {
  commodities: Map<string, CommodityDefinition[]>;
  items: Map<string, NassItemMatch>;
}

function build(commodities: readonly CommodityDefinition[]): NassLookups {
  const out: NassLookups = { commodities: new Map(), items: new Map() };
  for (const c of commodities) {
    const nass = nassOf(c);
    if (!nass) continue;
    const key = nass.commodity_desc.toUpperCase();
    out.commodities.set(key, [...(out.commodities.get(key) ?? []), c]);
    for (const item of nass.items)
      addUnique(out.items, item.short_desc.toUpperCase(), { commodity: c, item }, 'NASS item');
  }
  return out;
}

/** Commodities fed by a NASS commodity_desc (e.g. WHEAT feeds WHEAT_SRW and WHEAT_HRW). */
export function byNassCommodity(catalog: CatalogIndex, commodityDesc: string): readonly CommodityDefinition[] {
  return catalog.lookup(build).commodities.get(commodityDesc.trim().toUpperCase()) ?? [];
}

/** A NASS data item (short_desc, the web export's "Data Item"). */
export function byNassItem(catalog: CatalogIndex, shortDesc: string): NassItemMatch | undefined {
  return catalog.lookup(build).items.get(shortDesc.trim().toUpperCase());
}
