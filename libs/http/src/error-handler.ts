import { METHODS } from 'node:http';
import { errorBody, type ErrorCode } from '@cds/contracts';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifySchemaValidationError,
} from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { ApiError, InvalidParameterError, MethodNotAllowedError, NotFoundError } from './errors.ts';
import { describeFirstIssue } from './params.ts';

export interface ErrorHandlingOptions {
  /** Public base address used in doc_url, e.g. https://api.example.com (no /api/v1). */
  publicBaseUrl: string;
  /** Maps errors of other libraries (e.g. a database driver) to an ApiError, or returns undefined. */
  classify?: (error: unknown) => ApiError | undefined;
}

/** Fastify's own errors that reach the handler, by code, as contract errors. */
function fromFastify(error: FastifyError): ApiError | undefined {
  const status = error.statusCode ?? 500;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || status === 413) {
    return new ApiError('payload_too_large', 'The request body is too large: requests are GET without a body.');
  }
  if (status === 414) return new ApiError('uri_too_long', 'The request URL is too long.');
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_INVALID_URL') {
    return new ApiError('invalid_parameter', 'The request URL is malformed.', { param: 'path' });
  }
  if (status >= 400 && status < 500) {
    const code: ErrorCode = status === 404 ? 'not_found' : status === 405 ? 'method_not_allowed' : 'invalid_parameter';
    return new ApiError(code, status === 404 ? 'Not found.' : 'The request is malformed.');
  }
  return undefined;
}

/** Sends an ApiError as the contract's error body, with its extra headers. */
export function sendApiError(reply: FastifyReply, error: ApiError, publicBaseUrl: string): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  return reply
    .code(error.statusCode)
    .type('application/json; charset=utf-8')
    .send(
      errorBody(error.code, error.message, { requestId: String(reply.request.id), publicBaseUrl, param: error.param }),
    );
}

/**
 * The 400 of a request a zod schema refused through fastify-type-provider-zod's own validator (a
 * route that does not use zodValidatorCompiler): its issues go through the same adapter.
 */
function fromZodValidation(
  error: { validation: readonly FastifySchemaValidationError[] },
  request: FastifyRequest,
): ApiError {
  const issues = error.validation.map(
    (v) =>
      ({
        ...v.params,
        code: v.keyword,
        path: v.instancePath.split('/').slice(1),
        message: v.message ?? '',
      }) as unknown as z.core.$ZodIssue,
  );
  const part = (error as { validationContext?: string }).validationContext;
  const input = part === 'params' ? request.params : part === 'querystring' ? request.query : undefined;
  const { param, message } = describeFirstIssue(issues, (input ?? {}) as Record<string, unknown>);
  return new InvalidParameterError(param, message);
}

/**
 * Installs the one error handler and the not-found handler of a service: every failure becomes the
 * contract's error body; unexpected errors are logged with the request context and answered as
 * internal_error without echoing internals (no stack, driver message or host name).
 */
export function registerErrorHandling(app: FastifyInstance, opts: ErrorHandlingOptions): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    let api: ApiError | undefined = error instanceof ApiError ? error : opts.classify?.(error);
    if (api === undefined && hasZodFastifySchemaValidationErrors(error)) api = fromZodValidation(error, request);
    if (api === undefined && error instanceof Error && 'statusCode' in error) api = fromFastify(error as FastifyError);
    if (api === undefined) {
      request.log.error({ err: error }, 'unhandled error');
      api = new ApiError('internal_error', 'An unexpected error occurred; quote the request_id to support.');
    } else if (api.statusCode >= 500) {
      request.log.warn({ err: error, code: api.code }, 'request failed');
    }
    return sendApiError(reply, api, opts.publicBaseUrl);
  });

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = (request.url.split('?')[0] ?? '').slice(0, 200);
    return sendApiError(reply, new NotFoundError(`No route ${request.method} ${path}.`), opts.publicBaseUrl);
  });
}

/** The methods every read-only route answers itself; CONNECT never reaches a route (Node emits 'connect'). */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'CONNECT']);

/**
 * Answers 405 method_not_allowed (with Allow) for every other method Node parses (POST, TRACE,
 * QUERY, PROPFIND, ...) on read-only routes, so a wrong method on an existing path is told apart
 * from an unknown path (404). The answer comes before any body is read (onRequest), whatever the
 * body holds; a request that announced a body gets its connection closed rather than drained.
 */
export function registerReadOnlyRoutes(app: FastifyInstance, urls: readonly string[]): void {
  const methods = METHODS.filter((m) => !READ_METHODS.has(m));
  for (const m of methods) if (!app.supportedMethods.includes(m)) app.addHttpMethod(m);
  for (const url of urls) {
    app.route({
      method: methods,
      url,
      onRequest: (request, reply, done) => {
        if (request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined) {
          reply.header('connection', 'close');
        }
        done(new MethodNotAllowedError(request.method));
      },
      handler: (request) => {
        throw new MethodNotAllowedError(request.method);
      },
    });
  }
}
