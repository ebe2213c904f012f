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
    sseEvents: createLabeledCounter(m, 'cds_gateway_sse_events_sent', {
      description: 'Server-sent change events written to streams (one per stream and event)',
      labels: [],
    }),
    sseClosed: createLabeledCounter(m, 'cds_gateway_sse_streams_closed', {
      description:
        'Server-sent event streams ended, by reason (client, unauthorized, forbidden, stream_limit, slow_consumer, shutdown)',
      labels: ['reason'],
    }),
  };
}

/** The open SSE streams (a gauge read at collection) and what the hub counts. */
export function createSseMetrics(
  metrics: Metrics,
  gateway: GatewayMetrics,
  openStreams: () => number,
  kept: () => number,
) {
  metrics.meter
    .createObservableGauge('cds_gateway_sse_streams', { description: 'Server-sent event streams open on this replica' })
    .addCallback((r) => r.observe(openStreams()));
  metrics.meter
    .createObservableGauge('cds_gateway_sse_ring_changes', {
      description: 'Changes kept for Last-Event-ID resumption on this replica (SSE_RING_SIZE at most)',
    })
    .addCallback((r) => r.observe(kept()));
  return {
    eventsSent: (n: number) => gateway.sseEvents.add([], n),
    closed: (reason: string) => gateway.sseClosed.add([reason]),
  };
}

/** The key table's size, read at collection: what every replica holds in memory for the key stream. */
export function registerKeyTableMetrics(metrics: Metrics, table: { activeKeys: number; accounts: number }): void {
  metrics.meter
    .createObservableGauge('cds_gateway_active_keys', { description: 'Active API keys in this replica’s key table' })
    .addCallback((r) => r.observe(table.activeKeys));
  metrics.meter
    .createObservableGauge('cds_gateway_key_accounts', { description: 'Accounts in this replica’s key table' })
    .addCallback((r) => r.observe(table.accounts));
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
