import { createHash } from 'node:crypto';
import { csvChunks, type CsvColumn } from '@cds/contracts';
import { DATA_CONTENT_TYPES, formatHttpDate, strongEtag } from '@cds/http';

/**
 * A kept answer, JSON or CSV, sent as it is to every request. A JSON body has a hole where the
 * request id goes: every JSON answer of the API ends with `"request_id":"<id>"}}` (meta is the
 * last member of the body, request_id the last member of meta), so it is kept as the bytes before
 * the id and the bytes after it, and sent with any request's id in between: no JSON.stringify and
 * no copy of the body per request. A CSV body carries no request id: it is kept whole.
 */
export interface CachedBody {
  /** The bytes before the request id (JSON), or the whole body (CSV), in one buffer. */
  readonly prefix: Buffer;
  /**
   * The same bytes as they are written: `[prefix]`, or the pieces a serializer made them in
   * (SerializedBytes: slices of buffers it keeps), written one after the other in one writev the
   * first time the body is written (the miss that made it: no copy), and joined into `prefix` when
   * it is written again (a kept body's hits: one write each) or when something reads `prefix`.
   */
  readonly pieces: readonly Uint8Array[];
  /** `"}}` after the request id (the end of request_id, meta and the body); empty for CSV. */
  readonly suffix: Buffer;
  /** Whether the request id goes between prefix and suffix (JSON). */
  readonly hasRequestId: boolean;
  /** Content-Type, and Content-Disposition (CSV: the file name). */
  readonly contentType: string;
  readonly contentDisposition: string | undefined;
  /** Size of the kept bytes, for the cache's byte bound. */
  readonly bytes: number;
  /**
   * Strong content hash (SHA-256, base64url) of the JSON body without its request id, or the hash a
   * serializer named its bytes by (SerializedBytes), or upstream's ETag: the ETags come from it.
   */
  readonly hash: string;
  /** When the data of the answer last changed (RFC 3339 or an HTTP-date, as given), when known. */
  readonly lastModified: string | undefined;
  /** The strong ETag of this form: strongEtag(hash, 'json'), or strongEtag(hash, 'csv') for CSV. */
  readonly etag: string;
  /** Last-Modified as sent (an IMF-fixdate) and as an instant, when known. */
  readonly lastModifiedHeader: string | undefined;
  readonly lastModifiedAt: Date | undefined;
  /** The Cache-Control of a 200 or 304 at `nowMs`: `private, max-age=<seconds>` (see Freshness.maxAge), or no-store without one. */
  cacheControl(nowMs: number): string;
}

/** What the freshness headers of an answer come from; not part of the body. */
export interface Freshness {
  /** When the answer's data last changed: RFC 3339 (a last_updated) or an HTTP-date (an upstream's Last-Modified). */
  lastModified?: string | undefined;
  /** Seconds a client may keep the answer at `nowMs`; none: `Cache-Control: no-store`. */
  maxAge?: ((nowMs: number) => number) | undefined;
}

/** A JSON answer before its request id is known: `meta` is its last member, without request_id. */
export interface ResponseBody {
  data: unknown;
  meta: Record<string, unknown> & { request_id?: never };
  /**
   * Not sent: what the answer's Last-Modified and max-age come from (the list's newest
   * last_updated, the sources of the data). Without it Last-Modified is meta.last_updated.
   */
  freshness?:
    | {
        lastModified?: string | undefined;
        sources?: readonly (string | undefined)[];
        /** A fixed max-age (seconds) instead of the sources': an answer that no release can change (a past as_of). */
        maxAge?: number | undefined;
      }
    | undefined;
}

/** Cache-Control header values, computed at most once a second per entry (max-age has whole seconds). */
function cacheControlOf(maxAge: ((nowMs: number) => number) | undefined): (nowMs: number) => string {
  if (maxAge === undefined) return () => 'no-store';
  let second = NaN;
  let value = '';
  return (nowMs) => {
    const s = Math.floor(nowMs / 1000);
    if (s !== second) {
      second = s;
      value = `private, max-age=${Math.max(0, Math.floor(maxAge(nowMs)))}`;
    }
    return value;
  };
}

function instantOf(text: string | undefined): Date | undefined {
  if (text === undefined) return undefined;
  const at = new Date(text);
  const y = at.getUTCFullYear();
  return Number.isFinite(at.getTime()) && y >= 1000 && y <= 9999 ? at : undefined;
}

const ID_MEMBER = '"request_id":"';
const SUFFIX = Buffer.from('"}}');
const NO_SUFFIX = Buffer.alloc(0);

/**
 * A JSON body from the bytes before its request id, in one buffer or in pieces. `given`: the hash
 * the serializer named the bytes by (SerializedBytes), or upstream's ETag (then the body's ETag
 * too); none: their SHA-256.
 */
