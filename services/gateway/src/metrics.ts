import { createLabeledCounter, type Metrics } from '@cds/telemetry';
import type { FastifyInstance } from 'fastify';

/** The gateway's instruments; counters on the request path are labeled counters (cheap per request). */
export function createGatewayMetrics(metrics: Metrics) {
  const m = metrics.meter;
  return {
    requests: createLabeledCounter(m, 'cds_gateway_requests', {
      description: 'Requests answered, by route and status',
      labels: ['route', 'status'],
    }),
    latency: m.createHistogram('cds_gateway_request_duration_ms', {
      description: 'Time to answer a request',
      unit: 'ms',
    }),
    rateDecisions: createLabeledCounter(m, 'cds_gateway_rate_limit_decisions', {
      description: 'Rate-window decisions, by outcome and store',
      labels: ['decision', 'source'],
    }),
    authFailures: createLabeledCounter(m, 'cds_gateway_auth_failures', {
      description: 'Requests refused for a missing or invalid key',
      labels: ['throttled'],
    }),
    cache: createLabeledCounter(m, 'cds_gateway_cache_lookups', {
      description: 'Response cache lookups, by result (hit, miss)',
      labels: ['result'],
    }),
  };
}

export type GatewayMetrics = ReturnType<typeof createGatewayMetrics>;

/** Counts and times every answer, by route pattern ('unmatched' for unknown paths) and status. */
export function registerRequestMetrics(app: FastifyInstance, metrics: GatewayMetrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched');
    metrics.requests.add([route, String(reply.statusCode)]);
    metrics.latency.record(reply.elapsedTime, { route });
    done();
  });
}
