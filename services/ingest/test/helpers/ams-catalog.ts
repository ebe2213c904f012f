import { createCatalogIndex, type CatalogIndex } from '../../src/catalog/index.ts';
import { COMMODITIES } from '../../src/sources/registry.ts';
import type { CommodityDefinition } from '../../src/catalog/types.ts';

/**
 * The catalog with LIVE_CATTLE's price taken from USDA AMS LM_CT150 (the weekly 5-area steer
 * price) instead of NASS: the switch docs/sources.md describes, one mapping in the catalog, once a
 * recorded LM_CT150 answer proves the parse. The AMS specs check the report on it.
 */
export const CATALOG_WITH_LM_CT150: CatalogIndex = createCatalogIndex(
  COMMODITIES.map((c): CommodityDefinition => {
    if (c.entry.id !== 'LIVE_CATTLE') return c;
    const { nass: _nass, ...sources } = c.sources;
    return {
      entry: c.entry,
      sources: {
        ...sources,
        ams: {
          series: [
            { report: 'LM_CT150', slug: '2477', type: 'price', frequency: 'weekly', unit: 'USD/cwt', basis: 'cash' },
          ],
        },
      },
    };
  }),
);
