import type { ReadModelName } from '@cds/read-models';
import { catalogProjection } from './catalog/index.ts';
import { cotProjection } from './cot/index.ts';
import { seriesProjection } from './series/index.ts';
import { supplyDemandProjection } from './supply-demand/index.ts';
import type { ProjectedDoc, Projection } from './types.ts';

export { catalogProjection, type CatalogState } from './catalog/index.ts';
export { cotProjection } from './cot/index.ts';
export { seriesProjection } from './series/index.ts';
export { supplyDemandProjection } from './supply-demand/index.ts';
export { commodityOf, type DataEventType, type ProjectedDoc, type Projection } from './types.ts';

export const PROJECTION_NAMES = [
  'catalog',
  'series',
  'cot',
  'supply_demand',
] as const satisfies readonly ReadModelName[];

/** Every projection by read-model name. */
export const PROJECTIONS: Readonly<Record<ReadModelName, Projection<ProjectedDoc>>> = {
  catalog: catalogProjection,
  series: seriesProjection,
  cot: cotProjection,
  supply_demand: supplyDemandProjection,
};
