import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { CachedBody } from './cached-body.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends a cached body with this request's id spliced in, as a 200. The shared body bytes go to the
 * socket as they are: headers, body prefix, then the id and the closing bytes, which Node sends in
 * one writev. No per-request copy of the body (a year of daily points is ~30 KB) and no garbage
 * proportional to its size. The reply is hijacked for that, so the headers are written here:
 * `headers` (the caller's extra ones, e.g. the gateway's rate headers; the object is used up),
 * `x-request-id`, `content-type` and `content-length`. Headers set on the reply before are NOT
 * sent: pass them in `headers`. Fastify's onResponse hooks and request logging still run (they
 * hang on the raw response's finish). HEAD gets the headers only.
 */
export function sendCachedBody(reply: FastifyReply, body: CachedBody, headers: OutgoingHttpHeaders = {}): void {
  const request = reply.request;
  const id = String(request.id);
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
