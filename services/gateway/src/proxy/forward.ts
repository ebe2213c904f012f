import type { IncomingHttpHeaders } from 'node:http';
import { ServiceUnavailableError } from '@cds/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JSON_TYPE } from '../server/headers.ts';
import type { QueryClient } from './query-client.ts';

/** Keeps upstream answers (the cache step's store side); the proxy buffers only what it wants. */
export interface AnswerKeeper {
  /** Whether an answer of this status, type and declared size should be buffered and kept. */
  wants(request: FastifyRequest, statusCode: number, type: string, size: number): boolean;
  /** Keeps the body, with the freshness its headers give (Last-Modified, Cache-Control). */
  keep(request: FastifyRequest, body: Buffer, headers: IncomingHttpHeaders): void;
}

/** Headers of a query answer that pass through to the client: validators, freshness, the CSV file name. */
const PASSED_THROUGH = ['etag', 'last-modified', 'cache-control', 'vary', 'content-disposition'] as const;

/**
 * Step 5, the handler of every API route: forwards the checked request (`request.target`) to the
 * query service with its request id and the headers its answer depends on (Accept and the
 * preconditions), and streams the answer back with its status, type, validators and freshness
 * (a CSV answer is streamed as it comes, never buffered). A 304 gives the request back to the
 * rate windows (`giveBack`) before it is answered. A query service that does not answer in time
 * is a 503. A JSON 200 the keeper wants is buffered and kept.
 */
export function createForwardHandler(deps: {
  query: QueryClient;
  keeper?: AnswerKeeper | undefined;
  giveBack: (request: FastifyRequest) => Promise<void>;
}) {
  const { query, keeper, giveBack } = deps;
  return async function forward(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    let upstream;
    try {
      upstream = await query.get(request.target!.path, String(request.id), request.headers);
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
    }
    if (status === 304) {
      upstream.body.resume();
      await giveBack(request);
      return reply.send();
    }
    const type = typeof h['content-type'] === 'string' ? h['content-type'] : JSON_TYPE;
    reply.type(type);
    const length = h['content-length'];
    if (keeper !== undefined && typeof length === 'string' && keeper.wants(request, status, type, Number(length))) {
      const chunks: Buffer[] = [];
      for await (const chunk of upstream.body) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      keeper.keep(request, body, h);
      return reply.send(body);
    }
    if (typeof length === 'string') reply.header('content-length', length);
    return reply.send(upstream.body);
  };
}
