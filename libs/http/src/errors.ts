import { ERROR_CODES, type ErrorCode } from '@cds/contracts';

/** An error with one contract code (docs/decisions.md); the error handler renders it as the error body. */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly param: string | undefined;
  /** Extra response headers (e.g. Retry-After, Allow). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { param?: string | undefined; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.statusCode = ERROR_CODES[code].status;
    this.param = opts.param;
    this.headers = opts.headers ?? {};
  }
}

export class InvalidParameterError extends ApiError {
  override readonly name = 'InvalidParameterError';
  constructor(param: string, message: string) {
    super('invalid_parameter', message, { param });
  }
}

export class UnauthorizedError extends ApiError {
  override readonly name = 'UnauthorizedError';
  constructor(message = 'A valid API key is required: send Authorization: Bearer <key>.') {
    super('unauthorized', message);
  }
}

export class ForbiddenError extends ApiError {
  override readonly name = 'ForbiddenError';
  constructor(message: string) {
    super('forbidden', message);
  }
}

export class HistoricalLimitError extends ApiError {
  override readonly name = 'HistoricalLimitError';
  constructor(earliest: string) {
    super(
      'historical_limit',
      `Your plan can read data from ${earliest} on: start_date must not be earlier. Upgrade for full history.`,
      { param: 'start_date' },
    );
  }
}

export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
  constructor(message: string, param?: string) {
    super('not_found', message, { param });
  }
}

export class MethodNotAllowedError extends ApiError {
  override readonly name = 'MethodNotAllowedError';
  constructor(method: string) {
    super('method_not_allowed', `Method ${method} is not allowed: the API is read-only (GET).`, {
      headers: { allow: 'GET, HEAD, OPTIONS' },
    });
  }
}

export class RateLimitedError extends ApiError {
  override readonly name = 'RateLimitedError';
  constructor(window: 'minute' | 'day', retryAfterSeconds: number) {
    super('rate_limited', `Rate limit exceeded for the ${window} window: retry in ${retryAfterSeconds} s.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }
}

export class NotAcceptableError extends ApiError {
  override readonly name = 'NotAcceptableError';
  constructor(message: string) {
    super('not_acceptable', message);
  }
}

export class ServiceUnavailableError extends ApiError {
  override readonly name = 'ServiceUnavailableError';
  constructor(message = 'A backing service is unavailable; retry shortly.', cause?: unknown) {
    super('service_unavailable', message, { cause });
  }
}
