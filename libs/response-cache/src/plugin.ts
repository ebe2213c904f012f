import {
  mayHoldAKey,
  negotiate,
  NOT_ACCEPTABLE_JSON_ONLY_MESSAGE,
  NOT_ACCEPTABLE_MESSAGE,
  NotAcceptableError,
  type DataFormat,
} from '@cds/http';
import { utcToday } from '@cds/schedule';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { serializeBody, serializeCsv, type BodySerializer, type CachedBody, type ResponseBody } from './cached-body.ts';
import type { CacheTags, ResponseCache } from './response-cache.ts';
import { streamCsvBody, writeCachedBody, type CsvForm } from './send.ts';

/** What a key's CSV form is kept under: the JSON form's key and this. */
export const CSV_KEY = '\ncsv';

/**
 * Largest JSON answer whose CSV form is built whole and kept (about half its size as CSV): a
 * larger one (e.g. 10,000 OHLCV points, 1.07 MB of JSON) streams its CSV in chunks instead, never
 * whole in memory.
 */
export const CSV_KEEP_MAX_BYTES = 256 * 1024;

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
  /** Whether the entry of one URL depends on the day too (date defaults): remembered for that day only. */
  varies: boolean;
}

/**
 * The cache rule of a route: the entry of a request, computed after fastify validated its params
 * and query string, so `R` is the validated shape the route's schemas give (e.g.
 * `{ params: CommodityPathParams; query: SeriesQuery }`). It may throw an ApiError for a rule
 * beyond the schema (e.g. a date after a defaulted one). `varies`: the entry depends on the day
 * too (date defaults), not on the URL alone.
 */
export function cacheRule<R>(
  entry: (request: R) => CacheEntry,
  opts: { varies?: boolean; csv?: (request: R, entry: CacheEntry) => CsvForm } = {},
): CacheRule {
  return {
    entry: entry as unknown as (request: FastifyRequest) => CacheEntry,
    csv: opts.csv as CacheRule['csv'],
    varies: opts.varies === true,
  };
}

/** Most URLs whose entry is remembered (the map starts over when full). */
const REMEMBERED_URLS = 4096;
/** Longer URLs are not remembered. */
const MAX_REMEMBERED_URL = 512;

/** A URL's entry on a cached route, and the day it holds for (varies routes). */
interface Remembered {
  entry: CacheEntry;
  day: string | undefined;
  formatOf: (accept: string | undefined) => DataFormat | undefined;
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
  /** Today (UTC, YYYY-MM-DD) as the routes' date defaults see it; default from nowMs. */
  today?: () => string;
  /** The max-age (seconds) of an answer holding data of these sources at a time; none: max-age=0. */
  maxAgeOf?: (sources: readonly (string | undefined)[], nowMs: number) => number;
  /**
   * How a route's answer becomes JSON text, from its 200 response schema (`schema.response[200]`),
   * made once per route when it is registered; none (or a route without one): JSON.stringify.
   */
  serializerOf?: (schema: unknown) => BodySerializer;
}

const JSON_ONLY: readonly DataFormat[] = ['json'];
export const JSON_OR_CSV: readonly DataFormat[] = ['json', 'csv'];

/** Most distinct Accept values a negotiator remembers (the memo is emptied when full). */
const REMEMBERED_ACCEPTS = 256;
/** Longer Accept values are negotiated every time (linear, and bounded by @cds/http header-bounds.ts). */
const MAX_REMEMBERED_ACCEPT_LENGTH = 256;

/**
 * The format of a request from its Accept among `formats`, remembered per distinct short Accept
 * value (clients send a handful): no Accept is JSON without a lookup. Undefined: nothing acceptable
 * (406). The memo saves work only: a miss costs one linear negotiation of at most the header bound,
 * and it holds at most 256 values of at most 256 characters, so a client varying its Accept gains
 * nothing from it (no entry it makes costs more than the negotiation it skips) and cannot grow it.
 */
export function createNegotiator(
  formats: readonly DataFormat[],
): (accept: string | undefined) => DataFormat | undefined {
  const known = new Map<string, DataFormat | undefined>();
  return (accept) => {
    if (accept === undefined) return 'json';
    if (known.has(accept)) return known.get(accept);
    const format = negotiate(accept, formats);
    if (accept.length <= MAX_REMEMBERED_ACCEPT_LENGTH) {
      if (known.size >= REMEMBERED_ACCEPTS) known.clear();
      known.set(accept, format);
    }
    return format;
  };
}

