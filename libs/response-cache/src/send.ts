import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { csvChunks, type CsvColumn } from '@cds/contracts';
import { DATA_CONTENT_TYPES, evaluateConditional, strongEtag } from '@cds/http';
import type { FastifyReply } from 'fastify';
import type { CachedBody } from './cached-body.ts';

const JSON_TYPE = DATA_CONTENT_TYPES.json;

/** Whether a request carries a precondition a cached answer can be checked against. */
export function isConditional(headers: IncomingHttpHeaders): boolean {
  return headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined;
}

/**
 * Whether a GET or HEAD that would get this body as a 200 is answered 304 (RFC 9110 §13.2.2, see
 * @cds/http evaluateConditional): If-None-Match against `etag` (the JSON or the CSV form's), else
 * If-Modified-Since against the body's Last-Modified.
 */
export function notModified(
  headers: IncomingHttpHeaders,
  body: CachedBody,
  nowMs: number,
  etag: string = body.etag,
): boolean {
  if (!isConditional(headers)) return false;
  return (
    evaluateConditional(headers, { etag, lastModified: body.lastModifiedAt, now: new Date(nowMs) }) === 'not-modified'
  );
}

/** The validators and freshness headers of a 200 or 304 of this body (ETag of the form sent). */
function setValidators(headers: OutgoingHttpHeaders, body: CachedBody, nowMs: number, etag: string): void {
  headers.etag = etag;
  if (body.lastModifiedHeader !== undefined) headers['last-modified'] = body.lastModifiedHeader;
  headers['cache-control'] = body.cacheControl(nowMs);
  headers.vary = 'Accept';
}

/** A 304 written on the raw response: the 200's validators and freshness headers, no body. */
function writeNotModified(reply: FastifyReply, headers: OutgoingHttpHeaders): void {
  reply.hijack();
  reply.raw.writeHead(304, headers);
  reply.raw.end();
}

/**
 * Sends a cached body with this request's id spliced in, as a 200 (or a 304 when the request's
 * precondition says the client's copy is current). The shared body bytes go to the socket as they
 * are: headers, body prefix, then the id and the closing bytes, which Node sends in one writev. No
 * per-request copy of the body (a year of daily points is ~30 KB) and no garbage proportional to
 * its size. The reply is hijacked for that, so the headers are written here: `headers` (the
 * caller's extra ones, e.g. the gateway's security headers; the object is used up), the headers
 * set on the reply so far, `x-request-id`, the validators (ETag, Last-Modified), Cache-Control,
 * `Vary: Accept`, `content-type` and `content-length`. Fastify's onResponse hooks and request
 * logging still run (they hang on the raw response's finish). HEAD gets the headers only.
 */
export function sendCachedBody(
  reply: FastifyReply,
  body: CachedBody,
  headers: OutgoingHttpHeaders = {},
  nowMs: number = Date.now(),
): void {
  const set = reply.getHeaders();
  for (const name in set) headers[name] = set[name];
  writeCachedBody(reply, body, headers, nowMs);
}

/**
 * The 304 of a cached body whose precondition the caller already found matching (notModified):
 * `headers` and the ones set on the reply, `x-request-id`, the validators and freshness headers.
 */
export function sendNotModified(
  reply: FastifyReply,
  body: CachedBody,
  headers: OutgoingHttpHeaders,
  nowMs: number = Date.now(),
): void {
  const set = reply.getHeaders();
  for (const name in set) headers[name] = set[name];
  headers['x-request-id'] = reply.request.id;
  setValidators(headers, body, nowMs, body.etag);
  writeNotModified(reply, headers);
}

/** sendCachedBody for a reply nothing has set a header on (the query's routes): `headers` only. */
export function writeCachedBody(
  reply: FastifyReply,
  body: CachedBody,
  headers: OutgoingHttpHeaders,
  nowMs: number = Date.now(),
): void {
  const request = reply.request;
  const id = request.id;
  headers['x-request-id'] = id;
  setValidators(headers, body, nowMs, body.etag);
  if (notModified(request.headers, body, nowMs)) {
    writeNotModified(reply, headers);
    return;
  }
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

/** How an answer is written as CSV: its columns and its Content-Disposition. */
export interface CsvForm {
  columns: readonly CsvColumn[];
  contentDisposition: string;
}

/**
 * The items of a cached answer's `data` (an array; a single object is one row), read back from
 * its JSON bytes: the CSV form is derived from the one cached body, so it needs no second cache.
 */
function rowsOf(body: CachedBody): unknown[] {
  const parsed = JSON.parse(`${body.prefix.toString('utf8')}"}}`) as { data: unknown };
  return Array.isArray(parsed.data) ? parsed.data : [parsed.data];
}

/**
 * Sends a cached answer as CSV (RFC 4180, a header row first), streamed chunk by chunk
 * (Transfer-Encoding: chunked; the whole text is never built), with the CSV form's ETag (from the
 * body's hash, so it is known before streaming) and the same Last-Modified and Cache-Control as the
 * JSON form; or a 304 when the precondition matches that ETag. HEAD gets the headers only.
 */
export function writeCsvBody(reply: FastifyReply, body: CachedBody, form: CsvForm, nowMs: number = Date.now()): void {
  const request = reply.request;
  const headers: OutgoingHttpHeaders = { 'x-request-id': request.id };
  const etag = strongEtag(body.hash, 'csv');
  setValidators(headers, body, nowMs, etag);
  if (notModified(request.headers, body, nowMs, etag)) {
    writeNotModified(reply, headers);
    return;
  }
  headers['content-type'] = DATA_CONTENT_TYPES.csv;
  headers['content-disposition'] = form.contentDisposition;
  const head = request.method === 'HEAD';
  const rows = head ? [] : rowsOf(body);
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, headers);
  if (head) {
    res.end();
    return;
  }
  // The chunks are written as the socket takes them (waiting for 'drain' when it is full), so at
  // most one chunk of CSV text is in memory beyond what the socket buffers.
  const chunks = csvChunks(form.columns, rows);
  const pump = (): void => {
    try {
      for (let next = chunks.next(); !next.done; next = chunks.next()) {
        if (!res.write(next.value)) {
          res.once('drain', pump);
          return;
        }
      }
    } catch (err) {
      reply.log.error({ err }, 'CSV answer failed');
      res.destroy(err as Error);
      return;
    }
    res.end();
  };
  pump();
}
