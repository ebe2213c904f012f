import { API_PREFIX } from '@cds/contracts';
import { ServiceUnavailableError } from '@cds/http';
import type { FastifyInstance } from 'fastify';
import { API_HEADERS, JSON_TYPE } from '../server/headers.ts';
import type { StatusBoard } from '../status/status-document.ts';

export const STATUS_URL = `${API_PREFIX}/status`;

/**
 * GET /status: public, no key, no rate window, no database; answered from the followed sync state
 * (503 without it), with the absolute links to GET /datasets and GET /releases.
 */
export function registerStatusRoute(
  app: FastifyInstance,
  deps: { status?: StatusBoard | undefined; nowMs: () => number; publicBaseUrl: string },
): void {
  const { status, nowMs } = deps;
  const headers = { ...API_HEADERS, 'cache-control': 'public, max-age=60' };
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  const links = { datasets: `${base}${API_PREFIX}/datasets`, releases: `${base}${API_PREFIX}/releases` };
  app.get(STATUS_URL, (request, reply) => {
    if (status === undefined) throw new ServiceUnavailableError('The source status is not available.');
    const now = nowMs();
    return reply
      .headers(headers)
      .type(JSON_TYPE)
      .send({
        data: status.document(now),
        meta: { request_id: String(request.id), generated_at: new Date(now).toISOString() },
        links,
      });
  });
}
