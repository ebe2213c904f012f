import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { NotifierMetrics } from './metrics.ts';

export interface AppDeps {
  logger: Logger;
  metrics: Pick<NotifierMetrics, 'render'>;
  natsConnected: () => boolean;
  mongoPing: () => Promise<boolean>;
  /** The consumer of CDS_CHANGES is running. */
  intakeRunning: () => boolean;
  /** The delivery loop is running and its last claim round reached the database. */
  deliveryHealthy: () => boolean;
  /** The intake's stall, if its watchdog found one (libs/messaging `RunningConsumer.stall`). */
  intakeStall: () => { sinceMs: number; recoveryFailed: boolean } | undefined;
}

/** Probes and metrics of the notifier; never listens (main.ts does). */
export function buildApp(deps: AppDeps): FastifyInstance {
  const logger: FastifyBaseLogger = deps.logger.child({ component: 'http' });
  const app = Fastify({ loggerInstance: logger, disableRequestLogging: true });
  // Liveness: fails only when the intake's watchdog could not recover a stall (Kubernetes restarts
  // the pod). A dependency down is /readyz's business; a consumer that dies ends the process.
  app.get('/healthz', (_req, reply) => {
    const stall = deps.intakeStall();
    if (stall?.recoveryFailed !== true) return reply.send({ status: 'ok' });
    return reply.code(503).send({ status: 'stalled', since: new Date(stall.sinceMs).toISOString() });
  });
  app.get('/readyz', async (_req, reply) => {
    const nats = deps.natsConnected();
    const mongo = await deps.mongoPing().catch(() => false);
    const intake = deps.intakeRunning();
    const delivery = deps.deliveryHealthy();
    const ready = nats && mongo && intake && delivery;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', nats, mongo, intake, delivery });
  });
  app.get('/metrics', async (_req, reply) =>
    reply.header('content-type', 'text/plain; version=0.0.4').send(await deps.metrics.render()),
  );
  return app;
}
