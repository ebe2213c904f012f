// The projector as a package: what bench/projection.bench.ts drives in-process. The service starts
// from main.ts (rebuilds from cli.ts).
export {
  startProjectionWorker,
  type ProjectionWorker,
  type ProjectionWorkerOptions,
} from './consumer/projection-worker.ts';
export { createProjectorMetrics, type ProjectorMetrics } from './metrics.ts';
export {
  catalogProjection,
  cotProjection,
  seriesProjection,
  supplyDemandProjection,
  type ProjectedDoc,
  type Projection,
} from './projections/index.ts';
