import type { CatalogEntry, PublicSourceName } from '@cds/contracts';

/**
 * A commodity's source mappings, keyed by source name: each is the shape its source's `mapping`
 * schema gives (`sources/<name>/mapping.ts`), which the registry checks every catalog entry
 * against when it loads; a source reads its own through its mapping's reader (`mappingReader`).
 */
export type CommoditySources = { readonly [name in PublicSourceName]?: unknown } & {
  /**
   * Why the commodity has no `price` series, when no free official source publishes one (served
   * as the detail's `price_note`). Exactly one of the mappings gives the `price` series otherwise
   * (catalog.unit.spec.ts).
   */
  price_note?: string;
};

/** A curated commodity: the public CatalogEntry (published as is) plus its source mappings. */
export interface CommodityDefinition {
  entry: CatalogEntry;
  sources: CommoditySources;
}
