import { rateLimitHeaders } from '@cds/contracts';
import type { FastifyRequest, onSendHookHandler } from 'fastify';
import { API_HEADERS } from '../server/headers.ts';

/**
 * The headers of every answer on a keyed API route: no caching, no rendering, and from the
 * windows step on (a known key) the rate headers of the request's decision (200, 4xx and 429).
 */
export function apiAnswerHeaders(request: FastifyRequest): Record<string, string> {
  const d = request.rateDecision;
  return d === null ? { ...API_HEADERS } : { ...API_HEADERS, ...rateLimitHeaders(d.minute, d.day, d.now) };
}

/**
 * Puts them on every answer Fastify sends for an API route (errors included); a cache hit passes
 * them itself. A 200 or 304 keeps the Cache-Control the query service gave it (private, max-age);
 * an error is no-store.
 */
export const addApiAnswerHeaders: onSendHookHandler = (request, reply, payload, done) => {
  const cacheControl = reply.statusCode < 400 ? reply.getHeader('cache-control') : undefined;
  reply.headers(apiAnswerHeaders(request));
  if (cacheControl !== undefined) reply.header('cache-control', cacheControl);
  done(null, payload);
};
