import { CommodityPathParams, parseParams } from '@cds/contracts';
import { InvalidParameterError } from '@cds/http';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { withRequestId, type CachedBody } from '@cds/response-cache';
import type { ResponseCache } from '@cds/response-cache';
import type { ReadModelRepository } from '../repository/repository.ts';

/** What every endpoint handler uses. */
export interface RouteContext {
  repository: ReadModelRepository;
  cache: ResponseCache;
  /** Today's date in UTC, YYYY-MM-DD, from the injected clock. */
  today(): string;
}

/** Parameters the query service never interprets: the key is the gateway's business. */
const IGNORED_PARAMS = ['api_key'] as const;

/** Parses the query string with a contract schema; the first problem is a 400 naming its parameter. */
export function parseQuery<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = parseParams(schema, (raw ?? {}) as Record<string, unknown>, { ignore: IGNORED_PARAMS });
  if (!result.ok) throw new InvalidParameterError(result.param, result.message);
  return result.value;
}

/** The commodity id of the path; a malformed one is a 400 on `slug`. */
export function parseSlug(raw: unknown): string {
  const result = CommodityPathParams.safeParse(raw);
  if (!result.success) {
    throw new InvalidParameterError('slug', "invalid 'slug': a commodity id is UPPER_SNAKE_CASE, for example GOLD");
  }
  return result.data.slug;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends a cached body with this request's id spliced in. The shared body bytes go to the socket
 * as they are (one writev of headers, body prefix, and id + suffix): no per-request copy of the body
 * and no garbage proportional to its size. The reply is hijacked for that, which keeps fastify's
 * response listeners (request logging, onResponse) as they hang on the raw response. HEAD goes
 * through fastify's send, which leaves the body out.
 */
export function sendBody(reply: FastifyReply, body: CachedBody): void {
  const id = String(reply.request.id);
  if (reply.request.method !== 'GET') {
    void reply.header('content-type', JSON_TYPE).send(withRequestId(body, id));
    return;
  }
  reply.hijack();
  const res = reply.raw;
  const headers = reply.getHeaders();
  headers['content-type'] = JSON_TYPE;
  headers['content-length'] = body.prefix.length + id.length + body.suffix.length;
  res.writeHead(200, headers as Record<string, string | number | string[]>);
  res.cork();
  res.write(body.prefix);
  const tail = Buffer.allocUnsafe(id.length + body.suffix.length);
  tail.write(id, 0, 'latin1');
  body.suffix.copy(tail, id.length);
  res.end(tail);
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

/** Pagination meta per DECISIONS.md: total_pages = ceil(total / per_page), 0 when total is 0. */
export function paginationMeta(page: number, perPage: number, total: number) {
  return { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage), request_id: '' };
}
