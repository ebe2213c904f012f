import type { Metrics } from '@cds/telemetry';
import type { FastifyInstance } from 'fastify';

/** Liveness, readiness (the dependencies reachable) and, when given, the Prometheus metrics. */
export function registerHealthRoutes(
  app: FastifyInstance,
  deps: { isReady: (() => Promise<boolean>) | undefined; metrics: Metrics | undefined },
): void {
  const { isReady, metrics } = deps;
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = (await isReady?.().catch(() => false)) ?? true;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready' });
  });
  if (metrics !== undefined) {
    app.get('/metrics', async (_request, reply) =>
      reply.type('text/plain; version=0.0.4').send(await metrics.render()),
    );
  }
}
