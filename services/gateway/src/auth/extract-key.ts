import type { IncomingHttpHeaders } from 'node:http';

export type KeyExtraction = { ok: true; key: string } | { ok: false; reason: string };

/**
 * The longest Authorization value read: `Bearer ` and a 40-character key leave room for generous
 * spacing. A longer one is refused before it is read (it cannot carry a key).
 */
export const MAX_AUTHORIZATION_LENGTH = 256;

const SP = 0x20;
const HTAB = 0x09;

/**
 * The token of `Bearer <token>` (scheme case-insensitive, one or more spaces or tabs after it, any
 * trailing ones dropped), or undefined for anything else. One pass over the value, no regex: the
 * time is linear in the length, which the caller bounds. The token is printable ASCII.
 */
export function bearerToken(value: string): string | undefined {
  const n = value.length;
  if (n < 8 || value.slice(0, 6).toLowerCase() !== 'bearer') return undefined;
  let i = 6;
  let c = value.charCodeAt(i);
  if (c !== SP && c !== HTAB) return undefined;
  while (i < n && ((c = value.charCodeAt(i)) === SP || c === HTAB)) i++;
  const start = i;
  while (i < n && (c = value.charCodeAt(i)) > SP && c < 0x7f) i++;
  const end = i;
  while (i < n && ((c = value.charCodeAt(i)) === SP || c === HTAB)) i++;
  return end > start && i === n ? value.slice(start, end) : undefined;
}

/** Counts Authorization fields in the raw header list (Node keeps only the first of duplicates). */
function authorizationCount(rawHeaders: readonly string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 13 && name.toLowerCase() === 'authorization') n += 1;
  }
  return n;
}

/**
 * Finds the API key of a request. The Authorization header wins when both it and `api_key` are
 * given (docs/decisions.md); a header that is not exactly one `Bearer <key>` is refused rather
 * than falling back to the query, and one longer than MAX_AUTHORIZATION_LENGTH without being read.
 * The key's shape and checksum are checked by the caller.
 */
export function extractKey(headers: IncomingHttpHeaders, rawHeaders: readonly string[], query: unknown): KeyExtraction {
  const auth = headers.authorization;
  if (auth !== undefined) {
    if (authorizationCount(rawHeaders) > 1) return { ok: false, reason: 'send exactly one Authorization header' };
    if (auth.length > MAX_AUTHORIZATION_LENGTH) {
      return { ok: false, reason: `the Authorization header is longer than ${MAX_AUTHORIZATION_LENGTH} characters` };
    }
    const key = bearerToken(auth);
    if (key === undefined) return { ok: false, reason: 'the Authorization header must be `Bearer <key>`' };
    return { ok: true, key };
  }
  const value = (query as Record<string, unknown> | undefined)?.api_key;
  if (value === undefined) return { ok: false, reason: 'an API key is required: send `Authorization: Bearer <key>`' };
  if (typeof value !== 'string') return { ok: false, reason: 'send the api_key parameter once' };
  return { ok: true, key: value };
}
