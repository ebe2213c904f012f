import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { PageError } from '../http/page-error.ts';
import { PREFIX } from '../pages/layout.ts';

const TYPES: Record<string, string> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
  'favicon.svg': 'image/svg+xml',
  'status-page.css': 'text/css; charset=utf-8',
  'status-page.js': 'text/javascript; charset=utf-8',
};

/** The dashboard's stylesheet, script and icon, read once per app and served from this process. */
export function registerAssetRoutes(app: FastifyInstance): void {
  const assets = new Map(
    Object.entries(TYPES).map(([name, type]) => [
      name,
      { type, body: readFileSync(new URL(`./${name}`, import.meta.url)) },
    ]),
  );
  app.get(`${PREFIX}/assets/:name`, (request, reply) => {
    const asset = assets.get((request.params as { name: string }).name);
    if (asset === undefined) throw new PageError(404, 'Not found', 'No such file.');
    return reply.header('cache-control', 'public, max-age=3600').type(asset.type).send(asset.body);
  });
}
