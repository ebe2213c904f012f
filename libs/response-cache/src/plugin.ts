import {
  negotiate,
  NOT_ACCEPTABLE_JSON_ONLY_MESSAGE,
  NOT_ACCEPTABLE_MESSAGE,
  NotAcceptableError,
  type DataFormat,
} from '@cds/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serializeBody, type ResponseBody } from './cached-body.ts';
import type { CacheTags, ResponseCache } from './response-cache.ts';
import { writeCachedBody, writeCsvBody, type CsvForm } from './send.ts';

/** Where a validated request's answer is kept and what drops it. */
export interface CacheEntry {
  /** Everything the answer depends on: the route and its effective parameters (see cacheKey). */
  key: string;
  tags: CacheTags;
  /** What the key was made from, for the handler (request.cacheEntry), e.g. the effective request. */
  input?: unknown;
}

/** A route's opt-in (`config: { cache }`), made by cacheRule. */
export interface CacheRule {
  entry(request: FastifyRequest): CacheEntry;
  /** The route's CSV form of a request (`Accept: text/csv`); none: the route serves JSON only. */
  csv?: ((request: FastifyRequest, entry: CacheEntry) => CsvForm) | undefined;
}

const NO_PARAMS = {};

function hasOwnKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/**
 * The cache rule of a route: the entry of a request, computed after fastify validated its params
 * and query string, so `R` is the validated shape the route's schemas give (e.g.
 * `{ params: CommodityPathParams; query: SeriesQuery }`). It may throw an ApiError for a rule
 * beyond the schema (e.g. a date after a defaulted one).
 *
 * The entry is remembered per validated params and query (the validator hands out one object per
 * distinct valid input), unless `varies` says it depends on more (e.g. the day, for date defaults):
 * then `entry` runs on every request and does its own remembering.
 */
export function cacheRule<R>(
  entry: (request: R) => CacheEntry,
  opts: { varies?: boolean; csv?: (request: R, entry: CacheEntry) => CsvForm } = {},
): CacheRule {
  const compute = entry as unknown as (request: FastifyRequest) => CacheEntry;
  const csv = opts.csv as CacheRule['csv'];
  if (opts.varies === true) return { entry: compute, csv };
  const known = new WeakMap<object, WeakMap<object, CacheEntry>>();
  return {
    csv,
    entry(request) {
      const { query, params } = request as { query: unknown; params: unknown };
      if (typeof query !== 'object' || query === null || typeof params !== 'object' || params === null) {
        return compute(request);
      }
      // A route without path parameters gets a fresh empty object per request: one key for all.
      const at = hasOwnKeys(params) ? params : NO_PARAMS;
      let byParams = known.get(query);
      let found = byParams?.get(at);
      if (found === undefined) {
        found = compute(request);
        if (byParams === undefined) known.set(query, (byParams = new WeakMap()));
        byParams.set(at, found);
      }
      return found;
    },
  };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Answers of this route go through the response cache (registerResponseCache). */
    cache?: CacheRule;
  }
  interface FastifyRequest {
    /** On a cached route's miss, the entry its handler computes the body for. */
    cacheEntry: CacheEntry | null;
  }
}

/** A cached route's handler: the answer's data and meta, without request_id. */
export type CachedHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<ResponseBody>;

export interface ResponseCacheOptions {
  /** Wall clock (ms) for max-age and If-Modified-Since. Default Date.now. */
  nowMs?: () => number;
  /** The max-age (seconds) of an answer holding data of these sources at a time; none: max-age=0. */
  maxAgeOf?: (sources: readonly (string | undefined)[], nowMs: number) => number;
}

const JSON_ONLY: readonly DataFormat[] = ['json'];
export const JSON_OR_CSV: readonly DataFormat[] = ['json', 'csv'];

/**
 * The format of a request from its Accept among `formats`, remembered per distinct Accept value
 * (clients send a handful): no Accept is JSON without a lookup. Undefined: nothing acceptable (406).
 */
export function createNegotiator(
  formats: readonly DataFormat[],
): (accept: string | undefined) => DataFormat | undefined {
  const known = new Map<string, DataFormat | undefined>();
  return (accept) => {
    if (accept === undefined) return 'json';
    if (known.has(accept)) return known.get(accept);
    const format = negotiate(accept, formats);
    if (known.size >= 256) known.clear();
    known.set(accept, format);
    return format;
  };
}

/**
 * The response cache for every route that declares `config.cache`. Its handler returns the body
 * object; the cache serializes it once, keeps it under the rule's key with its tags, and sends it
 * with the request id added (writeCachedBody), with its ETag, Last-Modified, Cache-Control and
 * `Vary: Accept`, or a 304 when the request's precondition matches. A route with a CSV form
 * (`cacheRule(…, { csv })`) answers `Accept: text/csv` from the same cached body (writeCsvBody);
 * an Accept allowing no format the route serves is a 406. Concurrent misses of a key share one
 * computation; a body computed across an invalidation is not kept. Register before the routes (an
 * onRoute hook wraps their handlers: nothing runs per request but the wrapped handler).
 */
export function registerResponseCache(
  app: FastifyInstance,
  cache: ResponseCache,
  opts: ResponseCacheOptions = {},
): void {
  const nowMs = opts.nowMs ?? Date.now;
  const { maxAgeOf } = opts;
  app.decorateRequest('cacheEntry', null);
  app.addHook('onRoute', (route) => {
    const rule = route.config?.cache;
    if (rule === undefined) return;
    const handler = route.handler as unknown as CachedHandler;
    const csv = rule.csv;
    const formatOf = createNegotiator(csv === undefined ? JSON_ONLY : JSON_OR_CSV);
    const notAcceptable = csv === undefined ? NOT_ACCEPTABLE_JSON_ONLY_MESSAGE : NOT_ACCEPTABLE_MESSAGE;
    route.handler = function cached(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const format = formatOf(request.headers.accept);
      if (format === undefined) throw new NotAcceptableError(notAcceptable);
      const entry = rule.entry(request);
      const hit = cache.get(entry.key);
      if (format === 'json' || csv === undefined) {
        if (hit !== undefined) return writeCachedBody(reply, hit, {}, nowMs());
        return compute(this, request, reply, entry).then((body) => writeCachedBody(reply, body, {}, nowMs()));
      }
      const form = csv(request, entry);
      if (hit !== undefined) return writeCsvBody(reply, hit, form, nowMs());
      return compute(this, request, reply, entry).then((body) => writeCsvBody(reply, body, form, nowMs()));
    };
    function compute(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, entry: CacheEntry) {
      request.cacheEntry = entry;
      return cache.getOrCompute(entry.key, entry.tags, async () =>
        serializeBody(await handler.call(app, request, reply), maxAgeOf),
      );
    }
  });
}

/**
 * A cache key from a route name and its effective parameters (defaults applied), in the order the
 * route lists them (always the same for one route; not sorted per request, as this runs on every hit).
 */
export function cacheKey(route: string, params: Record<string, string | number | undefined>): string {
  let key = route;
  for (const name in params) {
    const value = params[name];
    if (value !== undefined) key += `\n${name}=${value}`;
  }
  return key;
}
