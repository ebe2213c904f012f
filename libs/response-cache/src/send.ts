import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { csvChunks, type CsvColumn } from '@cds/contracts';
import { DATA_CONTENT_TYPES, evaluateConditional, strongEtag } from '@cds/http';
import type { FastifyReply } from 'fastify';
import { rowsOf, type CachedBody } from './cached-body.ts';

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
 * Sends a kept answer (JSON with this request's id spliced in, or CSV as kept) as a 200, or a 304
 * when the request's precondition says the client's copy is current (`notModifiedKnown`: the
 * caller already evaluated it, see notModified). The shared body bytes go to the socket as they
 * are: headers, the body's pieces before the id (CachedBody.pieces), then the id and the closing
 * bytes, which Node sends in one writev. No per-request copy of the body (a year of daily points
 * is ~30 KB) and no garbage proportional to its size. The reply is hijacked for that, so the
 * headers are written here: `headers` (the caller's extra ones, e.g. the gateway's API and security
 * headers; the object is used up), the headers set on the reply so far, `x-request-id`, the
 * validators (ETag, Last-Modified), Cache-Control, `Vary: Accept`, and for a 200 `content-type`,
 * `content-disposition` (CSV) and `content-length`. Fastify's onResponse hooks and request logging still run (they hang on the raw
 * response's finish). HEAD gets the headers only.
 */
export function writeCachedBody(
  reply: FastifyReply,
  body: CachedBody,
  headers: OutgoingHttpHeaders,
  nowMs: number = Date.now(),
  notModifiedKnown?: boolean,
): void {
  const request = reply.request;
  const set = reply.getHeaders();
  for (const name in set) headers[name] = set[name];
  const id = request.id;
  headers['x-request-id'] = id;
  setValidators(headers, body, nowMs, body.etag);
  if (notModifiedKnown ?? notModified(request.headers, body, nowMs)) {
    writeNotModified(reply, headers);
    return;
  }
  headers['content-type'] = body.contentType;
  if (body.contentDisposition !== undefined) headers['content-disposition'] = body.contentDisposition;
  headers['content-length'] = body.hasRequestId ? body.bytes + id.length : body.bytes;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, headers);
  if (request.method === 'HEAD') {
    res.end();
    return;
  }
  if (!body.hasRequestId) {
    res.end(body.prefix);
    return;
  }
  for (const piece of body.pieces) res.write(piece);
  // The suffix is `"}}`: the id and it as one latin1 string (ids are ASCII), no buffer to allocate.
  res.end(`${id}"}}`, 'latin1');
}

/** How an answer is written as CSV: its columns and its Content-Disposition. */
export interface CsvForm {
  columns: readonly CsvColumn[];
  contentDisposition: string;
}

/**
 * Sends a kept JSON answer too large to keep a CSV copy of as CSV (RFC 4180, a header row first),
 * streamed chunk by chunk (Transfer-Encoding: chunked; the whole text is never built), with the
 * CSV form's ETag (from the body's hash, so it is known before streaming) and the same
 * Last-Modified and Cache-Control as the JSON form; or a 304 when the precondition matches that
 * ETag. HEAD gets the headers only.
 */
export function streamCsvBody(reply: FastifyReply, body: CachedBody, form: CsvForm, nowMs: number = Date.now()): void {
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
