import type { Socket } from 'node:net';
import {
  ApiError,
  InvalidParameterError,
  MAX_REQUEST_HEAD_BYTES,
  createQueryStringParser,
  lazyChildLoggerFactory,
  overlongHeader,
  registerErrorHandling,
  sendApiError,
} from '@cds/http';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { invalidSlug } from '../api/slug.ts';
import { rawErrorResponse, rawMethodNotAllowed, unknownMethodResponse, type RawContext } from './raw-responses.ts';

export interface HardenedServerOptions {
  logger: FastifyBaseLogger;
  /** Makes request ids, for Fastify's requests and for the answers written raw. */
  nextId: () => string;
  publicBaseUrl: string;
  securityHeaders: Readonly<Record<string, string>>;
  /** Longer request targets are answered 414. */
  maxUrlLength: number;
  /** Proxy hops (the ingress) whose X-Forwarded-For is trusted for the client address; 0 trusts none. */
  trustProxyHops: number;
}

/**
 * The gateway's Fastify server, hardened before any route exists: timeouts against slow clients,
 * every refusal in the contract's error shape (Fastify's own, and requests Node cannot even parse,
 * answered on the raw socket), CONNECT and unknown methods answered 405, a GET with a body or an
 * HTTP/1.1 request without Host refused and its connection closed, over-long URLs 414, the
 * request head bounded (8 KiB, 413) and Accept, the preconditions and Range over 1 KiB refused (400
 * naming the header) before anything parses them, and the security headers and request id on every
 * answer.
 */
export function createHardenedServer(opts: HardenedServerOptions): FastifyInstance {
  const { nextId, publicBaseUrl, securityHeaders, maxUrlLength } = opts;
  const rawCtx: RawContext = { publicBaseUrl, securityHeaders };

  const app = Fastify({
    loggerInstance: opts.logger,
    childLoggerFactory: lazyChildLoggerFactory,
    genReqId: nextId,
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    trustProxy: (_address: string, hop: number) => hop < opts.trustProxyHops,
    bodyLimit: 1024,
    // As long as the longest URL accepted, so an over-long slug gets the route's own 400 (after
    // authentication, with the rate-limit headers) rather than a router error.
    // The query-string parser remembers the few query strings clients repeat (never one with a key).
    routerOptions: { maxParamLength: maxUrlLength, querystringParser: createQueryStringParser() },
    connectionTimeout: 30_000,
    keepAliveTimeout: 5_000,
    requestTimeout: 30_000,
    return503OnClosing: true,
    // Node's own answer to an HTTP/1.1 request without Host is an empty 400; the onRequest hook
    // answers it in the contract shape instead. Header and request timeouts are enforced on this
    // check interval (Node's default, 30 s, would let a slowloris client hold a socket for 40 s).
    // The request head is bounded at 8 KiB (Node's default is 16 KiB): past it Node's parser
    // refuses the request (HPE_HEADER_OVERFLOW, answered 413 below) before any handler runs.
    http: { requireHostHeader: false, connectionsCheckingInterval: 1_000, maxHeaderSize: MAX_REQUEST_HEAD_BYTES },
    // Fastify answers a path with bad percent-encoding (`%ZZ`, `%C0%AE`) or an over-long path
    // parameter itself, outside the error handler: answer both in the contract shape.
    // These answers skip the onSend hook, so they set the security headers and request id here.
    frameworkErrors(error, request, reply) {
      reply.headers(securityHeaders);
      reply.header('x-request-id', request.id);
      const api =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? invalidSlug()
          : new InvalidParameterError('path', 'The request path is not valid percent-encoded UTF-8.');
      void sendApiError(reply, api, publicBaseUrl);
    },
    clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
      if (!socket.writable || err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
        socket.destroy();
        return;
      }
      const id = nextId();
      opts.logger.info({ request_id: id, code: err.code }, 'unparseable request refused');
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

  registerErrorHandling(app, { publicBaseUrl });

  // The security headers and the request id go on every answer Fastify sends (errors included);
  // an answer written on the raw response (a cache hit) is given them by its sender.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(securityHeaders);
    reply.header('x-request-id', request.id);
    done(null, payload);
  });

  // Connections told to close (a refused body, no Host): a request Node already parsed after that
  // one on the same connection (pipelined, or hidden in the refused body) is never served.
  const closing = new WeakSet<object>();
  const refuseAndClose = (request: FastifyRequest, reply: FastifyReply): void => {
    closing.add(request.raw.socket);
    reply.header('connection', 'close');
  };
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
    // Accept, the preconditions and Range over 1 KiB: a 400 naming the header, before any step
    // (authentication, the cache lookup, the windows) or parser reads them.
    const overlong = overlongHeader(request.headers);
    if (overlong !== undefined) {
      done(overlong);
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

  return app;
}
