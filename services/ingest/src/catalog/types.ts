import type { CatalogEntry, Frequency, PriceBasis, SeriesType } from '@cds/contracts';

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
  /** What the numbers are, for a `price` series (EIA spot prices: `spot`). */
  basis?: PriceBasis;
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
  /** What the numbers are, for a `price` series (`received_by_farmers`). */
  basis?: PriceBasis;
}

/**
 * A World Bank Pink Sheet series (sheet `Monthly Prices`, its code in row 7) mapped onto the
 * commodity's monthly `price` series: a monthly average, published as the source gives it.
 */
export interface WorldBankMapping {
  /** Series code in row 7, e.g. GOLD, WHEAT_US_SRW, COFFEE_ARABIC. */
  code: string;
  /** The unit row 6 shows for it, e.g. `($/troy oz)`: a different unit there is a layout change. */
  source_unit: string;
  /** Unit as we publish it, the source's unit spelled out: `USD/troy oz`, `USD/mt`, `USD/kg`. */
  unit: string;
  type: 'price';
  frequency: 'monthly';
  basis: 'monthly_average';
}

/**
 * A USDA AMS market report mapped onto a commodity's series (Livestock Mandatory Reporting,
 * Federal Milk Marketing Order class prices): the parser of the report knows which of its fields
 * gives the number.
 */
export interface AmsMapping {
  /** Report id as AMS names it, e.g. LM_CT150, LM_HG201, FMMO_CLASS. */
  report: string;
  /** Datamart report slug (`/services/v1.1/reports/<slug>`), e.g. 2477. */
  slug: string;
  type: SeriesType;
  frequency: Frequency;
  unit: string;
  basis?: PriceBasis;
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
  worldbank?: { series: WorldBankMapping[] };
  ams?: { series: AmsMapping[] };
  /**
   * Why the commodity has no `price` series, when no free official source publishes one (served
   * as the detail's `price_note`). Exactly one of the mappings above gives the `price` series
   * otherwise (catalog.unit.spec.ts).
   */
  price_note?: string;
  demo: DemoParams;
}

/** A curated commodity: the public CatalogEntry (published as is) plus its source mappings. */
export interface CommodityDefinition {
  entry: CatalogEntry;
  sources: CommoditySources;
}
