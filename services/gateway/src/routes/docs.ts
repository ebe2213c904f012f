import { API_PREFIX } from '@cds/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderErrorsPage, renderReferencePage } from '../docs/pages.ts';
import { JSON_TYPE } from '../server/headers.ts';

const DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/** Public, no key: the OpenAPI document, its readable reference, and the page every error's doc_url points at. */
export function registerDocsRoutes(app: FastifyInstance, openapiDocument: Record<string, unknown>): string[] {
  const openapiJson = JSON.stringify(openapiDocument);
  const referenceHtml = renderReferencePage(openapiDocument);
  const errorsHtml = renderErrorsPage();
  const html = (body: string) => (_request: FastifyRequest, reply: FastifyReply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', DOCS_CSP).send(body);
  const urls = { openapi: `${API_PREFIX}/openapi.json`, reference: '/docs', errors: '/docs/errors' };
  app.get(urls.openapi, (_request, reply) => reply.type(JSON_TYPE).send(openapiJson));
  app.get(urls.reference, html(referenceHtml));
  app.get(urls.errors, html(errorsHtml));
  return Object.values(urls);
}
