import type { IncomingHttpHeaders } from 'node:http';
import { ServiceUnavailableError, evaluateConditional, parseHttpDate } from '@cds/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JSON_TYPE } from '../server/headers.ts';
import type { QueryClient } from './query-client.ts';

/** Keeps upstream answers (the cache step's store side); the proxy buffers only what it wants. */
export interface AnswerKeeper {
  /**
   * Whether this request's answer is fetched whole, without its preconditions, to be kept (a JSON
   * miss): the proxy then answers the preconditions itself, so a client that only ever revalidates
   * still fills the cache, and its next request is a 304 from memory.
   */
  fetchesWhole(request: FastifyRequest): boolean;
  /** Whether an answer of this status, type and declared size should be buffered and kept. */
  wants(request: FastifyRequest, statusCode: number, type: string, size: number): boolean;
  /** Keeps the body, with the freshness its headers give (Last-Modified, Cache-Control). */
  keep(request: FastifyRequest, body: Buffer, headers: IncomingHttpHeaders): void;
}

/** Headers of a query answer that pass through to the client: validators, freshness, the file name, byte ranges. */
const PASSED_THROUGH = [
  'etag',
  'last-modified',
  'cache-control',
  'vary',
  'content-disposition',
  'accept-ranges',
  'content-range',
] as const;

/**
 * Step 5, the handler of every API route: forwards the checked request (`request.target`) to the
 * query service with its request id and the headers its answer depends on (Accept and the
 * preconditions), and streams the answer back with its status, type, validators and freshness
 * (a CSV answer is streamed as it comes, never buffered). A 304 gives the request back to the
 * rate windows (`giveBack`) before it is answered. A query service that does not answer in time
 * is a 503. A 200 the keeper wants is buffered and kept; a JSON miss it keeps is fetched without
 * its preconditions, which are then answered here (a 304 given back to the windows like the query's).
 */
export function createForwardHandler(deps: {
  query: QueryClient;
  keeper?: AnswerKeeper | undefined;
  giveBack: (request: FastifyRequest) => Promise<void>;
}) {
  const { query, keeper, giveBack } = deps;
  return async function forward(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const whole = keeper?.fetchesWhole(request) === true;
    let upstream;
    try {
      const from = whole ? { accept: request.headers.accept } : request.headers;
      upstream = await query.get(request.target!.path, String(request.id), from);
    } catch (err) {
      throw new ServiceUnavailableError('The data service did not answer in time; retry shortly.', err);
    }
    const status = upstream.statusCode;
    reply.code(status);
    const h = upstream.headers;
    if (status < 400) {
      for (const name of PASSED_THROUGH) {
        const value = h[name];
        if (value !== undefined) reply.header(name, value);
      }
    } else if (status === 416 && h['content-range'] !== undefined) {
      // A bulk file's size (`bytes */size`), for the client whose range lay past its end.
      reply.header('content-range', h['content-range']);
    }
    if (status === 304 || (whole && status === 200 && preconditionHolds(request.headers, h))) {
      if (status === 200 && keeper !== undefined) await keepIfWanted(keeper, request, status, h, upstream.body);
      upstream.body.resume();
      await giveBack(request);
      return reply.code(304).send();
    }
    const type = typeof h['content-type'] === 'string' ? h['content-type'] : JSON_TYPE;
    reply.type(type);
    const length = h['content-length'];
    if (keeper !== undefined) {
      const body = await keepIfWanted(keeper, request, status, h, upstream.body);
      if (body !== undefined) return reply.send(body);
    }
    if (typeof length === 'string') reply.header('content-length', length);
    return reply.send(upstream.body);
  };
}

/** Buffers and keeps an answer the keeper wants (by status, type and declared size); its bytes, or undefined. */
async function keepIfWanted(
  keeper: AnswerKeeper,
  request: FastifyRequest,
  status: number,
  headers: IncomingHttpHeaders,
  body: AsyncIterable<unknown>,
): Promise<Buffer | undefined> {
  const length = headers['content-length'];
  const type = typeof headers['content-type'] === 'string' ? headers['content-type'] : JSON_TYPE;
  if (typeof length !== 'string' || !keeper.wants(request, status, type, Number(length))) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  keeper.keep(request, bytes, headers);
  return bytes;
}

/** Whether the client's precondition matches an answer with these validators (RFC 9110 §13.2.2). */
function preconditionHolds(client: IncomingHttpHeaders, upstream: IncomingHttpHeaders): boolean {
  if (client['if-none-match'] === undefined && client['if-modified-since'] === undefined) return false;
  const etag = typeof upstream.etag === 'string' ? upstream.etag : undefined;
  const now = new Date();
  const modified = upstream['last-modified'];
  const lastModified = typeof modified === 'string' ? parseHttpDate(modified, now) : undefined;
  return evaluateConditional(client, { etag, lastModified, now }) === 'not-modified';
}
