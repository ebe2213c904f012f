import type { IncomingHttpHeaders } from 'node:http';
import {
  CSV_KEY,
  LIST_TAG,
  JSON_OR_CSV,
  cachedBodyFromUpstream,
  cachedCsvFromUpstream,
  createNegotiator,
  forwardedKey,
  notModified,
  writeCachedBody,
  type ResponseCache,
} from '@cds/response-cache';
import type { UtcDay } from '@cds/schedule';
import type { FastifyInstance, preHandlerHookHandler, RouteHandlerMethod } from 'fastify';
import { apiAnswerHeaders } from '../api/answer-headers.ts';
import type { GatewayMetrics } from '../metrics.ts';
import type { AnswerKeeper } from '../proxy/forward.ts';
import { CSV_TYPE, JSON_TYPE } from '../server/headers.ts';

export interface CacheStep {
  /** The step itself: finds a kept answer (and whether it is a 304) or the slot a miss will fill. */
  lookup: preHandlerHookHandler;
  /** The route handler: a kept answer sent from memory with this request's id, else `forward`'s. */
  answer(forward: RouteHandlerMethod): RouteHandlerMethod;
  /** The store side, given to the proxy: keeps a JSON 200 of the query service under the same key. */
  keeper: AnswerKeeper;
}

const MAX_AGE = /(?:^|[\s,])max-age=(\d+)/;

/** The max-age of an upstream answer counted down from `receivedMs`: a kept answer never outlives it. */
function maxAgeFrom(headers: IncomingHttpHeaders, receivedMs: number): ((nowMs: number) => number) | undefined {
  const value = headers['cache-control'];
  const m = typeof value === 'string' ? MAX_AGE.exec(value) : null;
  if (m === null) return undefined;
  const until = receivedMs + Number(m[1]) * 1000;
  return (nowMs) => (until - nowMs) / 1000;
}

/**
 * Step 3 of an API request: the query service's hot answers, looked up once the plan step has
 * found the path to forward, and sent by the route handler after the windows step has counted the
 * request (so a hit is counted and ruled like any request). Keyed on the forwarded path and
 * today's date (the query's date defaults depend on it); dropped by the projector's data events
 * (subscribeInvalidations in main.ts), and never kept when fetched across one. JSON and CSV
 * answers are kept under their own keys (a CSV answer only when the query sent it whole, with a
 * length: a large one streams through); a hit is sent with the ETag, Last-Modified,
 * Cache-Control (and Content-Disposition) the query gave it. A
 * whose precondition matches is a 304, known before the windows step, which then checks the
 * windows without counting the request (a 304 does not count) instead of taking and giving back.
 */
export function createCacheStep(deps: {
  cache: ResponseCache;
  nowMs: () => number;
  today: UtcDay;
  /** The security headers: a hit is written on the raw response, past the onSend hook that adds them. */
  securityHeaders: Readonly<Record<string, string>>;
  /** Largest answer kept. */
  maxCachedBytes: number;
  metrics?: GatewayMetrics | undefined;
}): CacheStep {
  const { cache, nowMs, today, securityHeaders, maxCachedBytes, metrics } = deps;
  const formatOf = createNegotiator(JSON_OR_CSV);
  return {
    lookup(request, _reply, done) {
      const target = request.target;
      const format = formatOf(request.headers.accept);
      if (target === null || format === undefined) {
        done();
        return;
      }
      const now = nowMs();
      const key =
        format === 'json'
          ? forwardedKey(target.path, today.of(now))
          : forwardedKey(target.path, today.of(now)) + CSV_KEY;
      const hit = cache.get(key);
      if (hit !== undefined) request.cachedAnswer = { body: hit, notModified: notModified(request.headers, hit, now) };
      else request.cacheSlot = { key, epoch: cache.epoch() };
      done();
    },
    answer(forward) {
      return function answerFromCache(this: FastifyInstance, request, reply) {
        const kept = request.cachedAnswer;
        if (kept === null) {
          if (request.cacheSlot !== null) metrics?.cache.add(['miss']);
          return forward.call(this, request, reply);
        }
        metrics?.cache.add(['hit']);
        const headers = Object.assign(apiAnswerHeaders(request), securityHeaders);
        writeCachedBody(reply, kept.body, headers, nowMs(), kept.notModified);
        return reply;
      };
    },
    keeper: {
      // A CSV miss keeps its preconditions: a large CSV streams and is not kept, and should not be
      // fetched whole only to answer 304.
      fetchesWhole: (request) => request.cacheSlot !== null && !request.cacheSlot.key.endsWith(CSV_KEY),
      wants: (request, statusCode, type, size) =>
        statusCode === 200 &&
        (type === JSON_TYPE || type === CSV_TYPE) &&
        size <= maxCachedBytes &&
        request.cacheSlot !== null,
      keep(request, body, headers) {
        const slot = request.cacheSlot;
        if (slot === null) return;
        const lastModified = headers['last-modified'];
        const freshness = {
          lastModified: typeof lastModified === 'string' ? lastModified : undefined,
          maxAge: maxAgeFrom(headers, nowMs()),
        };
        let cached;
        if (headers['content-type'] === CSV_TYPE) {
          const { etag, 'content-disposition': disposition } = headers;
          if (typeof etag !== 'string' || !slot.key.endsWith(CSV_KEY)) return;
          cached = cachedCsvFromUpstream(body, { etag, contentDisposition: disposition }, freshness);
        } else {
          const { etag } = headers;
          cached = cachedBodyFromUpstream(
            body,
            String(request.id),
            freshness,
            typeof etag === 'string' ? etag : undefined,
          );
        }
        if (cached === undefined) return;
        cache.put(slot.key, cached, [request.target!.commodityId ?? LIST_TAG], slot.epoch);
      },
    },
  };
}
