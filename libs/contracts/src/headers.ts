/**
 * Response headers of the contract. Values are what a client reads; descriptions feed the OpenAPI
 * document. Rate limit headers describe the binding window (docs/decisions.md).
 */
export const RESPONSE_HEADERS = {
  'X-RateLimit-Limit': {
    type: 'integer',
    description:
      'Requests allowed in the binding window: the per-minute window, unless fewer requests are left in the day.',
  },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the binding window.' },
  'X-RateLimit-Reset': { type: 'integer', description: 'Unix time (seconds) at which the binding window resets.' },
  'RateLimit-Policy': {
    type: 'string',
    description: 'IETF RateLimit-Policy: both windows, for example `"minute";q=100;w=60, "day";q=100000;w=86400`.',
  },
  RateLimit: {
    type: 'string',
    description: 'IETF RateLimit: the binding window, for example `"minute";r=42;t=18`.',
  },
  'X-Request-Id': { type: 'string', description: 'Unique request id, also in meta.request_id or error.request_id.' },
  'Retry-After': { type: 'integer', description: 'Seconds to wait before retrying (429 only), at least 1.' },
  'Cache-Control': {
    type: 'string',
    description:
      'How long the answer may be cached: `public, max-age=60` on GET /status; on a data 200 or 304 ' +
      '`private, max-age=N`, N never past the next scheduled update of the data (at most 3600); `no-store` on errors.',
  },
  ETag: {
    type: 'string',
    description:
      'Strong entity tag of the answer (without its request id); the JSON and CSV forms have different tags. ' +
      'Send it back in If-None-Match.',
  },
  'Last-Modified': {
    type: 'string',
    description:
      'When the data of the answer was last ingested (HTTP-date), when known. Send it back in If-Modified-Since.',
    optional: true,
  },
  Vary: { type: 'string', description: '`Accept`: the answer depends on the Accept header (JSON or CSV).' },
  'Content-Disposition': {
    type: 'string',
    description: 'CSV answers and bulk files only: `attachment; filename="<name>"`, a name saying what the file holds.',
    optional: true,
  },
  'Accept-Ranges': { type: 'string', description: 'Bulk files only: `bytes`, single byte ranges are served.' },
  'Content-Range': {
    type: 'string',
    description: 'Bulk files only: the range a 206 carries (`bytes first-last/size`), or `bytes */size` on a 416.',
  },
} as const;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

/** Headers on every response to an authenticated request (200, 4xx, 429). */
export const RATE_LIMIT_HEADER_NAMES = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
] as const satisfies readonly ResponseHeaderName[];

export interface RateWindowState {
  name: 'minute' | 'day';
  limit: number;
  remaining: number;
  /** Unix seconds at which the window resets. */
  reset: number;
  /** Window length in seconds. */
  seconds: number;
}

/**
 * The rate limit headers for a request, given both windows at the time of the decision and the
 * current Unix time in seconds: X-RateLimit-* describe the binding window (the minute, unless the
 * day has fewer requests left), the IETF fields describe both.
 */
export function rateLimitHeaders(
  minute: RateWindowState,
  day: RateWindowState,
  nowSeconds: number,
): Record<(typeof RATE_LIMIT_HEADER_NAMES)[number], string> {
  const binding = day.remaining < minute.remaining ? day : minute;
  return {
    'X-RateLimit-Limit': String(binding.limit),
    'X-RateLimit-Remaining': String(binding.remaining),
    'X-RateLimit-Reset': String(binding.reset),
    'RateLimit-Policy': `"minute";q=${minute.limit};w=${minute.seconds}, "day";q=${day.limit};w=${day.seconds}`,
    RateLimit: `"${binding.name}";r=${binding.remaining};t=${Math.max(0, binding.reset - nowSeconds)}`,
  };
}
