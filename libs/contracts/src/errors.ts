import { z } from 'zod';
import { documented } from './registry.ts';
import { RequestId } from './primitives.ts';

/**
 * Every error code the service answers with, one per case (docs/decisions.md), with its status and
 * the text of its section on the errors page that `doc_url` points at.
 */
export const ERROR_CODES = {
  invalid_parameter: {
    status: 400,
    title: 'Invalid parameter',
    description:
      'A query or path parameter is unknown, repeated, missing when required, or has the wrong shape ' +
      '(for example a date not in YYYY-MM-DD form, or start_date after end_date). `param` names it.',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    description:
      'The API key is missing, malformed (a key is `cds_` followed by 36 letters and digits, the last 6 a ' +
      'checksum, or a key issued before that: 40 lowercase hexadecimal characters), unknown or revoked. ' +
      'Send it as `Authorization: Bearer <key>` (preferred) or as the `api_key` query parameter.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description:
      'Your plan does not include this feature: COT legacy reports need Professional or above, ' +
      'COT disaggregated reports need Business or above.',
  },
  historical_limit: {
    status: 403,
    title: 'Historical limit',
    description:
      'Free-tier keys can read the last 12 months only: start_date is earlier than today (UTC) minus 12 months. ' +
      '`param` is start_date. Upgrade for full history.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    description:
      'No such resource: an unknown route or commodity, or a series type / COT format the commodity does not ' +
      'offer (`param` then names type or format).',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    description: 'The API is read-only: every operation is GET (HEAD and OPTIONS are answered too).',
  },
  not_acceptable: {
    status: 406,
    title: 'Not acceptable',
    description:
      'The Accept header allows no format the endpoint serves. The list, series and COT endpoints serve ' +
      'application/json (the default) and text/csv; every other endpoint serves application/json. A missing ' +
      'Accept, `*/*` or one without a readable element gets JSON. Errors are always application/json.',
  },
  payload_too_large: {
    status: 413,
    title: 'Request too large',
    description:
      'The request carries a body or headers larger than the service accepts. Requests are GET without a body.',
  },
  uri_too_long: {
    status: 414,
    title: 'URI too long',
    description: 'The request URL is longer than the service accepts.',
  },
  range_not_satisfiable: {
    status: 416,
    title: 'Range not satisfiable',
    description:
      'A bulk file download asked for a byte range (Range: bytes=first-last) that lies past the end of the file. ' +
      'Content-Range says the size (`bytes */<size>`). Only one range per request is served.',
  },
  free_key_ceiling: {
    status: 409,
    title: 'Free key ceiling',
    description:
      'Account management only (the dashboard and the admin API), never an API answer: the service holds as ' +
      'many active Free keys as it accepts, so no new Free key can be created for now. Keys already issued ' +
      'keep working; a paid plan is not affected.',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limited',
    description:
      'Your account used up its per-minute or per-day window. Retry-After says how many seconds to wait; ' +
      'X-RateLimit-* describe the window that binds. Requests answered 429 are not counted. ' +
      'An address that sent too many requests with a missing or invalid key (30 a minute) is also answered 429 ' +
      'to such requests until its minute passes.',
  },
  slow_consumer: {
    status: 503,
    title: 'Slow consumer',
    description:
      'Only as the final `error` event of the server-sent event stream (GET /events): the client read too slowly ' +
      'and the events waiting for it passed the bound the server keeps per stream. Reconnect with Last-Event-ID ' +
      'to receive what followed.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    description: 'An unexpected failure. Quote the request_id when contacting support.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    description: 'A backing service is down or too slow to answer in time. Retry with backoff.',
  },
} as const satisfies Record<string, { status: number; title: string; description: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];
export const ErrorCodeSchema = documented(z.enum(ERROR_CODE_LIST as [ErrorCode, ...ErrorCode[]]), {
  id: 'ErrorCode',
  description: 'Machine-readable error code; documented at doc_url.',
});

export const ErrorBody = documented(
  z.object({
    error: z.object({
      code: ErrorCodeSchema,
      message: z.string().min(1).max(1000),
      doc_url: z.url(),
      param: z.string().min(1).max(100).optional(),
      request_id: RequestId,
    }),
  }),
  { id: 'ErrorBody', description: 'The body of every error response.' },
);
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The documentation address of an error code: an anchor on the errors page the service serves. */
export function errorDocUrl(publicBaseUrl: string, code: ErrorCode): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/docs/errors#${code}`;
}

/** Cuts user-influenced text to the schema's limit (UTF-16 units), never inside a surrogate pair. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = max - 1;
  const last = text.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
  return `${text.slice(0, cut)}\u2026`;
}

/** Builds an error body; `param` is omitted when not given (or empty). */
export function errorBody(
  code: ErrorCode,
  message: string,
  opts: { requestId: string; publicBaseUrl: string; param?: string | undefined },
): ErrorBody {
  // A parameter name comes from the request (an unknown one of any length, or empty): keep the
  // body within ErrorBody's limits (param 1-100, message up to 1,000 characters).
  return {
    error: {
      code,
      message: clip(message, 1000),
      doc_url: errorDocUrl(opts.publicBaseUrl, code),
      ...(opts.param === undefined || opts.param === '' ? {} : { param: clip(opts.param, 100) }),
      request_id: opts.requestId,
    },
  };
}
