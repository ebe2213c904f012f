import { CatalogEntry, type CatalogIdentifiers, type PublicSourceName } from '@cds/contracts';
import type { z } from 'zod';
import type { CommodityFacts } from './commodities.ts';
import type { CommodityDefinition } from './types.ts';

export type * from './types.ts';
export { COMMODITY_FACTS, type CommodityFacts } from './commodities.ts';

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
      let made = built.get(build);
      if (made === undefined) built.set(build, (made = build(commodities)));
      return made as T;
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

/** What a source brings to the catalog: its mappings by catalog id and the identifiers a commodity's mapping gives. */
export interface CatalogPart {
  name: PublicSourceName;
  catalog?: Readonly<Record<string, unknown>>;
  identifiers?(def: CommodityDefinition): Partial<CatalogIdentifiers>;
}

/**
 * The catalog: each commodity's contract facts with every source's mapping of it (`sources.<name>`)
 * and the identifiers those give, published with the entry (checked by the contracts'
 * CatalogEntry). A mapping of an id the facts lack is a catalog bug.
 */
export function joinCatalog(facts: readonly CommodityFacts[], parts: readonly CatalogPart[]): CommodityDefinition[] {
  const ids = new Set(facts.map((f) => f.id));
  for (const part of parts)
    for (const id of Object.keys(part.catalog ?? {}))
      if (!ids.has(id)) throw new Error(`catalog: sources/${part.name} maps ${id}, which is not a catalog commodity`);
  return facts.map(({ price_note, ...fact }) => {
    const sources: Record<string, unknown> = {};
    for (const part of parts) if (part.catalog?.[fact.id] !== undefined) sources[part.name] = part.catalog[fact.id];
    if (price_note !== undefined) sources.price_note = price_note;
    const def: CommodityDefinition = { entry: { ...fact }, sources };
    const identifiers = Object.assign({}, ...parts.map((p) => p.identifiers?.(def) ?? {})) as CatalogIdentifiers;
    // published with the entry, so the API can list where each number can be checked
    def.entry = CatalogEntry.parse({ ...fact, identifiers, ...(price_note !== undefined ? { price_note } : {}) });
    return def;
  });
}
