import type { OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import {
  API_KEY_PATTERN,
  COMMODITY_ID_PATTERN,
  PLANS,
  errorBody,
  rateLimitHeaders,
  type ErrorCode,
  ERROR_CODES,
} from '@cds/contracts';
import {
  ApiError,
  InvalidParameterError,
  MethodNotAllowedError,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  createRequestIdGenerator,
  lazyChildLoggerFactory,
  registerErrorHandling,
  registerReadOnlyRoutes,
  sendApiError,
} from '@cds/http';
import { LIST_TAG, fromServedBody, type CachedBody, type ResponseCache } from '@cds/response-cache';
import { createLabeledCounter, type Metrics } from '@cds/telemetry';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { extractKey } from './auth/extract-key.ts';
import { FailedAuthLimiter } from './auth/failed-auth-limiter.ts';
import { renderErrorsPage, renderReferencePage } from './docs/pages.ts';
import type { Principal } from './keys/key-table.ts';
import { checkPlan, type RouteName } from './plans/plan-rules.ts';
import type { QueryClient } from './proxy/query-client.ts';
import type { RateLimiter } from './rate/windows.ts';
import type { StatusBoard } from './status/status-document.ts';

export interface GatewayDeps {
  /** Lookup of a well-formed key (hash, table), and whether the key table has caught up with the stream. */
  keys: { lookup(key: string): Principal | undefined; isReady(): boolean };
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
}

const API = '/api/v1';
/** The longest commodity id (CommodityId in @cds/contracts): a longer slug is never forwarded. */
const MAX_SLUG_LENGTH = 64;
const ROUTES: { name: RouteName; url: string; upstream: (slug: string) => string }[] = [
  { name: 'list', url: `${API}/commodities`, upstream: () => `${API}/commodities` },
  { name: 'detail', url: `${API}/commodities/:slug`, upstream: (s) => `${API}/commodities/${s}` },
  { name: 'series', url: `${API}/commodities/:slug/series`, upstream: (s) => `${API}/commodities/${s}/series` },
  { name: 'cot', url: `${API}/commodities/:slug/cot`, upstream: (s) => `${API}/commodities/${s}/cot` },
];

const SECURITY_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'cross-origin',
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit, Retry-After',
};
const API_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};
const JSON_TYPE = 'application/json; charset=utf-8';
const DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/** The query string to forward: the request's own, minus every api_key parameter. */
export function forwardedQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || q === url.length - 1) return '';
  const qs = url.slice(q + 1);
  if (!/api(?:_|%5f)key/i.test(qs)) return `?${qs}`;
  const kept = qs.split('&').filter((pair) => {
    const raw = pair.split('=', 1)[0] ?? '';
    let name = raw;
    try {
      name = decodeURIComponent(raw);
    } catch {
      // A malformed name is forwarded as it is; the query service rejects it as unknown.
    }
    return name.toLowerCase() !== 'api_key';
  });
  return kept.length === 0 ? '' : `?${kept.join('&')}`;
}

const DAY_MS = 86_400_000;
let today = { day: Number.NaN, iso: '' };
/** The UTC date of `nowMs` (YYYY-MM-DD), formatted once per day rather than once per request. */
function todayUtc(nowMs: number): string {
  const day = Math.floor(nowMs / DAY_MS);
  if (day !== today.day) today = { day, iso: new Date(day * DAY_MS).toISOString().slice(0, 10) };
  return today.iso;
}

/**
 * Sends a cached body without copying it (a year of daily points is ~30 KB): the bytes before the
 * request id, then the id and the closing bytes, as two writes that Node sends in one `writev`
 * (it corks the socket on the first write). The reply is hijacked for that, so the headers set so
 * far, and `headers` (the security, API and rate headers), are written here; `onResponse` hooks
 * still run (Fastify runs them on the response's finish).
 */
function sendCached(
  request: FastifyRequest,
  reply: FastifyReply,
  body: CachedBody,
  headers: Record<string, string>,
): void {
  const requestId = String(request.id);
  const idBytes = Buffer.byteLength(requestId, 'latin1');
  // Anything set on the reply so far (none on this path, normally) still goes out.
  Object.assign(headers, reply.getHeaders());
  headers['x-request-id'] = requestId;
  headers['content-type'] = JSON_TYPE;
  headers['content-length'] = String(body.prefix.length + idBytes + body.suffix.length);
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, headers as OutgoingHttpHeaders);
  if (request.method === 'HEAD') {
    res.end();
    return;
  }
  const tail = Buffer.allocUnsafe(idBytes + body.suffix.length);
  tail.write(requestId, 0, 'latin1');
  body.suffix.copy(tail, idBytes);
  res.write(body.prefix);
  res.end(tail);
}

