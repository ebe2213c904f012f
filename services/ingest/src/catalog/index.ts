import type { AmsMapping, CommodityDefinition, EiaSeriesMapping, NassItemMapping, WorldBankMapping } from './types.ts';
import { COMMODITIES } from './commodities.ts';

export type * from './types.ts';
export { COMMODITIES } from './commodities.ts';

/** Lookups over a catalog, by commodity id and by each source's identifiers. */
export interface CatalogIndex {
  readonly commodities: readonly CommodityDefinition[];
  byId(id: string): CommodityDefinition | undefined;
  /** CFTC_Contract_Market_Code (padding trimmed), legacy or disaggregated. */
  byCftcCode(code: string): CommodityDefinition | undefined;
  byEiaSeries(seriesId: string): { commodity: CommodityDefinition; series: EiaSeriesMapping } | undefined;
  /** Commodities fed by a NASS commodity_desc (e.g. WHEAT feeds WHEAT_SRW and WHEAT_HRW). */
  byNassCommodity(commodityDesc: string): readonly CommodityDefinition[];
  /** A NASS data item (short_desc, the web export's "Data Item"). */
  byNassItem(shortDesc: string): { commodity: CommodityDefinition; item: NassItemMapping } | undefined;
  /** A World Bank Pink Sheet series code (row 7 of `Monthly Prices`), e.g. GOLD. */
  byWorldBankCode(code: string): { commodity: CommodityDefinition; series: WorldBankMapping } | undefined;
  /** Every catalog series fed by a USDA AMS report (LM_CT150, LM_HG201, FMMO_CLASS). */
  byAmsReport(report: string): readonly { commodity: CommodityDefinition; series: AmsMapping }[];
}

function addUnique<V>(map: Map<string, V>, key: string, value: V, what: string): void {
  if (map.has(key)) throw new Error(`catalog: duplicate ${what} ${key}`);
  map.set(key, value);
}

/** Builds the lookup maps; throws on a duplicate id or source identifier (a catalog bug). */
export function createCatalogIndex(commodities: readonly CommodityDefinition[]): CatalogIndex {
  const ids = new Map<string, CommodityDefinition>();
  const cftc = new Map<string, CommodityDefinition>();
  const eiaSeries = new Map<string, { commodity: CommodityDefinition; series: EiaSeriesMapping }>();
  const nassCommodity = new Map<string, CommodityDefinition[]>();
  const nassItems = new Map<string, { commodity: CommodityDefinition; item: NassItemMapping }>();
  const worldbank = new Map<string, { commodity: CommodityDefinition; series: WorldBankMapping }>();
  const ams = new Map<string, { commodity: CommodityDefinition; series: AmsMapping }[]>();
  for (const c of commodities) {
    for (const w of c.sources.worldbank?.series ?? [])
      addUnique(worldbank, w.code.toUpperCase(), { commodity: c, series: w }, 'World Bank series');
    for (const a of c.sources.ams?.series ?? []) {
      const key = a.report.toUpperCase();
      ams.set(key, [...(ams.get(key) ?? []), { commodity: c, series: a }]);
    }
    addUnique(ids, c.entry.id, c, 'commodity id');
    for (const code of c.sources.cftc.codes) addUnique(cftc, code.trim(), c, 'CFTC code');
    for (const s of c.sources.eia?.series ?? []) {
      addUnique(eiaSeries, s.id.toUpperCase(), { commodity: c, series: s }, 'EIA series');
    }
    const nass = c.sources.nass;
    if (nass) {
      const key = nass.commodity_desc.toUpperCase();
      nassCommodity.set(key, [...(nassCommodity.get(key) ?? []), c]);
      for (const item of nass.items)
        addUnique(nassItems, item.short_desc.toUpperCase(), { commodity: c, item }, 'NASS item');
    }
  }
  return {
    commodities,
    byId: (id) => ids.get(id),
    byCftcCode: (code) => cftc.get(code.trim()),
    byEiaSeries: (id) => eiaSeries.get(normalizeEiaSeriesId(id)),
    byNassCommodity: (desc) => nassCommodity.get(desc.trim().toUpperCase()) ?? [],
    byNassItem: (desc) => nassItems.get(desc.trim().toUpperCase()),
    byWorldBankCode: (code) => worldbank.get(code.trim().toUpperCase()),
    byAmsReport: (report) => ams.get(report.trim().toUpperCase()) ?? [],
  };
}

/** EIA's APIv1-style ids (PET.RWTC.D) and the v2 facet ids (RWTC) name the same series. */
export function normalizeEiaSeriesId(id: string): string {
  const upper = id.trim().toUpperCase();
  const m = /^[A-Z_]+\.(.+)\.[ADMWQ]$/.exec(upper);
  return m ? m[1]! : upper;
}

/** The index over the curated catalog. */
export const CATALOG: CatalogIndex = createCatalogIndex(COMMODITIES);

export const getCommodity = (id: string): CommodityDefinition | undefined => CATALOG.byId(id);
export const findByCftcCode = (code: string): CommodityDefinition | undefined => CATALOG.byCftcCode(code);
export const findByEiaSeries = (id: string) => CATALOG.byEiaSeries(id);
export const findByNassCommodity = (desc: string): readonly CommodityDefinition[] => CATALOG.byNassCommodity(desc);
export const findByNassItem = (desc: string) => CATALOG.byNassItem(desc);