/**
 * The response cache for every route that declares `config.cache`. Its handler returns the body
 * object; the cache serializes it once, keeps it under the rule's key with its tags, and sends it
 * with the request id added (writeCachedBody), with its ETag, Last-Modified, Cache-Control and
 * `Vary: Accept`, or a 304 when the request's precondition matches. A route with a CSV form
 * (`cacheRule(…, { csv })`) answers `Accept: text/csv` from a CSV body made from the JSON one and
 * kept beside it (or streamed, for a large answer);
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
  const today = opts.today ?? utcToday(nowMs);
  const { maxAgeOf } = opts;
  // The one memo in front of the cache: a URL seen before on a cached route maps to its entry, so
  // its hit is answered here, before the query string is parsed or validated.
  const byUrl = new Map<string, Remembered>();
  app.decorateRequest('cacheEntry', null);
  app.addHook('onRequest', function rememberedAnswer(request, reply, done) {
    const known = byUrl.get(request.url);
    if (known === undefined || (request.method !== 'GET' && request.method !== 'HEAD')) return done();
    if (known.day !== undefined && known.day !== today()) return done();
    const format = known.formatOf(request.headers.accept);
    const hit =
      format === undefined ? undefined : cache.get(format === 'csv' ? known.entry.key + CSV_KEY : known.entry.key);
    if (hit === undefined) return done();
    writeCachedBody(reply, hit, {}, nowMs());
  });
  function remember(request: FastifyRequest, remembered: Remembered): void {
    const url = request.url;
    if (url.length > MAX_REMEMBERED_URL || mayHoldAKey(url)) return;
    if (byUrl.size >= REMEMBERED_URLS) byUrl.clear();
    byUrl.set(url, remembered);
  }
  app.addHook('onRoute', (route) => {
    const rule = route.config?.cache;
    if (rule === undefined) return;
    const handler = route.handler as unknown as CachedHandler;
    const responseSchema = (route.schema?.response as Record<string, unknown> | undefined)?.['200'];
    const stringify =
      responseSchema === undefined || opts.serializerOf === undefined
        ? JSON.stringify
        : opts.serializerOf(responseSchema);
    const csv = rule.csv;
    const formatOf = createNegotiator(csv === undefined ? JSON_ONLY : JSON_OR_CSV);
    const notAcceptable = csv === undefined ? NOT_ACCEPTABLE_JSON_ONLY_MESSAGE : NOT_ACCEPTABLE_MESSAGE;
    route.handler = function cached(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const format = formatOf(request.headers.accept);
      if (format === undefined) throw new NotAcceptableError(notAcceptable);
      // The day is read before the entry is made: across midnight it can only be remembered too old.
      const day = rule.varies ? today() : undefined;
      const entry = rule.entry(request);
      remember(request, { entry, day, formatOf });
      if (format === 'json' || csv === undefined) {
        const hit = cache.get(entry.key);
        if (hit !== undefined) return writeCachedBody(reply, hit, {}, nowMs());
        return compute(this, request, reply, entry).then((body) => writeCachedBody(reply, body, {}, nowMs()));
      }
      const kept = cache.get(entry.key + CSV_KEY);
      if (kept !== undefined) return writeCachedBody(reply, kept, {}, nowMs());
      const form = csv(request, entry);
      const json = cache.get(entry.key);
      if (json !== undefined) return sendCsv(reply, entry, json, form);
      return compute(this, request, reply, entry).then((body) => sendCsv(reply, entry, body, form));
    };
    function compute(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, entry: CacheEntry) {
      request.cacheEntry = entry;
      return cache.getOrCompute(entry.key, entry.tags, async () =>
        serializeBody(await handler.call(app, request, reply), maxAgeOf, stringify),
      );
    }
    // The CSV form is built whole once and kept under its own key, with the JSON form's tags, so a
    // CSV request costs what a JSON one does; one of a JSON answer past CSV_KEEP_MAX_BYTES streams.
    async function sendCsv(reply: FastifyReply, entry: CacheEntry, json: CachedBody, form: CsvForm) {
      if (json.bytes > CSV_KEEP_MAX_BYTES) return streamCsvBody(reply, json, form, nowMs());
      const body = await cache.getOrCompute(entry.key + CSV_KEY, entry.tags, () =>
        Promise.resolve(serializeCsv(json, form.columns, form.contentDisposition)),
      );
      writeCachedBody(reply, body, {}, nowMs());
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
