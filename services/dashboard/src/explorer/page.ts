import type { FastifyInstance } from 'fastify';
import type { Web } from '../http/web.ts';
import { PREFIX } from '../pages/layout.ts';
import { html, raw, type SafeHtml } from '../security/html.ts';

/** The data explorer as the dashboard mounts it (see createExplorer); main.ts passes it in. */
export interface ExplorerMount {
  render(opts: { apiBaseUrl: string; assetPrefix: string }): { head: string; body: string };
  registerAssets(app: FastifyInstance, opts: { prefix: string }): void | Promise<void>;
}

/** The explorer page in the layout, and its assets; without a mount, a placeholder page. */
export async function registerExplorerPage(
  app: FastifyInstance,
  deps: { web: Web; explorer: ExplorerMount | undefined; publicApiUrl: string },
): Promise<void> {
  const { web, explorer } = deps;
  const prefix = `${PREFIX}/explorer`;
  if (explorer !== undefined) await explorer.registerAssets(app, { prefix });
  app.get(prefix, (request, reply) => {
    web.requireUser(request);
    if (explorer === undefined) {
      return web.page(reply, request, 'Data explorer', explorerPlaceholder(deps.publicApiUrl), { active: 'explorer' });
    }
    const rendered = explorer.render({ apiBaseUrl: deps.publicApiUrl, assetPrefix: prefix });
    return web.page(reply, request, 'Data explorer', raw(rendered.body), {
      active: 'explorer',
      head: raw(rendered.head),
    });
  });
}

/** Shown when no explorer is mounted. */
function explorerPlaceholder(apiBaseUrl: string): SafeHtml {
  return html`<div class="page-head"><h1>Data explorer</h1></div>
    <section class="card empty">
      <p><strong>The data explorer is on its way.</strong></p>
      <p>
        Meanwhile, try the API directly:
        <code>curl -H "Authorization: Bearer &lt;key&gt;" "${apiBaseUrl}/commodities"</code>
      </p>
    </section>`;
}