function cached(
  bytes: Buffer | readonly Uint8Array[],
  freshness: Freshness,
  given?: { hash: string; etag?: string },
): CachedBody {
  let prefix = Buffer.isBuffer(bytes) ? bytes : undefined;
  let pieces = Buffer.isBuffer(bytes) ? [bytes] : bytes;
  let length = 0;
  for (const piece of pieces) length += piece.length;
  let written = false;
  const joined = (): Buffer => {
    if (prefix === undefined) {
      prefix = Buffer.concat(pieces, length);
      // the pieces' buffers are no longer held by this body
      pieces = [prefix];
    }
    return prefix;
  };
  const hash = given?.hash ?? createHash('sha256').update(joined()).update(SUFFIX).digest('base64url');
  const lastModifiedAt = instantOf(freshness.lastModified);
  return {
    get prefix() {
      return joined();
    },
    get pieces() {
      // The first writing (the miss that made the body) sends the pieces as they are; a later one (a
      // hit: the body was kept) one buffer, joined then, once: one write a request on the hot path.
      if (written) joined();
      written = true;
      return pieces;
    },
    suffix: SUFFIX,
    hasRequestId: true,
    contentType: DATA_CONTENT_TYPES.json,
    contentDisposition: undefined,
    bytes: length + SUFFIX.length,
    hash,
    lastModified: freshness.lastModified,
    etag: given?.etag ?? strongEtag(hash, 'json'),
    lastModifiedHeader: lastModifiedAt === undefined ? undefined : formatHttpDate(lastModifiedAt),
    lastModifiedAt,
    cacheControl: cacheControlOf(freshness.maxAge),
  };
}

/** A CSV body kept whole, with the validators and freshness of the JSON answer it was made from. */
function cachedCsv(csv: Buffer, of: Omit<CachedBody, 'prefix' | 'pieces' | 'suffix' | 'bytes'>): CachedBody {
  return { ...of, prefix: csv, pieces: [csv], suffix: NO_SUFFIX, bytes: csv.length, hasRequestId: false };
}

/**
 * The JSON text of an answer `{data, meta}` whose meta ends with `request_id` (empty here: the id is
 * added at send time). It keeps the members in the order they were built, so the text ends with
 * `"request_id":""}}`.
 */
export type BodySerializer = (body: { data: unknown; meta: Record<string, unknown> }) => string | SerializedBytes;

/**
 * A JSON text a serializer already has in bytes: the UTF-8 bytes in pieces (together they end with
 * `"request_id":""}}`), and a strong hash naming them (base64url): equal for equal bytes made the
 * same way, different whenever the bytes differ. It becomes the answer's hash, so its ETag, instead
 * of the SHA-256 of the bytes (the gateway keeps the query's ETag rather than hashing again).
 */
export interface SerializedBytes {
  readonly pieces: readonly Uint8Array[];
  readonly hash: string;
}

/**
 * Room to encode a JSON text in before its bytes are copied out (one text at a time: encoding is
 * synchronous). Encoding into it and copying the bytes out costs about half of `Buffer.from` on a
 * 50 KB answer, which measures the text's UTF-8 length in a pass of its own before encoding it.
 */
const SCRATCH = Buffer.allocUnsafeSlow(1 << 20);

/** The UTF-8 bytes of `text` without its last `drop` characters, which must be ASCII. */
function utf8Without(text: string, drop: number): Buffer {
  // A UTF-16 code unit takes at most 3 bytes: a text that may not fit is encoded the plain way.
  if (text.length * 3 > SCRATCH.length) return Buffer.from(text.slice(0, -drop));
  const length = SCRATCH.write(text) - drop;
  const out = Buffer.allocUnsafe(length);
  SCRATCH.copy(out, 0, 0, length);
  return out;
}

/** Pieces of bytes without their last `drop` bytes (views of the same memory, not copies). */
function piecesWithout(pieces: readonly Uint8Array[], drop: number): Uint8Array[] {
  const out = [...pieces];
  let left = drop;
  while (left > 0 && out.length > 0) {
    const last = out.pop()!;
    if (last.length > left) out.push(last.subarray(0, last.length - left));
    left -= Math.min(left, last.length);
  }
  return out;
}

/**
 * Serializes an answer once, with the request id left out (added at send time). `maxAgeOf` gives
 * the max-age of the answer's sources (body.freshness.sources) at a time; `stringify` is the route's
 * serializer (its response schema's, see ResponseCacheOptions.serializerOf).
 */
export function serializeBody(
  body: ResponseBody,
  maxAgeOf?: (sources: readonly (string | undefined)[], nowMs: number) => number,
  stringify: BodySerializer = JSON.stringify,
): CachedBody {
  const json = stringify({ data: body.data, meta: { ...body.meta, request_id: '' } });
  const [bytes, hash] = typeof json === 'string' ? [utf8Without(json, 3)] : [piecesWithout(json.pieces, 3), json.hash];
  const lastUpdated = body.freshness?.lastModified ?? body.meta.last_updated;
  const sources = body.freshness?.sources ?? [];
  const fixed = body.freshness?.maxAge;
  return cached(
    bytes,
    {
      lastModified: typeof lastUpdated === 'string' ? lastUpdated : undefined,
      maxAge:
        maxAgeOf === undefined ? undefined : fixed !== undefined ? () => fixed : (nowMs) => maxAgeOf(sources, nowMs),
    },
    hash === undefined ? undefined : { hash },
  );
}

