import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { ProjectionWorker } from './consumer/projection-worker.ts';
import type { ProjectorMetrics } from './metrics.ts';

export interface AppDeps {
  logger: Logger;
  metrics: ProjectorMetrics;
  /** The projections this process should run. */
  projections: readonly string[];
  /** The workers started so far (a worker waits for its stream before it starts). */
  workers: () => readonly ProjectionWorker[];
  natsConnected: () => boolean;
  mongoPing: () => Promise<boolean>;
}

/** Probes and metrics of the projector; never listens (main.ts does). */
export function buildApp(deps: AppDeps): FastifyInstance {
  const logger: FastifyBaseLogger = deps.logger.child({ component: 'http' });
  const app = Fastify({ loggerInstance: logger, disableRequestLogging: true });
  // Liveness: fails when a projection's watchdog could not recover a stall (Kubernetes restarts
  // the pod). A stall being recovered, or a dependency down, keeps it passing (/readyz says so).
  app.get('/healthz', async (_req, reply) => {
    const stalled = deps
      .workers()
      .map((w) => ({ projection: w.projection, stall: w.stall() }))
      .filter((w) => w.stall?.recoveryFailed === true)
      .map(({ projection, stall }) => ({
        projection,
        since: new Date(stall!.sinceMs).toISOString(),
        stuck: stall!.report,
      }));
    if (stalled.length === 0) return { status: 'ok' };
    return reply.code(503).send({ status: 'stalled', stalled });
  });
  app.get('/readyz', async (_req, reply) => {
    const workers = deps.workers();
    const running = new Set(workers.filter((w) => w.running()).map((w) => w.projection));
    const missing = deps.projections.filter((p) => !running.has(p));
    const nats = deps.natsConnected();
    const mongo = await deps.mongoPing().catch(() => false);
    const ready = nats && mongo && missing.length === 0;
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ready' : 'not_ready', nats, mongo, projections: [...running], missing });
  });
  app.get('/metrics', async (_req, reply) =>
    reply.header('content-type', 'text/plain; version=0.0.4').send(await deps.metrics.render()),
  );
  return app;
}
