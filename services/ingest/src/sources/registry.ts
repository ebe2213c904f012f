import type { PublicSourceName, SyncSourceName } from '@cds/contracts';
import { SYNC_SOURCE_NAMES } from '@cds/contracts';
import { COMMODITY_FACTS, createCatalogIndex, joinCatalog, type CatalogIndex } from '../catalog/index.ts';
import type { CommodityDefinition } from '../catalog/types.ts';
import { ams } from './ams/index.ts';
import { cftc } from './cftc/index.ts';
import type { SeriesTask } from './common/sync/task.ts';
import { demo } from './demo/index.ts';
import { ecb } from './ecb/index.ts';
import { eia } from './eia/index.ts';
import { nass } from './nass/index.ts';
import { ohlcv } from './ohlcv/index.ts';
import { snapshot } from './snapshot/index.ts';
import type { PriceSource, Source, SourceInput, SyncPart } from './types.ts';
import { wasde } from './wasde/index.ts';
import { worldbank } from './worldbank/index.ts';

/**
 * Every data source, in the order the CLI lists their inputs. The one list of sources in ingest:
 * every other one (CLI inputs and usage text, sync, the demo parts, the snapshot build) is derived
 * from it (docs/adding-a-source.md).
 */
const ALL = [cftc, eia, nass, ohlcv, worldbank, ams, wasde, ecb, demo, snapshot] as const;
export const REGISTRY: readonly Source[] = ALL;

// Each registered source has its row in the contracts' SOURCES (Source.name is typed by the table),
// and each row its source: a row without one fails to compile here.
type Registered = (typeof ALL)[number]['name'];
const everyRowRegistered: Exclude<PublicSourceName, Registered> extends never ? true : never = true;
void everyRowRegistered;

/** What a catalog entry's `sources` holds besides source mappings. */
const NOT_MAPPINGS: ReadonlySet<string> = new Set(['price_note']);

/**
 * Every source mapping of the catalog, checked against its source's `mapping` schema: a mapping
 * keyed by no registered source, or by one without a schema, or that its schema refuses, is a
 * catalog bug named with its commodity. Run when the registry loads (every CLI run).
 */
export function checkCatalogMappings(defs: readonly CommodityDefinition[]): void {
  for (const def of defs) {
    for (const [key, value] of Object.entries(def.sources)) {
      if (NOT_MAPPINGS.has(key)) continue;
      const schema = REGISTRY.find((s) => s.name === key)?.mapping;
      if (schema === undefined)
        throw new Error(`catalog: ${def.entry.id} maps sources.${key}, which no registered source reads`);
      const parsed = schema.safeParse(value);
      if (!parsed.success)
        throw new Error(
          `catalog: ${def.entry.id} sources.${key} does not fit its source's mapping: ${parsed.error.message}`,
        );
    }
  }
}

/**
 * The curated catalog: each commodity's contract facts (catalog/commodities.ts) joined with every
 * source's mapping of it (`sources/<name>/catalog.ts`), each mapping checked against its source's
 * schema when the registry loads.
 */
export const COMMODITIES: readonly CommodityDefinition[] = Object.freeze(joinCatalog(COMMODITY_FACTS, REGISTRY));
checkCatalogMappings(COMMODITIES);

/** The index over the curated catalog: what the CLI, the sync and the snapshot read with. */
export const CATALOG: CatalogIndex = createCatalogIndex(COMMODITIES);

/** A curated commodity by id. */
export const getCommodity = (id: string): CommodityDefinition | undefined => CATALOG.byId(id);

/** The source of a name, or undefined. */
export function sourceNamed(name: string): Source | undefined {
  return REGISTRY.find((s) => s.name === name);
}

/** Every `--source` input of the CLI, in registry order. */
export const INPUTS: readonly SourceInput[] = REGISTRY.flatMap((s) => s.inputs);

/** The input of a `--source` value, or undefined. */
export function inputNamed(name: string): SourceInput | undefined {
  return INPUTS.find((i) => i.name === name);
}

/** The synced sources with their sync part, in the contracts' order (GET /status, `sync --source all`). */
export const SYNCED: readonly { name: SyncSourceName; source: Source; sync: SyncPart }[] = SYNC_SOURCE_NAMES.map(
  (name) => {
    const source = sourceNamed(name);
    if (source?.sync === undefined) throw new Error(`sources/registry.ts: ${name} is synced but has no sync part`);
    return { name, source, sync: source.sync };
  },
);

/** The sync part of a synced source. */
export function syncPartOf(name: SyncSourceName): { source: Source; sync: SyncPart } {
  return SYNCED.find((s) => s.name === name)!;
}

/** Every price mapping of a commodity, in registry order (the catalog spec checks there is at most one). */
export function priceSourcesOf(def: CommodityDefinition): PriceSource[] {
  return REGISTRY.flatMap((s) => s.prices?.(def) ?? []);
}

/** The words `backfill --demo --without` takes: one per source whose data replaces demo series. */
export const DEMO_PARTS: readonly string[] = REGISTRY.flatMap((s) =>
  s.demoPart !== undefined ? [s.demoPart.part] : [],
);

/** Every series of a synced source, commodity by commodity, in catalog order. */
export function seriesTasks(
  source: SyncSourceName,
  catalog: { commodities: readonly CommodityDefinition[] },
  commodities?: readonly string[],
): SeriesTask[] {
  const defs = catalog.commodities.filter((c) => commodities === undefined || commodities.includes(c.entry.id));
  return syncPartOf(source).sync.tasks(defs);
}
