import { ROUTE_PATHS } from '@cds/contracts';
import {
  createRequestIdGenerator,
  MAX_REQUEST_HEAD_BYTES,
  registerErrorHandling,
  registerHeaderBounds,
  registerReadOnlyRoutes,
  ServiceUnavailableError,
  zodValidatorCompiler,
  type ZodTypeProvider,
} from '@cds/http';
import { maxAgeSecondsOf, utcToday } from '@cds/schedule';
import type { Metrics } from '@cds/telemetry';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registerResponseCache, type ResponseCache } from '@cds/response-cache';
import type { z } from 'zod';
import type { BulkFileStore } from '@cds/store';
import { registerBulkRoutes } from './bulk/bulk-routes.ts';
import { registerCotRoute } from './cot/get-cot.ts';
import { registerDetailRoute } from './detail/get-commodity.ts';
import { createRequestIdResolver } from './http/request-id.ts';
import { asText, responseSerializer } from './http/response-serializer.ts';
import { MAX_SLUG_PARAM_LENGTH, type RouteContext } from './http/route-context.ts';
import { registerListRoute } from './list/list-commodities.ts';
import { registerQueryMetrics } from './metrics.ts';
import { classifyMongoError } from './repository/mongo-errors.ts';
import type { ReadModelRepository } from './repository/repository.ts';
import { registerSeriesRoute } from './series/get-series.ts';
import { registerSupplyDemandRoute } from './supply-demand/get-supply-demand.ts';

export interface QueryDeps {
  repository: ReadModelRepository;
  /** The response cache (one per process; the projector's announcements invalidate it, see main.ts). */
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
  /** The bulk files (GET /bulk, /bulk/:file); none means those paths are 404. */
  bulk?: BulkFileStore;
  /**
   * Parse every answer with its route's response schema before sending it (specs): one outside the
   * contract is a 500. Default false (responseSerializer).
   */
  checkResponses?: boolean;
}

/**
 * The query service: the data endpoints and the bulk files with their full semantics over the read models,
 * /healthz and /readyz. Never listens; main.ts does. The endpoints declare their params and query
 * string with the contract's zod schemas (validated before the handler, a problem is the
 * contract's 400) and their cache entry (the response cache answers a known request without the
 * handler, which only computes a body for a miss).
 */
export function buildApp(deps: QueryDeps): FastifyInstance {
  const app = Fastify({
    ...(deps.logger === undefined ? { logger: false } : { loggerInstance: deps.logger }),
    logController: new LogController({
      disableRequestLogging: deps.requestLogging === false,
      requestIdLogLabel: 'request_id',
    }),
    genReqId: createRequestIdResolver(deps.requestIds ?? createRequestIdGenerator()),
    requestIdHeader: false,
    bodyLimit: 1024,
    // A long slug reaches its route (a well-formed unknown id is a 404, not the router's 414 past 100).
    routerOptions: { maxParamLength: MAX_SLUG_PARAM_LENGTH },
    // The request head is bounded as the gateway's is (8 KiB; Node answers 431 past it).
    http: { maxHeaderSize: MAX_REQUEST_HEAD_BYTES },
  }) as unknown as FastifyInstance;

  registerErrorHandling(app, { publicBaseUrl: deps.publicBaseUrl, classify: classifyMongoError });
  // Accept, the preconditions and Range over 1 KiB are a 400 before anything parses them.
  registerHeaderBounds(app);
  // Cached answers write x-request-id themselves (writeCachedBody); every other answer gets it here,
  // and an error is never cacheable.
  app.addHook('onSend', (request, reply, _payload, done) => {
    reply.header('x-request-id', request.id);
    if (reply.statusCode >= 400) reply.header('cache-control', 'no-store');
    done();
  });

  if (deps.metrics !== undefined) registerQueryMetrics(app, deps.metrics, deps.cache);

  app.setValidatorCompiler(zodValidatorCompiler);
  // A route's 200 body is serialized through its contract response schema (routeSchema), by fastify
  // and by the response cache.
  const serializerOf = (schema: unknown) => responseSerializer(schema as z.ZodType, deps.checkResponses === true);
  app.setSerializerCompiler(({ schema }) => {
    const serialize = serializerOf(schema);
    return (data: unknown) => asText(serialize(data as Parameters<typeof serialize>[0]));
  });
  const { clock } = deps;
  const nowMs = clock === undefined ? Date.now : () => clock().getTime();
  const ctx: RouteContext = { repository: deps.repository, today: utcToday(deps.clock ?? Date.now), nowMs };
  registerResponseCache(app, deps.cache, {
    nowMs,
    today: () => ctx.today(),
    maxAgeOf: (sources, nowMs) => maxAgeSecondsOf(sources, new Date(nowMs)),
    serializerOf,
  });
  const routes = app.withTypeProvider<ZodTypeProvider>();
  registerListRoute(routes, ctx);
  registerDetailRoute(routes, ctx);
  registerSeriesRoute(routes, ctx);
  registerCotRoute(routes, ctx);
  registerSupplyDemandRoute(routes, ctx);
  if (deps.bulk !== undefined) registerBulkRoutes(routes, deps.bulk);
  registerReadOnlyRoutes(app, Object.values(ROUTE_PATHS));

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
