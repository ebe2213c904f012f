import { EVENTS_PATH } from '@cds/contracts';
import { createRequestIdGenerator, registerReadOnlyRoutes } from '@cds/http';
import type { ResponseCache } from '@cds/response-cache';
import { UtcDay } from '@cds/schedule';
import type { Metrics } from '@cds/telemetry';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { addApiAnswerHeaders } from './api/answer-headers.ts';
import { decorateRequestState } from './api/request-state.ts';
import { API_ROUTES } from './api/routes.ts';
import { createAuthStep, createRevocationRecheck, type KeyLookup } from './auth/authenticate.ts';
import { FailedAuthLimiter } from './auth/failed-auth-limiter.ts';
import { createCacheStep } from './cache/cache-step.ts';
import { createCatalogCheck } from './events/catalog-check.ts';
import { registerEventsRoute } from './events/events-route.ts';
import type { EventHub } from './events/hub.ts';
import type { StreamSlots } from './events/stream-slots.ts';
import { createGatewayMetrics, createSseMetrics, registerRequestMetrics } from './metrics.ts';
import { createPlanStep } from './plans/plan-step.ts';
import { createForwardHandler } from './proxy/forward.ts';
import type { QueryClient } from './proxy/query-client.ts';
import { createGiveBack } from './rate/give-back.ts';
import { createNotModifiedMeter } from './rate/not-modified-meter.ts';
import { createRateStep } from './rate/rate-step.ts';
import type { RateLimiter } from './rate/windows.ts';
import type { DatasetsBoard } from './datasets/board.ts';
import { registerDatasetsRoutes } from './routes/datasets.ts';
import { registerDocsRoutes } from './routes/docs.ts';
import { registerOpsRoutes, registerPreflight } from './routes/ops.ts';
import { STATUS_URL, registerStatusRoute } from './routes/status.ts';
import { createHardenedServer } from './server/hardening.ts';
import { securityHeaders as securityHeadersFor } from './server/headers.ts';
import type { StatusBoard } from './status/status-document.ts';

export interface GatewayDeps {
  /** Lookup of a well-formed key (hash, table), and whether the key table has caught up with the stream. */
  keys: KeyLookup & { isReady(): boolean };
  rateLimiter: RateLimiter;
  query: QueryClient;
  logger: FastifyBaseLogger;
  metrics?: Metrics;
  nowMs: () => number;
  /** Public address of the API (scheme + host), used in doc_url links. */
  publicBaseUrl: string;
  openapiDocument: Record<string, unknown>;
  failedAuth?: FailedAuthLimiter;
  /** Longer request targets are answered 414. */
  maxUrlLength?: number;
  /**
   * Hot answers of the query service, kept after the key, rate and plan checks have passed; a hit
   * skips the hop to query. Invalidated by the projector's announcements (see main.ts).
   */
  cache?: ResponseCache;
  /** Largest query answer the gateway buffers to keep in its cache. */
  maxCachedBytes?: number;
  /** Send Strict-Transport-Security (when served over TLS by the ingress). */
  hsts?: boolean;
  /** Proxy hops (the ingress) whose X-Forwarded-For is trusted for the client address; 0 trusts none. */
  trustProxyHops?: number;
  /** Source freshness for GET /status, from memory (the followed sync state); without it /status is 503. */
  status?: StatusBoard;
  /** Dataset conditions and releases for GET /datasets, /datasets/feed, /releases, from memory; without it they are 503. */
  datasets?: DatasetsBoard;
  /** GET /api/v1/events (server-sent change notifications); without it the path is 404. */
  events?: {
    hub: EventHub;
    slots: StreamSlots;
    /** The change follower has caught up (streams are 503 until then). */
    isReady: () => boolean;
    /** The changes stream's last sequence (a Last-Event-ID past it gets a resync). */
    streamLastSeq?: () => Promise<number | undefined>;
    /** This process, in the account's stream slots. */
    replicaId: string;
    /** Known commodity ids are kept this long, and read from the query service within the timeout. */
    catalogTtlMs?: number;
    catalogTimeoutMs?: number;
    /** A stream ended by the server is destroyed if its client has not taken the rest within this. */
    endGraceMs?: number;
  };
}

/**
 * Builds the public gateway (it never listens: main.ts does): the hardened server, then every
 * keyed API route as the steps of docs/decisions.md in order, each a preHandler hook that leaves
 * what it decided on the request: auth (request.principal) → plan rules and the slug
 * (request.target, or request.refusal) → response cache lookup (request.cachedAnswer or
 * request.cacheSlot) → rate windows (request.rateDecision; then the refusal, if any) → the
 * handler: the kept answer, or the proxy. Every answer of these routes carries the API and rate
 * headers (api/answer-headers.ts).
 */
