import type { CatalogEntry } from '@cds/contracts';
import type { z } from 'zod';
import type { amsMapping } from '../sources/ams/mapping.ts';
import type { cftcMapping } from '../sources/cftc/mapping.ts';
import type { demoMapping } from '../sources/demo/mapping.ts';
import type { eiaMapping } from '../sources/eia/mapping.ts';
import type { nassMapping } from '../sources/nass/mapping.ts';
import type { worldbankMapping } from '../sources/worldbank/mapping.ts';

// Each source's mapping is typed by its zod schema (sources/<name>/mapping.ts), which the
// registry checks every catalog entry against when it loads.
/** An EIA series (API v2 `series` facet / CSV download) mapped onto one of a commodity's series. */
export type EiaSeriesMapping = z.infer<typeof eiaMapping>['series'][number];
/** A NASS Quick Stats data item (short_desc, the web export's "Data Item") mapped onto a series. */
export type NassItemMapping = z.infer<typeof nassMapping>['items'][number];
/** A World Bank Pink Sheet series (sheet `Monthly Prices`, its code in row 7): a monthly average `price`. */
export type WorldBankMapping = z.infer<typeof worldbankMapping>['series'][number];
/** A USDA AMS market report (LMR, FMMO class prices) mapped onto a commodity's series. */
export type AmsMapping = z.infer<typeof amsMapping>['series'][number];
/** How the demo generator draws a commodity. */
export type DemoParams = z.infer<typeof demoMapping>;
/** A fundamental series the demo generator produces for a commodity. */
export type DemoFundamental = DemoParams['fundamentals'][number];

export interface CommoditySources {
  /** CFTC_Contract_Market_Code values; legacy and disaggregated reports share them. */
  cftc: z.infer<typeof cftcMapping>;
  eia?: z.infer<typeof eiaMapping>;
  nass?: z.infer<typeof nassMapping>;
  worldbank?: z.infer<typeof worldbankMapping>;
  ams?: z.infer<typeof amsMapping>;
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
