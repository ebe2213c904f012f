// Typed errors: one class per kind of failure, each carrying the fields of the API's error body.
import type { components } from './generated/schema.ts';

export type ErrorCode = components['schemas']['ErrorCode'];

/** Base of every error this client throws. */
export class CommodityDataError extends Error {
  override name = 'CommodityDataError';
}

/** No answer from the API: a refused connection, a timeout, the call's deadline passed. */
export class ApiConnectionError extends CommodityDataError {
  override name = 'ApiConnectionError';
}

export interface ApiErrorFields {
  status: number;
  /** The machine-readable code (`invalid_parameter`, `rate_limited`, ...), or `unknown_error`. */
  code: ErrorCode | 'unknown_error';
  message: string;
  /** The query or path parameter at fault, when one is (400s). */
  param: string | undefined;
  /** The answer's request id: quote it when reporting a problem. */
  requestId: string | undefined;
  /** Where the code is documented. */
  docUrl: string | undefined;
  /** Seconds the API asked to wait (429). */
  retryAfter: number | undefined;
  headers: Headers;
}

/** The API answered with an error (the contract's error body, or what came instead of it). */
export class ApiError extends CommodityDataError implements ApiErrorFields {
  override name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode | 'unknown_error';
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  readonly docUrl: string | undefined;
  readonly retryAfter: number | undefined;
  readonly headers: Headers;

  constructor(fields: ApiErrorFields) {
    let text = `${fields.status} ${fields.code}: ${fields.message}`;
    if (fields.param !== undefined) text += ` (param: ${fields.param})`;
    if (fields.requestId !== undefined) text += ` [request_id ${fields.requestId}]`;
    super(text);
    this.status = fields.status;
    this.code = fields.code;
    this.param = fields.param;
    this.requestId = fields.requestId;
    this.docUrl = fields.docUrl;
    this.retryAfter = fields.retryAfter;
    this.headers = fields.headers;
  }
}

/** 400: a parameter is invalid (see `param`). */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
/** 401: the key is missing, unknown or revoked. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/** 403: the plan does not include this (`forbidden`) or this much history (`historical_limit`). */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
/** 404: no such commodity, series or path. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 429 after the retries allowed: `retryAfter` says how long the API asked to wait. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
/** 5xx: the service failed or is unavailable. */
export class ServerError extends ApiError {
  override name = 'ServerError';
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  429: RateLimitError,
};

/** Retry-After in seconds (the API sends delta-seconds), or undefined when absent or unreadable. */
export function retryAfterOf(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/** The typed error of a non-2xx answer, from its parsed body (undefined when it was not JSON). */
export function errorFromResponse(response: Response, body: unknown, text = ''): ApiError {
  const err =
    typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'object' && body.error
      ? (body.error as Partial<Record<string, unknown>>)
      : {};
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const Kind = BY_STATUS[response.status] ?? (response.status >= 500 ? ServerError : ApiError);
  return new Kind({
    status: response.status,
    code: (str(err.code) as ErrorCode | undefined) ?? 'unknown_error',
    message: str(err.message) ?? (text.slice(0, 200) || response.statusText || 'no message'),
    param: str(err.param),
    requestId: str(err.request_id) ?? response.headers.get('x-request-id') ?? undefined,
    docUrl: str(err.doc_url),
    retryAfter: retryAfterOf(response.headers),
    headers: response.headers,
  });
}
