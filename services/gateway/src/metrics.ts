import { declareMetrics, type Metrics } from '@cds/telemetry';
import type { FastifyInstance } from 'fastify';

/** The gateway's instruments; counters on the request path are labeled counters (cheap per request). */
export function createGatewayMetrics(metrics: Metrics) {
  const m = declareMetrics(metrics);
  return {
    requests: m.counter('cds_gateway_requests', {
      description: 'Requests answered, by route and status',
      labels: ['route', 'status'],
    }),
    latency: m.histogram('cds_gateway_request_duration_ms', { description: 'Time to answer a request', unit: 'ms' }),
    rateDecisions: m.counter('cds_gateway_rate_limit_decisions', {
      description: 'Rate-window decisions, by outcome and store',
      labels: ['decision', 'source'],
    }),
    authFailures: m.counter('cds_gateway_auth_failures', {
      description: 'Requests refused for a missing or invalid key',
      labels: ['throttled'],
    }),
    cache: m.counter('cds_gateway_cache_lookups', {
      description: 'Response cache lookups, by result (hit, miss)',
      labels: ['result'],
    }),
    sseEvents: m.counter('cds_gateway_sse_events_sent', {
      description: 'Server-sent change events written to streams (one per stream and event)',
      labels: [],
    }),
    sseClosed: m.counter('cds_gateway_sse_streams_closed', {
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
  const m = declareMetrics(metrics);
  m.observe('cds_gateway_sse_streams', 'gauge', 'Server-sent event streams open on this replica', (report) =>
    report(openStreams()),
  );
  m.observe(
    'cds_gateway_sse_ring_changes',
    'gauge',
    'Changes kept for Last-Event-ID resumption on this replica (SSE_RING_SIZE at most)',
    (report) => report(kept()),
  );
  return {
    eventsSent: (n: number) => gateway.sseEvents.add([], n),
    closed: (reason: string) => gateway.sseClosed.add([reason]),
  };
}

/** The key table's size, read at collection: what every replica holds in memory for the key stream. */
export function registerKeyTableMetrics(
  metrics: Metrics,
  table: { activeKeys: number; accounts: number; bytes: number },
): void {
  const m = declareMetrics(metrics);
  m.observe('cds_gateway_key_table_bytes', 'gauge', 'Bytes of the typed arrays of this replica’s key table', (report) =>
    report(table.bytes),
  );
  m.observe('cds_gateway_active_keys', 'gauge', 'Active API keys in this replica’s key table', (report) =>
    report(table.activeKeys),
  );
  m.observe('cds_gateway_key_accounts', 'gauge', 'Accounts in this replica’s key table', (report) =>
    report(table.accounts),
  );
}

/** Decisions taken by this replica alone while Redis was unavailable (main.ts hands them to the limiters). */
export function createFallbackMetrics(metrics: Metrics) {
  const m = declareMetrics(metrics);
  return {
    sseSlots: m.counter('cds_gateway_sse_slot_fallback', {
      description: 'SSE stream slots decided by this replica alone while Redis was unavailable',
      labels: [],
    }),
    rateLimits: m.counter('cds_gateway_rate_limit_fallback', {
      description: 'Requests rate-limited by the local fallback while Redis was unavailable',
      labels: [],
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
