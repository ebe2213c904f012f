import { API_PREFIX, ROUTES_BY_NAME } from '@cds/contracts';
import type { FastifyInstance } from 'fastify';
import type { Web } from '../http/web.ts';
import { PREFIX } from '../pages/layout.ts';
import { html } from '../security/html.ts';
import { statusPage, type StatusLinks } from './page.ts';
import type { DatasetsReader } from './reader.ts';

/** The public API's address of a route (`publicApiUrl` ends in the API prefix, `…/api/v1`). */
function publicLinks(publicApiUrl: string): StatusLinks {
  const base = publicApiUrl.replace(/\/+$/, '');
  const at = (path: string) => `${base}${path.slice(API_PREFIX.length)}`;
  return {
    json: at(ROUTES_BY_NAME.datasets.path),
    feed: at(ROUTES_BY_NAME.datasetsFeed.path),
    releases: (id) => `${at(ROUTES_BY_NAME.releases.path)}?dataset=${encodeURIComponent(id)}`,
  };
}

/**
 * The public status page (no log-in): each dataset's conditions, releases and lag, and the
 * incidents, read from the gateway's GET /datasets. When the gateway does not answer, a 503 page
 * that says so (Retry-After), never an error page.
 */
export function registerStatusPage(
  app: FastifyInstance,
  deps: { web: Web; datasets: DatasetsReader; publicApiUrl: string },
): void {
  const links = publicLinks(deps.publicApiUrl);
  const head = html`<link rel="stylesheet" href="${PREFIX}/assets/status-page.css" />
    <script src="${PREFIX}/assets/status-page.js" defer></script>
    <link rel="alternate" type="application/atom+xml" title="Dataset changes" href="${links.feed}" />`;
  app.get(`${PREFIX}/status`, async (request, reply) => {
    const read = await deps.datasets.read();
    if (!read.ok) reply.header('retry-after', '30');
    return deps.web.page(reply, request, 'Service status', statusPage(read, links), {
      status: read.ok ? 200 : 503,
      active: 'status',
      head,
    });
  });
}
