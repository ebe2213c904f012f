import { createHash } from 'node:crypto';

/**
 * A serialized response body with a hole where the request id goes. Every JSON answer of the API
 * ends with `"request_id":"<id>"}}` (meta is the last member of the body, request_id the last
 * member of meta), so a body is kept as the bytes before the id and the bytes after it, and sent
 * with any request's id in between: no JSON.stringify and no copy of the body per request.
 */
export interface CachedBody {
  readonly prefix: Buffer;
  /** Always `"}}` (the end of request_id, meta and the body). */
  readonly suffix: Buffer;
  /** Size of the kept bytes, for the cache's byte bound. */
  readonly bytes: number;
  /** Strong content hash (SHA-256, base64url) of the body without its request id: the ETag to be. */
  readonly hash: string;
  /** When the data of the answer last changed (meta.last_updated, RFC 3339), when the answer says. */
  readonly lastModified: string | undefined;
}

/** A JSON answer before its request id is known: `meta` is its last member, without request_id. */
export interface ResponseBody {
  data: unknown;
  meta: Record<string, unknown> & { request_id?: never };
}

const ID_MEMBER = '"request_id":"';
const SUFFIX = Buffer.from('"}}');

function cached(prefix: Buffer, lastModified: string | undefined): CachedBody {
  const hash = createHash('sha256').update(prefix).update(SUFFIX).digest('base64url');
  return { prefix, suffix: SUFFIX, bytes: prefix.length + SUFFIX.length, hash, lastModified };
}

/** Serializes an answer once, with the request id left out (added at send time). */
export function serializeBody(body: ResponseBody): CachedBody {
  const json = JSON.stringify({ data: body.data, meta: { ...body.meta, request_id: '' } });
  const lastUpdated = body.meta.last_updated;
  return cached(Buffer.from(json.slice(0, -3)), typeof lastUpdated === 'string' ? lastUpdated : undefined);
}

/**
 * The cached form of an answer another service already served with `requestId` as its last member
 * (`…"request_id":"<id>"}}`), or undefined when it does not end that way (then it is not kept).
 * The gateway keeps the query service's answers this way.
 */
export function cachedBodyFromUpstream(served: Buffer, requestId: string): CachedBody | undefined {
  const tail = `${requestId}"}}`;
  const cut = served.length - tail.length;
  if (cut <= ID_MEMBER.length || served.toString('latin1', cut) !== tail) return undefined;
  if (served.toString('latin1', cut - ID_MEMBER.length, cut) !== ID_MEMBER) return undefined;
  return cached(served.subarray(0, cut), lastUpdatedOf(served));
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
 * goes through sendCachedBody). Request ids are JSON-safe ASCII (see @cds/http), never escaped.
 */
export function withRequestId(body: CachedBody, requestId: string): Buffer {
  return Buffer.concat([body.prefix, Buffer.from(requestId, 'latin1'), body.suffix]);
}
