import type { PublicSourceName } from '@cds/contracts';
import type { z } from 'zod';
import type { CommodityDefinition } from './types.ts';
import { COMMODITIES } from './commodities.ts';

export type * from './types.ts';
export { COMMODITIES } from './commodities.ts';

/**
 * A catalog and its lookups: by commodity id here; by each source's identifiers in the source's
 * folder (`sources/<name>/lookup.ts`), built once per catalog through `lookup`.
 */
export interface CatalogIndex {
  readonly commodities: readonly CommodityDefinition[];
  byId(id: string): CommodityDefinition | undefined;
  /** What `build` makes of the commodities, built on the first call and kept with the catalog. */
  lookup<T>(build: (commodities: readonly CommodityDefinition[]) => T): T;
}

/** Adds a key a lookup must hold once; a second is a catalog bug. */
export function addUnique<V>(map: Map<string, V>, key: string, value: V, what: string): void {
  if (map.has(key)) throw new Error(`catalog: duplicate ${what} ${key}`);
  map.set(key, value);
}

/** Builds the id lookup; throws on a duplicate id (a catalog bug). */
export function createCatalogIndex(commodities: readonly CommodityDefinition[]): CatalogIndex {
  const ids = new Map<string, CommodityDefinition>();
  for (const c of commodities) addUnique(ids, c.entry.id, c, 'commodity id');
  const built = new Map<(commodities: readonly CommodityDefinition[]) => unknown, unknown>();
  return {
    commodities,
    byId: (id) => ids.get(id),
    lookup<T>(build: (commodities: readonly CommodityDefinition[]) => T): T {
      if (!built.has(build)) built.set(build, build(commodities));
      return built.get(build) as T;
    },
  };
}

/**
 * How a source reads its own mapping of a commodity (`sources.<name>`), typed by its schema: the
 * registry checks every mapping of the catalog against that schema when it loads.
 */
export function mappingReader<S extends z.ZodType>(
  name: PublicSourceName,
  _schema: S,
): (def: CommodityDefinition) => z.infer<S> | undefined {
  return (def) => def.sources[name] as z.infer<S> | undefined;
}

/** The index over the curated catalog. */
export const CATALOG: CatalogIndex = createCatalogIndex(COMMODITIES);

export const getCommodity = (id: string): CommodityDefinition | undefined => CATALOG.byId(id);
