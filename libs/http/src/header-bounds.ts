import type { FastifyInstance } from 'fastify';
import { InvalidParameterError } from './errors.ts';

/**
 * Bounds on the request headers a service parses, checked before anything reads them. Every parser
 * of them is linear in its input (ows.ts, negotiate.ts, conditional.ts), and these bounds keep the
 * input itself small: nothing a client sends in them costs more than a few microseconds.
 */

/** Longest value (all field lines together) of a negotiation or conditional header: 1 KiB. */
export const MAX_NEGOTIATION_HEADER_LENGTH = 1024;

/**
 * The whole request head (request line and every header) Node's parser accepts, for
 * `http.maxHeaderSize`: 8 KiB (Node's default is 16 KiB). Past it the parser refuses the request
 * before any handler runs (HPE_HEADER_OVERFLOW; the gateway answers 413 `payload_too_large`).
 */
export const MAX_REQUEST_HEAD_BYTES = 8 * 1024;

/** The headers held to MAX_NEGOTIATION_HEADER_LENGTH, by Node's lower-case name, with the name `param` gives. */
export const BOUNDED_HEADERS: readonly (readonly [name: string, param: string])[] = [
  ['accept', 'Accept'],
  ['if-none-match', 'If-None-Match'],
  ['if-modified-since', 'If-Modified-Since'],
  ['if-range', 'If-Range'],
  ['range', 'Range'],
];

/** A header's length, all its field lines together (Node joins most repeated fields into one string). */
function lengthOf(value: string | readonly string[] | undefined): number {
  if (value === undefined) return 0;
  if (typeof value === 'string') return value.length;
  let n = 0;
  for (const line of value) n += line.length;
  return n;
}

/**
 * The first bounded header longer than MAX_NEGOTIATION_HEADER_LENGTH, as the 400
 * `invalid_parameter` naming it (`param` is the header's name); undefined when all are within.
 * Reads only the lengths (five lookups).
 */
export function overlongHeader(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
): InvalidParameterError | undefined {
  for (const [name, param] of BOUNDED_HEADERS) {
    const length = lengthOf(headers[name]);
    if (length > MAX_NEGOTIATION_HEADER_LENGTH) {
      return new InvalidParameterError(
        param,
        `The ${param} header is ${length} characters long; at most ${MAX_NEGOTIATION_HEADER_LENGTH} are accepted.`,
      );
    }
  }
  return undefined;
}

/**
 * Refuses a request whose bounded headers are too long (overlongHeader) in an onRequest hook, so
 * before any other hook, the router's handlers or a parser has read them. For a service without a
 * hardened onRequest hook of its own (the gateway calls overlongHeader from its own).
 */
export function registerHeaderBounds(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    done(overlongHeader(request.headers));
  });
}
