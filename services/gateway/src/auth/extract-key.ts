import type { IncomingHttpHeaders } from 'node:http';

export type KeyExtraction = { ok: true; key: string } | { ok: false; reason: string };

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** Counts Authorization fields in the raw header list (Node keeps only the first of duplicates). */
function authorizationCount(rawHeaders: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'authorization') n += 1;
  return n;
}

/**
 * Finds the API key of a request. The Authorization header wins when both it and `api_key` are
 * given (docs/decisions.md); a header that is not exactly one `Bearer <key>` is refused rather
 * than falling back to the query. The key's shape is checked by the caller.
 */
export function extractKey(headers: IncomingHttpHeaders, rawHeaders: readonly string[], query: unknown): KeyExtraction {
  const auth = headers.authorization;
  if (auth !== undefined) {
    if (authorizationCount(rawHeaders) > 1) return { ok: false, reason: 'send exactly one Authorization header' };
    const m = BEARER.exec(auth);
    if (m === null) return { ok: false, reason: 'the Authorization header must be `Bearer <key>`' };
    return { ok: true, key: m[1]! };
  }
  const value = (query as Record<string, unknown> | undefined)?.api_key;
  if (value === undefined) return { ok: false, reason: 'an API key is required: send `Authorization: Bearer <key>`' };
  if (typeof value !== 'string') return { ok: false, reason: 'send the api_key parameter once' };
  return { ok: true, key: value };
}
