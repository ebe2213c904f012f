import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serializeBody, type ResponseBody } from './cached-body.ts';
import type { CacheTags, ResponseCache } from './response-cache.ts';
import { sendCachedBody } from './send.ts';

/** Where a validated request's answer is kept and what drops it. */
export interface CacheEntry {
  /** Everything the answer depends on: the route and its effective parameters (see cacheKey). */
  key: string;
  tags: CacheTags;
}

/** A route's opt-in (`config: { cache }`), made by cacheRule. */
export interface CacheRule {
  entry(request: FastifyRequest): CacheEntry;
}

/**
 * The cache rule of a route: the entry of a request, computed after fastify validated its params
 * and query string, so `R` is the validated shape the route's schemas give (e.g.
 * `{ params: CommodityPathParams; query: SeriesQuery }`). It may throw an ApiError for a rule
 * beyond the schema (e.g. a date after a defaulted one).
 */
export function cacheRule<R>(entry: (request: R) => CacheEntry): CacheRule {
  return { entry: entry as unknown as CacheRule['entry'] };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answers of this route go through the response cache (registerResponseCache). */
    cache?: CacheRule;
  }
}

/** A cached route's handler: the answer's data and meta, without request_id. */
export type CachedHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<ResponseBody>;

/**
 * The response cache for every route that declares `config.cache`. Its handler returns the body
 * object; the cache serializes it once, keeps it under the rule's key with its tags, and sends it
 * with the request id added (sendCachedBody). Concurrent misses of a key share one computation;
 * a body computed across an invalidation is not kept. Register before the routes (an onRoute hook
 * wraps their handlers: nothing runs per request but the wrapped handler).
 */
export function registerResponseCache(app: FastifyInstance, cache: ResponseCache): void {
  app.addHook('onRoute', (route) => {
    const rule = route.config?.cache;
    if (rule === undefined) return;
    const handler = route.handler as unknown as CachedHandler;
    route.handler = function cached(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const { key, tags } = rule.entry(request);
      const hit = cache.get(key);
      if (hit !== undefined) return sendCachedBody(reply, hit);
      return cache
        .getOrCompute(key, tags, async () => serializeBody(await handler.call(this, request, reply)))
        .then((body) => sendCachedBody(reply, body));
    };
  });
}

/** A cache key from a route name and its effective parameters (defaults applied), in a fixed order. */
export function cacheKey(route: string, params: Record<string, string | number | undefined>): string {
  let key = route;
  for (const name of Object.keys(params).sort()) {
    const value = params[name];
    if (value !== undefined) key += `\n${name}=${value}`;
  }
  return key;
}
