import { addUnique, type CatalogIndex, type CommodityDefinition } from '../../catalog/index.ts';
import { eiaOf, type EiaSeriesMapping } from './mapping.ts';

/** A catalog series fed by an EIA series. */
export interface EiaSeriesMatch {
  commodity: CommodityDefinition;
  series: EiaSeriesMapping;
}

function bySeries(commodities: readonly CommodityDefinition[]): Map<string, EiaSeriesMatch> {
  const out = new Map<string, EiaSeriesMatch>();
  for (const c of commodities)
    for (const s of eiaOf(c)?.series ?? [])
      addUnique(out, s.id.toUpperCase(), { commodity: c, series: s }, 'EIA series');
  return out;
}

/** EIA's APIv1-style ids (PET.RWTC.D) and the v2 facet ids (RWTC) name the same series. */
export function normalizeEiaSeriesId(id: string): string {
  const upper = id.trim().toUpperCase();
  const m = /^[A-Z_]+\.(.+)\.[ADMWQ]$/.exec(upper);
  return m ? m[1]! : upper;
}

/** The catalog series of an EIA series id (either form). */
export function byEiaSeries(catalog: CatalogIndex, seriesId: string): EiaSeriesMatch | undefined {
  return catalog.lookup(bySeries).get(normalizeEiaSeriesId(seriesId));
}
