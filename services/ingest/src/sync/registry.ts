import type { CatalogIndex, CommodityDefinition } from '../catalog/index.ts';
import { amsTasks } from '../sources/ams/sync-task.ts';
import { cftcTasks } from '../sources/cftc/sync-task.ts';
import { eiaTasks } from '../sources/eia/sync-task.ts';
import { nassTasks } from '../sources/nass/sync-task.ts';
import { worldbankTasks } from '../sources/worldbank/sync-task.ts';
import type { SeriesTask, SyncSource } from './task.ts';

const TASKS_OF: Record<SyncSource, (defs: readonly CommodityDefinition[]) => SeriesTask[]> = {
  cftc: cftcTasks,
  eia: eiaTasks,
  nass: nassTasks,
  ams: amsTasks,
  worldbank: worldbankTasks,
};

/** Every series of a source, commodity by commodity, in catalog order. */
export function seriesTasks(source: SyncSource, catalog: CatalogIndex, commodities?: readonly string[]): SeriesTask[] {
  const defs = catalog.commodities.filter((c) => commodities === undefined || commodities.includes(c.entry.id));
  return TASKS_OF[source](defs);
}
