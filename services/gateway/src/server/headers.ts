import { DATA_CONTENT_TYPES } from '@cds/http';

/** Headers on every answer of the gateway (errors and raw socket answers included). */
const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'cross-origin',
  'access-control-allow-origin': '*',
  'access-control-expose-headers':
    'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, RateLimit-Policy, RateLimit, ' +
    'Retry-After, ETag, Last-Modified, Content-Disposition',
};

/** The security headers, with Strict-Transport-Security when served over TLS by the ingress. */
export function securityHeaders(hsts: boolean): Readonly<Record<string, string>> {
  return hsts
    ? { ...SECURITY_HEADERS, 'strict-transport-security': 'max-age=31536000; includeSubDomains' }
    : SECURITY_HEADERS;
}

/**
 * Headers of every answer on a keyed API route: never rendered as a page, and not stored by a
 * cache unless the query service's 200 or 304 says for how long (`private, max-age`).
 */
export const API_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};

/** The Content-Types of the API's answers (what the query service sends, see @cds/http). */
export const JSON_TYPE = DATA_CONTENT_TYPES.json;
export const CSV_TYPE = DATA_CONTENT_TYPES.csv;
