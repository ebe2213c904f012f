import type { FastifyInstance } from 'fastify';
import type { Web } from '../http/web.ts';
import { explorerPlaceholder } from '../pages/app-pages.ts';
import { PREFIX } from '../pages/layout.ts';
import { raw } from '../security/html.ts';

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