/** What every answer written straight to the socket carries besides its body: the public base URL and the security headers. */
interface RawContext {
  publicBaseUrl: string;
  securityHeaders: Record<string, string>;
}

/**
 * A raw HTTP error response for requests Node could not even parse (no Fastify request exists),
 * with the same security headers the onSend hook puts on every other answer.
 */
function rawErrorResponse(
  status: number,
  code: ErrorCode,
  message: string,
  requestId: string,
  ctx: RawContext,
  extraHeaders = '',
): string {
  const body = JSON.stringify(errorBody(code, message, { requestId, publicBaseUrl: ctx.publicBaseUrl }));
  const security = Object.entries(ctx.securityHeaders)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${status} ${ERROR_CODES[code].title}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n${security}${extraHeaders}` +
    `Connection: close\r\n\r\n${body}`
  );
}

/** 405 for a method answered outside Fastify, with the same message and Allow as the routes' own. */
function rawMethodNotAllowed(method: string, id: string, ctx: RawContext): string {
  const e = new MethodNotAllowedError(method);
  return rawErrorResponse(405, e.code, e.message, id, ctx, `Allow: ${e.headers.allow ?? ''}\r\n`);
}
/** An HTTP method token (RFC 9110) and an origin-form target: the request line of a method Node does not know. */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}) (\/[^\s]*) HTTP\/1\.[01]\r?\n/;
const API_PATH = /^\/api\/v1\/(?:status|commodities(?:\/[^/?#]+(?:\/(?:series|cot))?)?)(?:[?#]|$)/;

/**
 * The answer to a method Node's parser refuses (any token beyond http.METHODS, e.g. `FOO`): 405
 * with Allow on an API path, 404 elsewhere, as Fastify answers the methods it knows; a request
 * line that is no request line at all stays a 400.
 */
function unknownMethodResponse(raw: Buffer | undefined, id: string, ctx: RawContext): string | undefined {
  const line = REQUEST_LINE.exec(raw?.subarray(0, 8192).toString('latin1') ?? '');
  if (line === null) return undefined;
  const [, method, target] = line as unknown as [string, string, string];
  if (API_PATH.test(target)) return rawMethodNotAllowed(method, id, ctx);
  return rawErrorResponse(404, 'not_found', `No route ${method} ${target.split('?')[0]!.slice(0, 200)}.`, id, ctx);
}

/** Builds the public gateway. It never listens: main.ts does. */
export function buildApp(deps: GatewayDeps): FastifyInstance {
  const nextId = createRequestIdGenerator();
  const failedAuth = deps.failedAuth ?? new FailedAuthLimiter();
  const maxUrlLength = deps.maxUrlLength ?? 4096;
  const maxCachedBytes = deps.maxCachedBytes ?? 1024 * 1024;
  const publicBaseUrl = deps.publicBaseUrl;
  const securityHeaders = deps.hsts
    ? { ...SECURITY_HEADERS, 'strict-transport-security': 'max-age=31536000; includeSubDomains' }
    : SECURITY_HEADERS;
  const rawCtx: RawContext = { publicBaseUrl, securityHeaders };

  const app = Fastify({
    loggerInstance: deps.logger,
    childLoggerFactory: lazyChildLoggerFactory,
    genReqId: nextId,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    trustProxy: (_address: string, hop: number) => hop < (deps.trustProxyHops ?? 0),
    bodyLimit: 1024,
    // As long as the longest URL accepted, so an over-long slug gets the route's own 400 (after
    // authentication, with the rate-limit headers) rather than a router error.
    routerOptions: { maxParamLength: deps.maxUrlLength ?? 4096 },
    connectionTimeout: 30_000,
    keepAliveTimeout: 5_000,
    requestTimeout: 30_000,
    return503OnClosing: true,
    // Node's own answer to an HTTP/1.1 request without Host is an empty 400; the onRequest hook
    // answers it in the contract shape instead. Header and request timeouts are enforced on this
    // check interval (Node's default, 30 s, would let a slowloris client hold a socket for 40 s).
    http: { requireHostHeader: false, connectionsCheckingInterval: 1_000 },
    // Fastify answers a path with bad percent-encoding (`%ZZ`, `%C0%AE`) or an over-long path
    // parameter itself, outside the error handler: answer both in the contract shape.
    // These answers skip the onSend hook, so they set the security headers and request id here.
    frameworkErrors(error, request, reply) {
      reply.headers(securityHeaders);
      reply.header('x-request-id', request.id);
      const api =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new InvalidParameterError(
              'slug',
              "invalid 'slug': must be a commodity id in UPPER_SNAKE_CASE, for example GOLD",
            )
          : new InvalidParameterError('path', 'The request path is not valid percent-encoded UTF-8.');
      void sendApiError(reply, api, publicBaseUrl);
    },
    clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
      if (!socket.writable || err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        socket.destroy();
        return;
      }
      const id = nextId();
      deps.logger.info({ request_id: id, code: err.code }, 'unparseable request refused');
      if (err.code === 'HPE_HEADER_OVERFLOW') {
        socket.end(rawErrorResponse(413, 'payload_too_large', 'The request headers are too large.', id, rawCtx));
        return;
      }
      const unknownMethod =
        err.code === 'HPE_INVALID_METHOD'
          ? unknownMethodResponse((err as { rawPacket?: Buffer }).rawPacket, id, rawCtx)
          : undefined;
      socket.end(
        unknownMethod ?? rawErrorResponse(400, 'invalid_parameter', 'The request is not valid HTTP.', id, rawCtx),
      );
    },
  });
  app.server.headersTimeout = 10_000;
  // CONNECT never reaches a route (Node emits 'connect', and destroys the socket when nobody
  // listens): no tunnel is offered, so it is a method the API does not allow, like any other.
  app.server.on('connect', (_req: unknown, socket: Socket) => {
    socket.end(rawMethodNotAllowed('CONNECT', nextId(), rawCtx));
  });

  const metrics = createGatewayMetrics(deps.metrics);

  registerErrorHandling(app, { publicBaseUrl });

  // Connections told to close (a refused body, no Host): a request Node already parsed after that
  // one on the same connection (pipelined, or hidden in the refused body) is never served.
  const closing = new WeakSet<object>();
  const refuseAndClose = (request: FastifyRequest, reply: FastifyReply) => {
    closing.add(request.raw.socket);
    reply.header('connection', 'close');
  };

  // The security headers and the request id go on every answer Fastify sends (errors included);
  // a cached answer written directly (sendCached) carries them itself.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(securityHeaders);
    reply.header('x-request-id', request.id);
    done(null, payload);
  });

  app.addHook('onRequest', (request, reply, done) => {
    if (closing.has(request.raw.socket)) {
      reply.header('connection', 'close');
      done(new ApiError('invalid_parameter', 'The connection is closing after a refused request.'));
      return;
    }
    if (request.url.length > maxUrlLength) {
      done(new ApiError('uri_too_long', `The request URL is longer than ${maxUrlLength} characters.`));
      return;
    }
    if (request.headers.host === undefined && request.raw.httpVersion === '1.1') {
      refuseAndClose(request, reply);
      done(new ApiError('invalid_parameter', 'An HTTP/1.1 request needs a Host header.'));
      return;
    }
    const length = request.headers['content-length'];
    if ((length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined) {
      if (request.method === 'GET' || request.method === 'HEAD') {
        // The body is never read: close the connection, so nothing after it (a pipelined or
        // smuggled request inside the body) is ever taken for a request.
        refuseAndClose(request, reply);
        done(new ApiError('payload_too_large', 'Requests are GET without a body.'));
        return;
      }
    }
    done();
  });

  if (metrics !== undefined) {
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.requests.add([route, String(reply.statusCode)]);
      metrics.latency.record(reply.elapsedTime, { route });
      done();
    });
  }

  // CORS preflight: browsers send it without credentials, so it needs no key.
  app.options('/*', (_request, reply) => {
    reply
      .code(204)
      .header('access-control-allow-methods', 'GET, HEAD, OPTIONS')
      .header('access-control-allow-headers', 'Authorization, Content-Type')
      .header('access-control-max-age', '600')
      .send();
  });

  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', (_request, reply) => {
    if (!deps.keys.isReady()) throw new ServiceUnavailableError('The key table is still replaying the key stream.');
    return reply.send({ status: 'ready' });
  });
  if (deps.metrics !== undefined) {
    const m = deps.metrics;
    app.get('/metrics', async (_request, reply) => reply.type('text/plain; version=0.0.4').send(await m.render()));
  }

  const openapiJson = JSON.stringify(deps.openapiDocument);
  const referenceHtml = renderReferencePage(deps.openapiDocument);
  const errorsHtml = renderErrorsPage();
  app.get(`${API}/openapi.json`, (_request, reply) => reply.type('application/json; charset=utf-8').send(openapiJson));
  const html = (body: string) => (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', DOCS_CSP).send(body);
  app.get('/docs', html(referenceHtml));
  app.get('/docs/errors', html(errorsHtml));

  // Public: no key, no rate window, no database; answered from the followed sync state.
  const statusBoard = deps.status;
  app.get(`${API}/status`, (request, reply) => {
    if (statusBoard === undefined) throw new ServiceUnavailableError('The source status is not available.');
    const now = deps.nowMs();
    return reply
      .headers({ ...API_HEADERS, 'cache-control': 'public, max-age=60' })
      .type(JSON_TYPE)
      .send({
        data: statusBoard.document(now),
        meta: { request_id: String(request.id), generated_at: new Date(now).toISOString() },
      });
  });

  /** Authentication, then the rate windows, then plan rules and the slug; then forward to query. */
  const handle = (route: (typeof ROUTES)[number]) =>
    async function apiHandler(request: FastifyRequest, reply: FastifyReply) {
      const now = deps.nowMs();

      const extracted = extractKey(request.headers, request.raw.rawHeaders, request.query);
      // A key of the wrong shape is refused without a lookup.
      const wellFormed = extracted.ok && API_KEY_PATTERN.test(extracted.key);
      const principal = wellFormed ? deps.keys.lookup(extracted.key) : undefined;
      if (principal === undefined) {
        reply.headers(API_HEADERS);
        const wait = failedAuth.blockedFor(request.ip, now);
        metrics?.authFailures.add([String(wait > 0)]);
        if (wait > 0) {
          throw new ApiError(
            'rate_limited',
            `Too many failed authentication attempts from your address: retry in ${wait} s.`,
            {
              headers: { 'retry-after': String(wait) },
            },
          );
        }
        failedAuth.recordFailure(request.ip, now);
        throw new UnauthorizedError(
          extracted.ok
            ? 'The API key is not valid: it is malformed, unknown or revoked.'
            : `Unauthorized: ${extracted.reason}.`,
        );
      }

      const decision = await deps.rateLimiter.take(principal.accountId, PLANS[principal.plan], principal.keyId);
      metrics?.rateDecisions.add([decision.admitted ? 'admitted' : 'refused', decision.source]);
      const rateHeaders = rateLimitHeaders(decision.minute, decision.day, decision.now);
      // Every answer but a cached one (which writes its headers itself) gets them on the reply.
      const withHeaders = () => reply.headers(API_HEADERS).headers(rateHeaders);
      if (!decision.admitted) {
        withHeaders();
        throw new RateLimitedError(decision.refusedBy ?? 'minute', decision.retryAfter);
      }

      const query = request.query as Record<string, unknown>;
      const refusal = checkPlan(principal.plan, route.name, query, todayUtc(now));
      if (refusal !== undefined) {
        withHeaders();
        throw refusal;
      }

      const slug = (request.params as { slug?: string }).slug ?? '';
      if (route.name !== 'list' && (slug.length > MAX_SLUG_LENGTH || !COMMODITY_ID_PATTERN.test(slug))) {
        withHeaders();
        throw new InvalidParameterError(
          'slug',
          "invalid 'slug': must be a commodity id in UPPER_SNAKE_CASE, for example GOLD",
        );
      }

      const path = route.upstream(slug) + forwardedQuery(request.url);
      const requestId = String(request.id);
      const cache = deps.cache;
      const day = todayUtc(now);
      if (cache !== undefined) {
        const hit = cache.lookupAlias(path, day);
        if (hit !== undefined) {
          metrics?.cache.add(['hit']);
          sendCached(request, reply, hit, { ...securityHeaders, ...API_HEADERS, ...rateHeaders });
          return reply;
        }
      }
      withHeaders();
      const epoch = cache?.epoch() ?? 0;

      let upstream;
      try {
        upstream = await deps.query.get(path, requestId);
      } catch (err) {
        throw new ServiceUnavailableError('The data service did not answer in time; retry shortly.', err);
      }
      reply.code(upstream.statusCode);
      const type = upstream.headers['content-type'];
      reply.type(typeof type === 'string' ? type : JSON_TYPE);
      const length = upstream.headers['content-length'];
      const size = typeof length === 'string' ? Number(length) : Number.NaN;
      if (cache !== undefined && upstream.statusCode === 200 && size <= maxCachedBytes) {
        metrics?.cache.add(['miss']);
        const chunks: Buffer[] = [];
        for await (const chunk of upstream.body) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks);
        const cached = fromServedBody(body, requestId);
        if (cached !== undefined) {
          cache.put(path, cached, { tags: [route.name === 'list' ? LIST_TAG : slug], day, alias: path }, epoch);
        }
        return reply.send(body);
      }
      if (typeof length === 'string') reply.header('content-length', length);
      return reply.send(upstream.body);
    };

  for (const route of ROUTES) app.get(route.url, handle(route));
  // Every public path answers a method it does not serve 405 with Allow, before authentication.
  registerReadOnlyRoutes(app, [
    ...ROUTES.map((r) => r.url),
    `${API}/status`,
    `${API}/openapi.json`,
    '/docs',
    '/docs/errors',
  ]);

  return app;
}

/** The gateway's instruments; counters on the request path are labeled counters (cheap per request). */
function createGatewayMetrics(metrics: Metrics | undefined) {
  if (metrics === undefined) return undefined;
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
