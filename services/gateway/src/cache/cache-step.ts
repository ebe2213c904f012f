import type { IncomingHttpHeaders } from 'node:http';
import {
  LIST_TAG,
  JSON_OR_CSV,
  cachedBodyFromUpstream,
  createNegotiator,
  forwardedKey,
  notModified,
  sendCachedBody,
  sendNotModified,
  type ResponseCache,
} from '@cds/response-cache';
import type { FastifyRequest, preHandlerHookHandler } from 'fastify';
import { apiAnswerHeaders } from '../api/answer-headers.ts';
import type { GatewayMetrics } from '../metrics.ts';
import type { AnswerKeeper } from '../proxy/forward.ts';
import type { UtcDay } from '../utc-day.ts';
import { JSON_TYPE } from '../server/headers.ts';

export interface CacheStep {
  /** The step itself: a hit is answered from memory with this request's id, a miss goes on to the proxy. */
  lookup: preHandlerHookHandler;
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
 * Step 4 of an API request: the query service's hot answers, kept after the key, rate and plan
 * checks have passed (so a hit is counted and ruled like any request). Keyed on the forwarded path
 * and today's date (the query's date defaults depend on it); dropped by the projector's data
 * events (subscribeInvalidations in main.ts), and never kept when fetched across one. Only JSON
 * answers are kept (a request whose Accept asks for CSV, or for nothing served, goes to the query
 * service); a hit is sent with the ETag, Last-Modified and Cache-Control the query gave it, and a
 * hit whose precondition matches is answered 304 here, the request given back to the windows.
 */
export function createCacheStep(deps: {
  cache: ResponseCache;
  nowMs: () => number;
  today: UtcDay;
  /** The security headers: a hit is written on the raw response, past the onSend hook that adds them. */
  securityHeaders: Readonly<Record<string, string>>;
  /** Largest answer kept. */
  maxCachedBytes: number;
  /** Gives a 304's request back to the rate windows (rate/give-back.ts). */
  giveBack: (request: FastifyRequest) => Promise<void>;
  metrics?: GatewayMetrics | undefined;
}): CacheStep {
  const { cache, nowMs, today, securityHeaders, maxCachedBytes, giveBack, metrics } = deps;
  const formatOf = createNegotiator(JSON_OR_CSV);
  return {
    lookup(request, reply, done) {
      if (formatOf(request.headers.accept) !== 'json') {
        done();
        return;
      }
      const now = nowMs();
      const key = forwardedKey(request.target!.path, today.of(now));
      const hit = cache.get(key);
      if (hit !== undefined) {
        metrics?.cache.add(['hit']);
        if (notModified(request.headers, hit, now)) {
          // giveBack never rejects (a failed give-back is logged); a write that throws after it must
          // not become an unhandled rejection (which ends the process): the connection is closed.
          void giveBack(request)
            .then(() => sendNotModified(reply, hit, Object.assign(apiAnswerHeaders(request), securityHeaders), now))
            .catch((err: unknown) => {
              request.log.error({ err }, 'writing a 304 from the cache failed');
              reply.raw.destroy();
            });
          return;
        }
        sendCachedBody(reply, hit, Object.assign(apiAnswerHeaders(request), securityHeaders), now);
        return;
      }
      metrics?.cache.add(['miss']);
      request.cacheSlot = { key, epoch: cache.epoch() };
      done();
    },
    keeper: {
      wants: (request, statusCode, type, size) =>
        statusCode === 200 && type === JSON_TYPE && size <= maxCachedBytes && request.cacheSlot !== null,
      keep(request, body, headers) {
        const slot = request.cacheSlot;
        const lastModified = headers['last-modified'];
        const cached = cachedBodyFromUpstream(body, String(request.id), {
          lastModified: typeof lastModified === 'string' ? lastModified : undefined,
          maxAge: maxAgeFrom(headers, nowMs()),
        });
        if (slot === null || cached === undefined) return;
        cache.put(slot.key, cached, [request.target!.commodityId ?? LIST_TAG], slot.epoch);
      },
    },
  };
}
