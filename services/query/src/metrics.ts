import type { ResponseCache } from '@cds/response-cache';
import { declareMetrics, type Metrics } from '@cds/telemetry';
import type { FastifyInstance } from 'fastify';

/** Probes and the scrape itself are not requests of the API. */
const UNCOUNTED = new Set(['/metrics', '/healthz', '/readyz']);

/** The query's instruments: requests by route and status, latency, and the response cache's counts. */
export function createQueryMetrics(metrics: Metrics, cache: ResponseCache) {
  const m = declareMetrics(metrics);
  m.observe('cds_query_cache_lookups', 'counter', 'Response-cache lookups, by result (hit or miss)', (report) => {
    const s = cache.stats();
    report(s.hits, { result: 'hit' });
    report(s.misses, { result: 'miss' });
  });
  m.observe('cds_query_cache_invalidations', 'counter', 'Cached responses dropped by data events', (report) =>
    report(cache.stats().invalidations),
  );
  m.observe('cds_query_cache_entries', 'gauge', 'Responses in the cache', (report) => report(cache.stats().entries));
  return {
    requests: m.counter('cds_query_requests', {
      description: 'Requests answered, by route and status',
      labels: ['route', 'status'],
    }),
    latency: m.histogram('cds_query_request_duration_ms', { description: 'Time to answer a request', unit: 'ms' }),
  };
}

/** Counts and times every answer by route and status, and serves GET /metrics. */
export function registerQueryMetrics(app: FastifyInstance, metrics: Metrics, cache: ResponseCache): void {
  const { requests, latency } = createQueryMetrics(metrics, cache);
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (!UNCOUNTED.has(route)) {
      requests.add([route, String(reply.statusCode)]);
      latency.record(reply.elapsedTime, { route });
    }
    done();
  });
  app.get('/metrics', async (_request, reply) => reply.type('text/plain; version=0.0.4').send(await metrics.render()));
}