/**
 * The cached form of an answer another service already served with `requestId` as its last member
 * (`…"request_id":"<id>"}}`), or undefined when it does not end that way (then it is not kept).
 * The gateway keeps the query service's answers this way, with the freshness its headers gave
 * (Last-Modified, and a max-age counted down from when it arrived); without a lastModified, the
 * body's meta.last_updated. It keeps upstream's strong ETag (`etag`, the answer's own: the query
 * service may name its bytes without hashing them, SerializedBytes); without one, the SHA-256 of
 * the bytes gives the tag the query service would give them.
 */
export function cachedBodyFromUpstream(
  served: Buffer,
  requestId: string,
  freshness: Freshness = {},
  etag?: string,
): CachedBody | undefined {
  const tail = `${requestId}"}}`;
  const cut = served.length - tail.length;
  if (cut <= ID_MEMBER.length || served.toString('latin1', cut) !== tail) return undefined;
  if (served.toString('latin1', cut - ID_MEMBER.length, cut) !== ID_MEMBER) return undefined;
  const strong = etag !== undefined && STRONG_ETAG.test(etag) ? etag : undefined;
  return cached(
    served.subarray(0, cut),
    { lastModified: freshness.lastModified ?? lastUpdatedOf(served), maxAge: freshness.maxAge },
    strong === undefined ? undefined : { hash: strong, etag: strong },
  );
}

/** A strong entity tag (RFC 9110 §8.8.3): one quoted run of etagc characters, not `W/`. */
const STRONG_ETAG = /^"[\x21\x23-\x7e\x80-\xff]*"$/;

/**
 * The CSV form of a kept JSON answer, built whole once (RFC 4180, a header row first; see
 * @cds/contracts csvChunks), kept beside the JSON one: the ETag of the CSV form
 * (strongEtag(hash, 'csv')), the same Last-Modified and Cache-Control.
 */
export function serializeCsv(json: CachedBody, columns: readonly CsvColumn[], contentDisposition: string): CachedBody {
  const parts: Buffer[] = [];
  for (const chunk of csvChunks(columns, rowsOf(json))) parts.push(Buffer.from(chunk, 'utf8'));
  return cachedCsv(Buffer.concat(parts), {
    ...json,
    hasRequestId: false,
    contentType: DATA_CONTENT_TYPES.csv,
    contentDisposition,
    etag: strongEtag(json.hash, 'csv'),
  });
}

/**
 * The items of a kept JSON answer's `data` (an array; a single object is one row), read back from
 * its bytes: the CSV form is derived from the one cached JSON body.
 */
export function rowsOf(json: CachedBody): unknown[] {
  const parsed = JSON.parse(`${json.prefix.toString('utf8')}"}}`) as { data: unknown };
  return Array.isArray(parsed.data) ? parsed.data : [parsed.data];
}

/**
 * The kept form of a CSV answer another service served (the gateway keeps the query's), with the
 * validators and freshness its headers gave: its ETag (the query's, from the JSON form's hash),
 * Last-Modified, max-age counted down from arrival, and Content-Disposition.
 */
export function cachedCsvFromUpstream(
  served: Buffer,
  headers: { etag: string; contentDisposition: string | undefined },
  freshness: Freshness = {},
): CachedBody {
  const lastModifiedAt = instantOf(freshness.lastModified);
  return cachedCsv(served, {
    hasRequestId: false,
    contentType: DATA_CONTENT_TYPES.csv,
    contentDisposition: headers.contentDisposition,
    hash: headers.etag,
    lastModified: freshness.lastModified,
    etag: headers.etag,
    lastModifiedHeader: lastModifiedAt === undefined ? undefined : formatHttpDate(lastModifiedAt),
    lastModifiedAt,
    cacheControl: cacheControlOf(freshness.maxAge),
  });
}

/** meta.last_updated of a served answer: meta is its last member, so the last `"meta":{` opens it. */
function lastUpdatedOf(served: Buffer): string | undefined {
  const at = served.lastIndexOf('"meta":{');
  if (at < 0) return undefined;
  try {
    const meta = JSON.parse(served.toString('utf8', at + 7, served.length - 1)) as { last_updated?: unknown };
    return typeof meta.last_updated === 'string' ? meta.last_updated : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The body bytes with a request id spliced in (for tests and callers that need one buffer; sending
 * goes through writeCachedBody). Request ids are JSON-safe ASCII (see @cds/http), never escaped.
 */
export function withRequestId(body: CachedBody, requestId: string): Buffer {
  if (!body.hasRequestId) return body.prefix;
  return Buffer.concat([body.prefix, Buffer.from(requestId, 'latin1'), body.suffix]);
}
