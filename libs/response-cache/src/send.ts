import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { CachedBody } from './cached-body.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends a cached body with this request's id spliced in, as a 200. The shared body bytes go to the
 * socket as they are: headers, body prefix, then the id and the closing bytes, which Node sends in
 * one writev. No per-request copy of the body (a year of daily points is ~30 KB) and no garbage
 * proportional to its size. The reply is hijacked for that, so the headers are written here:
 * `headers` (the caller's extra ones, e.g. the gateway's security headers; the object is used up),
 * the headers set on the reply so far, `x-request-id`, `content-type` and `content-length`.
 * Fastify's onResponse hooks and request logging still run (they hang on the raw response's
 * finish). HEAD gets the headers only.
 */
export function sendCachedBody(reply: FastifyReply, body: CachedBody, headers: OutgoingHttpHeaders = {}): void {
  const set = reply.getHeaders();
  for (const name in set) headers[name] = set[name];
  writeCachedBody(reply, body, headers);
}

/** sendCachedBody for a reply nothing has set a header on (the query's routes): `headers` only. */
export function writeCachedBody(reply: FastifyReply, body: CachedBody, headers: OutgoingHttpHeaders): void {
  const request = reply.request;
  const id = request.id;
  headers['x-request-id'] = id;
  headers['content-type'] = JSON_TYPE;
  headers['content-length'] = body.prefix.length + id.length + body.suffix.length;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, headers);
  if (request.method === 'HEAD') {
    res.end();
    return;
  }
  res.write(body.prefix);
  // The suffix is `"}}`: the id and it as one latin1 string (ids are ASCII), no buffer to allocate.
  res.end(`${id}"}}`, 'latin1');
}
