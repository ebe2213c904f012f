import type { IncomingMessage } from 'node:http';

/**
 * A request id taken from a caller must be short JSON-safe ASCII: it is spliced into cached bodies
 * unescaped. At most 128 characters: a longer one is not read at all (a fresh id replaces it).
 */
const MAX_FORWARDED_ID_LENGTH = 128;
const FORWARDED_ID = /^[A-Za-z0-9._:-]+$/;

/**
 * Fastify's genReqId: the gateway's `x-request-id` (the id of the public request) when present
 * and well-formed, else a fresh id, so logs, traces and the response carry the same id.
 */
export function createRequestIdResolver(generate: () => string): (req: IncomingMessage) => string {
  return (req) => {
    const forwarded = req.headers['x-request-id'];
    return typeof forwarded === 'string' && forwarded.length <= MAX_FORWARDED_ID_LENGTH && FORWARDED_ID.test(forwarded)
      ? forwarded
      : generate();
  };
}
