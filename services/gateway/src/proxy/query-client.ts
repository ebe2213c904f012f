import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Pool } from 'undici';

export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

export interface QueryClient {
  /**
   * GET `path` with the request id, and from the client's request headers (`from`) the ones the
   * answer depends on: Accept (application/json when absent), If-None-Match, If-Modified-Since, and
   * Range / If-Range (bulk files).
   */
  get(path: string, requestId: string, from?: IncomingHttpHeaders): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

/**
 * The gateway's connection to the query service: a keep-alive pool with connect, header and body
 * timeouts, so a slow or dead query service costs a bounded wait and becomes a 503, never a hang.
 */
export function createQueryClient(opts: { url: string; connections?: number; timeoutMs?: number }): QueryClient {
  const timeout = opts.timeoutMs ?? 5_000;
  const pool = new Pool(opts.url, {
    connections: opts.connections ?? 64,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    connectTimeout: Math.min(timeout, 2_000),
    headersTimeout: timeout,
    bodyTimeout: timeout,
  });
  return {
    async get(path, requestId, from = {}) {
      const headers: Record<string, string> = {
        'x-request-id': requestId,
        accept: typeof from.accept === 'string' ? from.accept : 'application/json',
      };
      const inm = from['if-none-match'];
      if (typeof inm === 'string') headers['if-none-match'] = inm;
      const ims = from['if-modified-since'];
      if (typeof ims === 'string') headers['if-modified-since'] = ims;
      // Byte ranges of bulk files (GET /bulk/{file}).
      if (typeof from.range === 'string') headers.range = from.range;
      if (typeof from['if-range'] === 'string') headers['if-range'] = from['if-range'];
      const res = await pool.request({ method: 'GET', path, headers });
      return { statusCode: res.statusCode, headers: res.headers, body: res.body };
    },
    close: () => pool.close(),
  };
}
