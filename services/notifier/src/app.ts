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
}

/** Probes and metrics of the notifier; never listens (main.ts does). */
export function buildApp(deps: AppDeps): FastifyInstance {
  const logger: FastifyBaseLogger = deps.logger.child({ component: 'http' });
  const app = Fastify({ loggerInstance: logger, disableRequestLogging: true });
  // Liveness: the process answers. A dependency down is /readyz's business; a consumer that dies
  // for good ends the process (main.ts).
  app.get('/healthz', () => Promise.resolve({ status: 'ok' }));
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
