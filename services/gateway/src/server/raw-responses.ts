import { API_PREFIX, ERROR_CODES, errorBody, type ErrorCode } from '@cds/contracts';
import { MethodNotAllowedError } from '@cds/http';

/** What every answer written straight to the socket carries besides its body. */
export interface RawContext {
  publicBaseUrl: string;
  securityHeaders: Readonly<Record<string, string>>;
}

/**
 * A raw HTTP error answer for requests Node could not even parse (no Fastify request exists), in
 * the contract's error shape, with the security headers every other answer carries.
 */
export function rawErrorResponse(
  status: number,
  code: ErrorCode,
  message: string,
  requestId: string,
  ctx: RawContext,
  extraHeaders = '',
): string {
  const body = JSON.stringify(errorBody(code, message, { requestId, publicBaseUrl: ctx.publicBaseUrl }));
  const security = Object.entries(ctx.securityHeaders)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${status} ${ERROR_CODES[code].title}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\n${security}${extraHeaders}` +
    `Connection: close\r\n\r\n${body}`
  );
}

/** 405 for a method answered outside Fastify, with the same message and Allow as the routes' own. */
export function rawMethodNotAllowed(method: string, id: string, ctx: RawContext): string {
  const e = new MethodNotAllowedError(method);
  return rawErrorResponse(405, e.code, e.message, id, ctx, `Allow: ${e.headers.allow ?? ''}\r\n`);
}

/** An HTTP method token (RFC 9110) and an origin-form target: the request line of a method Node does not know. */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}) (\/[^\s]*) HTTP\/1\.[01]\r?\n/;
const API_PATH = new RegExp(`^${API_PREFIX}/(?:status|commodities(?:/[^/?#]+(?:/(?:series|cot))?)?)(?:[?#]|$)`);

/**
 * The answer to a method Node's parser refuses (any token beyond http.METHODS, e.g. `FOO`): 405
 * with Allow on an API path, 404 elsewhere, as Fastify answers the methods it knows; a request
 * line that is no request line at all stays a 400 (undefined here).
 */
export function unknownMethodResponse(raw: Buffer | undefined, id: string, ctx: RawContext): string | undefined {
  const line = REQUEST_LINE.exec(raw?.subarray(0, 8192).toString('latin1') ?? '');
  if (line === null) return undefined;
  const [, method, target] = line as unknown as [string, string, string];
  if (API_PATH.test(target)) return rawMethodNotAllowed(method, id, ctx);
  return rawErrorResponse(404, 'not_found', `No route ${method} ${target.split('?')[0]!.slice(0, 200)}.`, id, ctx);
}
