import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Pool } from 'undici';

export interface UpstreamResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

export interface QueryClient {
  get(path: string, requestId: string): Promise<UpstreamResponse>;
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
    async get(path, requestId) {
      const res = await pool.request({
        method: 'GET',
        path,
        headers: { 'x-request-id': requestId, accept: 'application/json' },
      });
      return { statusCode: res.statusCode, headers: res.headers, body: res.body };
    },
    close: () => pool.close(),
  };
}
