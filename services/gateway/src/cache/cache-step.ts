import {
  LIST_TAG,
  cachedBodyFromUpstream,
  forwardedKey,
  sendCachedBody,
  type ResponseCache,
} from '@cds/response-cache';
import type { preHandlerHookHandler } from 'fastify';
import { apiAnswerHeaders } from '../api/answer-headers.ts';
import type { GatewayMetrics } from '../metrics.ts';
import type { AnswerKeeper } from '../proxy/forward.ts';
import type { UtcDay } from '../utc-day.ts';

export interface CacheStep {
  /** The step itself: a hit is answered from memory with this request's id, a miss goes on to the proxy. */
  lookup: preHandlerHookHandler;
  /** The store side, given to the proxy: keeps a 200 of the query service under the same key. */
  keeper: AnswerKeeper;
}

/**
 * Step 4 of an API request: the query service's hot answers, kept after the key, rate and plan
 * checks have passed (so a hit is counted and ruled like any request). Keyed on the forwarded path
 * and today's date (the query's date defaults depend on it); dropped by the projector's data
 * events (subscribeInvalidations in main.ts), and never kept when fetched across one.
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
  return {
    lookup(request, reply, done) {
      const key = forwardedKey(request.target!.path, today.of(nowMs()));
      const hit = cache.get(key);
      if (hit !== undefined) {
        metrics?.cache.add(['hit']);
        sendCachedBody(reply, hit, Object.assign(apiAnswerHeaders(request), securityHeaders));
        return;
      }
      metrics?.cache.add(['miss']);
      request.cacheSlot = { key, epoch: cache.epoch() };
      done();
    },
    keeper: {
      wants: (request, statusCode, size) => statusCode === 200 && size <= maxCachedBytes && request.cacheSlot !== null,
      keep(request, body) {
        const slot = request.cacheSlot;
        const cached = cachedBodyFromUpstream(body, String(request.id));
        if (slot === null || cached === undefined) return;
        cache.put(slot.key, cached, [request.target!.commodityId ?? LIST_TAG], slot.epoch);
      },
    },
  };
}
