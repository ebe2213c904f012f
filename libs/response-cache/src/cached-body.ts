/**
 * A fully serialized response body with a hole where the request id goes: every response of the
 * service ends with `"request_id":"<id>"}}` (meta is the last member of the body and request_id
 * the last member of meta), so the body is kept as the bytes before the id and the bytes after it.
 * Sending a cached body then costs one copy, no JSON.stringify.
 */
export interface CachedBody {
  readonly prefix: Buffer;
  readonly suffix: Buffer;
  /** Size of the kept bytes, for the cache's byte bound. */
  readonly bytes: number;
}

const TAIL = '"request_id":""}}';
const SUFFIX = Buffer.from('"}}');

/** Serializes a response body whose last member is `meta` and whose meta ends with `request_id: ''`. */
export function toCachedBody<T extends { data: unknown; meta: { request_id: string } }>(body: T): CachedBody {
  const json = JSON.stringify(body);
  if (!json.endsWith(TAIL)) throw new Error('a cached body must end with meta.request_id');
  const prefix = Buffer.from(json.slice(0, -3));
  return { prefix, suffix: SUFFIX, bytes: prefix.length + SUFFIX.length };
}

/**
 * The body bytes with the request id spliced in. Request ids are restricted to JSON-safe ASCII
 * characters (see request-id.ts), so they need no escaping.
 */
export function withRequestId(body: CachedBody, requestId: string): Buffer {
  const out = Buffer.allocUnsafe(body.prefix.length + requestId.length + body.suffix.length);
  body.prefix.copy(out, 0);
  out.write(requestId, body.prefix.length, 'latin1');
  body.suffix.copy(out, body.prefix.length + requestId.length);
  return out;
}

/**
 * The cached form of a body another service already served with `requestId` as its last member
 * (`…"request_id":"<id>"}}`), or undefined when the body does not end that way (then it is not
 * cached). The gateway keeps the query service's answers this way.
 */
export function fromServedBody(served: Buffer, requestId: string): CachedBody | undefined {
  const tail = `${requestId}"}}`;
  const cut = served.length - tail.length;
  if (cut <= 0 || served.toString('latin1', cut) !== tail) return undefined;
  if (served.toString('latin1', cut - 14, cut) !== '"request_id":"') return undefined;
  const prefix = served.subarray(0, cut);
  return { prefix, suffix: SUFFIX, bytes: prefix.length + SUFFIX.length };
}
