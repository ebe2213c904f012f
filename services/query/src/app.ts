import { API_PREFIX } from '@cds/contracts';
import {
  createRequestIdGenerator,
  registerErrorHandling,
  registerReadOnlyRoutes,
  ServiceUnavailableError,
} from '@cds/http';
import type { Metrics } from '@cds/telemetry';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ResponseCache } from '@cds/response-cache';
import { createGetCotHandler } from './cot/get-cot.ts';
import { createGetCommodityHandler } from './detail/get-commodity.ts';
import { createRequestIdResolver } from './http/request-id.ts';
import type { RouteContext } from './http/route-context.ts';
import { createListCommoditiesHandler } from './list/list-commodities.ts';
import { classifyMongoError } from './repository/mongo-errors.ts';
import type { ReadModelRepository } from './repository/repository.ts';
import { createUtcToday } from './series/dates.ts';
import { createGetSeriesHandler } from './series/get-series.ts';

export interface QueryDeps {
  repository: ReadModelRepository;
  /** The hot-response cache (one per process; NATS data events invalidate it, see invalidation/). */
  cache: ResponseCache;
  /** Public base address for error doc_url, e.g. https://api.example.com. */
  publicBaseUrl: string;
  /** Wall clock; "today" (UTC) for the series date defaults comes from it. */
  clock?: () => Date;
  /** Fresh request ids when the gateway sent none. */
  requestIds?: () => string;
  /** A pino logger; none means silent. */
  logger?: FastifyBaseLogger;
  /** Log one line per request (fastify's request logging). Default true. */
  requestLogging?: boolean;
  /** Request and cache metrics, served on GET /metrics; none means no /metrics. */
  metrics?: Metrics;
}

export const ROUTES = {
  list: `${API_PREFIX}/commodities`,
  detail: `${API_PREFIX}/commodities/:slug`,
  series: `${API_PREFIX}/commodities/:slug/series`,
  cot: `${API_PREFIX}/commodities/:slug/cot`,
} as const;

/**
 * The query service: the four read endpoints with their full semantics over the read models,
 * /healthz and /readyz. Never listens; main.ts does.
 */
export function buildApp(deps: QueryDeps): FastifyInstance {
  const clock = deps.clock ?? (() => new Date());
  const app = Fastify({
    ...(deps.logger === undefined ? { logger: false } : { loggerInstance: deps.logger }),
    logController: new LogController({
      disableRequestLogging: deps.requestLogging === false,
      requestIdLogLabel: 'request_id',
    }),
    genReqId: createRequestIdResolver(deps.requestIds ?? createRequestIdGenerator()),
    requestIdHeader: false,
    bodyLimit: 1024,
  }) as unknown as FastifyInstance;

  registerErrorHandling(app, { publicBaseUrl: deps.publicBaseUrl, classify: classifyMongoError });
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  if (deps.metrics !== undefined) registerMetrics(app, deps.metrics, deps.cache);

  const ctx: RouteContext = { repository: deps.repository, cache: deps.cache, today: createUtcToday(clock) };
  app.get(ROUTES.list, createListCommoditiesHandler(ctx));
  app.get(ROUTES.detail, createGetCommodityHandler(ctx));
  app.get(ROUTES.series, createGetSeriesHandler(ctx));
  app.get(ROUTES.cot, createGetCotHandler(ctx));
  registerReadOnlyRoutes(app, Object.values(ROUTES));

  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async () => {
    try {
      await deps.repository.ping();
    } catch (err) {
      throw classifyMongoError(err) ?? new ServiceUnavailableError('The database is not ready.', err);
    }
    return { status: 'ready' };
  });
  return app;
}

/** Request count and latency per route and status, response-cache counters, and GET /metrics. */
function registerMetrics(app: FastifyInstance, metrics: Metrics, cache: ResponseCache): void {
  const m = metrics.meter;
  const requests = m.createCounter('cds_query_requests', { description: 'Requests answered, by route and status' });
  const latency = m.createHistogram('cds_query_request_duration_ms', {
    description: 'Time to answer a request',
    unit: 'ms',
  });
  const lookups = m.createObservableCounter('cds_query_cache_lookups', {
    description: 'Response-cache lookups, by result (hit or miss)',
  });
  const invalidations = m.createObservableCounter('cds_query_cache_invalidations', {
    description: 'Cached responses dropped by data events',
  });
  const entries = m.createObservableGauge('cds_query_cache_entries', { description: 'Responses in the cache' });
  m.addBatchObservableCallback(
    (result) => {
      const s = cache.stats();
      result.observe(lookups, s.hits, { result: 'hit' });
      result.observe(lookups, s.misses, { result: 'miss' });
      result.observe(invalidations, s.invalidations);
      result.observe(entries, s.entries);
    },
    [lookups, invalidations, entries],
  );
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route !== '/metrics' && route !== '/healthz' && route !== '/readyz') {
      requests.add(1, { route, status: String(reply.statusCode) });
      latency.record(reply.elapsedTime, { route });
    }
    done();
  });
  app.get('/metrics', async (_request, reply) => reply.type('text/plain; version=0.0.4').send(await metrics.render()));
}
