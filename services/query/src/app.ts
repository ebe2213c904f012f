import { API_PREFIX } from '@cds/contracts';
import {
  createRequestIdGenerator,
  registerErrorHandling,
  registerReadOnlyRoutes,
  ServiceUnavailableError,
} from '@cds/http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ResponseCache } from './cache/response-cache.ts';
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
