import { ServiceUnavailableError } from '@cds/http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { JSON_TYPE } from '../server/headers.ts';
import type { QueryClient } from './query-client.ts';

/** Keeps upstream answers (the cache step's store side); the proxy buffers only what it wants. */
export interface AnswerKeeper {
  /** Whether an answer of this status and declared size should be buffered and kept. */
  wants(request: FastifyRequest, statusCode: number, size: number): boolean;
  keep(request: FastifyRequest, body: Buffer): void;
}

/**
 * Step 5, the handler of every API route: forwards the checked request (`request.target`) to the
 * query service with its request id, and streams the answer back with its status and type. A query
 * service that does not answer in time is a 503. An answer the keeper wants is buffered and kept.
 */
export function createForwardHandler(deps: { query: QueryClient; keeper?: AnswerKeeper | undefined }) {
  const { query, keeper } = deps;
  return async function forward(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    let upstream;
    try {
      upstream = await query.get(request.target!.path, String(request.id));
    } catch (err) {
      throw new ServiceUnavailableError('The data service did not answer in time; retry shortly.', err);
    }
    reply.code(upstream.statusCode);
    const type = upstream.headers['content-type'];
    reply.type(typeof type === 'string' ? type : JSON_TYPE);
    const length = upstream.headers['content-length'];
    if (
      keeper !== undefined &&
      typeof length === 'string' &&
      keeper.wants(request, upstream.statusCode, Number(length))
    ) {
      const chunks: Buffer[] = [];
      for await (const chunk of upstream.body) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      keeper.keep(request, body);
      return reply.send(body);
    }
    if (typeof length === 'string') reply.header('content-length', length);
    return reply.send(upstream.body);
  };
}