export function buildApp(deps: GatewayDeps): FastifyInstance {
  const securityHeaders = securityHeadersFor(deps.hsts ?? false);
  const app = createHardenedServer({
    logger: deps.logger,
    nextId: createRequestIdGenerator(),
    publicBaseUrl: deps.publicBaseUrl,
    securityHeaders,
    maxUrlLength: deps.maxUrlLength ?? 4096,
    trustProxyHops: deps.trustProxyHops ?? 0,
  });
  const metrics = deps.metrics === undefined ? undefined : createGatewayMetrics(deps.metrics);
  if (metrics !== undefined) registerRequestMetrics(app, metrics);
  decorateRequestState(app);

  registerPreflight(app);
  registerOpsRoutes(app, { isReady: () => deps.keys.isReady(), metrics: deps.metrics });
  const docsUrls = registerDocsRoutes(app, deps.openapiDocument);
  registerStatusRoute(app, { status: deps.status, nowMs: deps.nowMs, publicBaseUrl: deps.publicBaseUrl });
  const datasetsUrls = registerDatasetsRoutes(app, {
    datasets: deps.datasets,
    nowMs: deps.nowMs,
    publicBaseUrl: deps.publicBaseUrl,
  });

  const today = new UtcDay();
  const auth = createAuthStep({
    keys: deps.keys,
    failedAuth: deps.failedAuth ?? new FailedAuthLimiter(),
    nowMs: deps.nowMs,
    metrics,
  });
  // The secondary limit on 304s: every tenth of an account's 304s counts (not-modified-meter.ts).
  const notModified = createNotModifiedMeter(deps.rateLimiter, { nowMs: deps.nowMs });
  const windows = createRateStep({
    rateLimiter: deps.rateLimiter,
    notModified,
    metrics,
    stillAuthorized: createRevocationRecheck(deps.keys),
  });
  const giveBack = createGiveBack(deps.rateLimiter, notModified);
  const cache =
    deps.cache === undefined
      ? undefined
      : createCacheStep({
          cache: deps.cache,
          nowMs: deps.nowMs,
          today,
          securityHeaders,
          maxCachedBytes: deps.maxCachedBytes ?? 1024 * 1024,
          metrics,
        });
  const forward = createForwardHandler({ query: deps.query, keeper: cache?.keeper, giveBack });
  const handler = cache === undefined ? forward : cache.answer(forward);
  for (const route of API_ROUTES) {
    const plan = createPlanStep(route, { nowMs: deps.nowMs, today });
    // A bulk file is never kept (and its Range must reach the query service): no cache lookup.
    const preHandler =
      cache === undefined || !route.cached ? [auth, plan, windows] : [auth, plan, cache.lookup, windows];
    app.get(route.url, { preHandler, onSend: addApiAnswerHeaders }, handler);
  }

  if (deps.events !== undefined) {
    const ev = deps.events;
    if (metrics !== undefined && deps.metrics !== undefined) {
      ev.hub.metrics = createSseMetrics(
        deps.metrics,
        metrics,
        () => ev.hub.size,
        () => ev.hub.ring.size,
      );
    }
    registerEventsRoute(app, {
      auth,
      windows,
      keys: deps.keys,
      hub: ev.hub,
      slots: ev.slots,
      isReady: ev.isReady,
      ...(ev.streamLastSeq === undefined ? {} : { streamLastSeq: ev.streamLastSeq }),
      replicaId: ev.replicaId,
      catalog: createCatalogCheck({
        query: deps.query,
        nowMs: deps.nowMs,
        ttlMs: ev.catalogTtlMs ?? 10_000,
        timeoutMs: ev.catalogTimeoutMs ?? 2_000,
      }),
      securityHeaders,
      nowMs: deps.nowMs,
      ...(ev.endGraceMs === undefined ? {} : { endGraceMs: ev.endGraceMs }),
    });
    // Shutdown: the streams end first (Fastify's close waits for open connections).
    app.addHook('preClose', async () => ev.hub.closeAll());
  }

  // Every public path answers a method it does not serve 405 with Allow, before authentication.
  registerReadOnlyRoutes(app, [
    ...API_ROUTES.map((r) => r.url),
    ...(deps.events === undefined ? [] : [EVENTS_PATH]),
    STATUS_URL,
    ...datasetsUrls,
    ...docsUrls,
  ]);
  return app;
}
