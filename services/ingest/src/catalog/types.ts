import type { CatalogEntry, Frequency, SeriesType } from '@cds/contracts';

/** An EIA series (API v2 `series` facet / CSV download) mapped onto one of a commodity's series. */
export interface EiaSeriesMapping {
  /** EIA series id as the API v2 `series` facet and the dnav CSV know it, e.g. RWTC. */
  id: string;
  /** API v2 route under /v2/ that serves the series, e.g. petroleum/pri/spt. */
  route: string;
  type: SeriesType;
  frequency: Frequency;
  /** Unit of the values as we publish them, e.g. USD/bbl or thousand bbl. */
  unit: string;
}

/** A NASS Quick Stats data item (short_desc, the web export's "Data Item") mapped onto a series. */
export interface NassItemMapping {
  short_desc: string;
  /** statisticcat_desc of the item (PRODUCTION, YIELD, AREA PLANTED, AREA HARVESTED, STOCKS). */
  statisticcat_desc: string;
  /** unit_desc of the item, e.g. BU, BU / ACRE, ACRES. */
  unit_desc: string;
  type: SeriesType;
  unit: string;
}

/** A fundamental series the demo generator produces for a commodity. */
export interface DemoFundamental {
  type: SeriesType;
  /** weekly (Fridays), monthly (month end) or annual (published as monthly on YYYY-12-31, like NASS). */
  frequency: 'weekly' | 'monthly' | 'annual';
  /** Typical level of the series. */
  base: number;
  unit: string;
  /** Relative amplitude of the seasonal swing (0..1). */
  seasonality?: number;
}

export interface DemoParams {
  /** Price at the start of the generated history, in the commodity's unit. */
  start_price: number;
  /** Annualised volatility of daily log returns (0.3 = 30 %). */
  volatility: number;
  /** Typical daily volume and open interest, in contracts. */
  volume: number;
  open_interest: number;
  fundamentals: DemoFundamental[];
}

export interface CommoditySources {
  /** CFTC_Contract_Market_Code values; legacy and disaggregated reports share them. */
  cftc: { codes: string[] };
  eia?: { series: EiaSeriesMapping[] };
  nass?: { commodity_desc: string; items: NassItemMapping[] };
  demo: DemoParams;
}

/** A curated commodity: the public CatalogEntry (published as is) plus its source mappings. */
export interface CommodityDefinition {
  entry: CatalogEntry;
  sources: CommoditySources;
}
