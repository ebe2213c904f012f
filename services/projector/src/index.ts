export { buildApp, type AppDeps } from './app.ts';
export { loadProjectorConfig, ProjectorConfig } from './config.ts';
export { createGapDetector, type GapDetector } from './consumer/gap-detector.ts';
export { deadletterSubject, ensureDeadletterStream, parkEvent, type ParkedEventDoc } from './consumer/park.ts';
export {
  decodeDataEvent,
  startProjectionWorker,
  type ProjectionWorker,
  type ProjectionWorkerDeps,
  type ProjectionWorkerOptions,
  type WorkerStall,
} from './consumer/projection-worker.ts';
export { createProjectorMetrics, type ProjectionStats, type ProjectorMetrics } from './metrics.ts';
export * from './projections/index.ts';
export { rebuildProjection, type RebuildDeps, type RebuildOptions, type RebuildReport } from './rebuild/rebuild.ts';
export {
  applyEvent,
  applyEventOnce,
  applyEvents,
  applyEventsOnce,
  DEFAULT_OPERATION_TIMEOUT_MS,
  ProjectionConflictError,
  type ApplyOptions,
  type ApplyOutcome,
  type ApplyResult,
  type BatchApplyResult,
  type PositionedEvent,
} from './runner/apply-event.ts';
