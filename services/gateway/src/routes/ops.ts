import { ServiceUnavailableError } from '@cds/http';
import type { Metrics } from '@cds/telemetry';
import type { FastifyInstance } from 'fastify';

/**
 * Probes and metrics for the platform: liveness, readiness (the key table has caught up with the
 * key stream, so a new replica never serves a revoked key) and Prometheus text.
 */
export function registerOpsRoutes(
  app: FastifyInstance,
  deps: { isReady: () => boolean; metrics?: Metrics | undefined },
): void {
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', (_request, reply) => {
    if (!deps.isReady()) throw new ServiceUnavailableError('The key table is still replaying the key stream.');
    return reply.send({ status: 'ready' });
  });
  const metrics = deps.metrics;
  if (metrics !== undefined) {
    app.get('/metrics', async (_request, reply) =>
      reply.type('text/plain; version=0.0.4').send(await metrics.render()),
    );
  }
}

/** CORS preflight: browsers send it without credentials, so it needs no key. */
export function registerPreflight(app: FastifyInstance): void {
  app.options('/*', (_request, reply) => {
    reply
      .code(204)
      .header('access-control-allow-methods', 'GET, HEAD, OPTIONS')
      .header('access-control-allow-headers', 'Authorization, Content-Type, Last-Event-ID')
      .header('access-control-max-age', '600')
      .send();
  });
}
