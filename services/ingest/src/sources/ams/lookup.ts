import type { CatalogIndex, CommodityDefinition } from '../../catalog/index.ts';
import { amsOf, type AmsMapping } from './mapping.ts';

/** A catalog series fed by an AMS report. */
export interface AmsMatch {
  commodity: CommodityDefinition;
  series: AmsMapping;
}

function byReport(commodities: readonly CommodityDefinition[]): Map<string, AmsMatch[]> {
  const out = new Map<string, AmsMatch[]>();
  for (const c of commodities)
    for (const a of amsOf(c)?.series ?? []) {
      const key = a.report.toUpperCase();
      out.set(key, [...(out.get(key) ?? []), { commodity: c, series: a }]);
    }
  return out;
}

/** Every catalog series fed by a USDA AMS report (LM_CT150, LM_HG201, FMMO_CLASS). */
export function byAmsReport(catalog: CatalogIndex, report: string): readonly AmsMatch[] {
  return catalog.lookup(byReport).get(report.trim().toUpperCase()) ?? [];
}
