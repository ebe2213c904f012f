import { API_PREFIX } from '@cds/contracts';
import scalarApiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { renderErrorsPage } from '../docs/pages.ts';
import { renderReferencePage } from '../docs/reference-page.ts';
import { JSON_TYPE } from '../server/headers.ts';

const HTML_TYPE = 'text/html; charset=utf-8';

/** The error codes page: its own inline stylesheet, nothing else. */
export const ERRORS_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/**
 * The API reference (Scalar), exactly what it needs: its one script from this origin (the page has
 * no inline script); styles inline, because the script injects its stylesheet as a <style> element
 * and renders style attributes (neither can carry a hash, and a nonce would make the page differ
 * per request); images from this origin and data: URIs (its icons are inline SVG); connections to
 * this origin only (the OpenAPI document and the try-it requests). No 'unsafe-eval' (the bundle
 * does not evaluate code), no fonts (withDefaultFonts is off: the system fonts), no other origin.
 */
export const REFERENCE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page and its script are the same bytes for everyone: caches may keep them for an hour. */
export const DOCS_CACHE_CONTROL = 'public, max-age=3600';

const REFERENCE_PREFIX = '/docs';
/** Where @scalar/fastify-api-reference serves its bundled script under its route prefix. */
const SCRIPT_URL = `${REFERENCE_PREFIX}/js/scalar.js`;

/**
 * Public, no key, counted against no rate window: the OpenAPI document, the interactive reference
 * (Scalar, served from node_modules by @scalar/fastify-api-reference) and the page every error's
 * doc_url points at. Returns the paths, for the 405s of other methods.
 */
export function registerDocsRoutes(app: FastifyInstance, openapiDocument: Record<string, unknown>): string[] {
  const openapiJson = JSON.stringify(openapiDocument);
  const urls = { openapi: `${API_PREFIX}/openapi.json`, errors: `${REFERENCE_PREFIX}/errors` };
  const referenceHtml = renderReferencePage({
    openapiUrl: urls.openapi,
    scriptUrl: SCRIPT_URL,
    errorsUrl: urls.errors,
  });
  const errorsHtml = renderErrorsPage();

  app.get(urls.openapi, (_request, reply) => reply.type(JSON_TYPE).send(openapiJson));
  app.get(urls.errors, (_request, reply) =>
    reply.type(HTML_TYPE).header('content-security-policy', ERRORS_CSP).send(errorsHtml),
  );

  // The plugin serves its script at /docs/js/scalar.js, redirects /docs to /docs/ and renders, per
  // request, a page with an inline script at /docs/. The page is ours instead, at both addresses
  // (/docs is the address everything links to): rendered once, with no inline script.
  const docsAnswer: onRequestHookHandler = (request, reply, done) => {
    reply.header('cache-control', DOCS_CACHE_CONTROL);
    if (request.routeOptions.url === SCRIPT_URL) {
      done();
      return;
    }
    void reply.type(HTML_TYPE).header('content-security-policy', REFERENCE_CSP).send(referenceHtml);
  };
  void app.register(scalarApiReference, {
    routePrefix: REFERENCE_PREFIX,
    configuration: { url: urls.openapi },
    hooks: { onRequest: docsAnswer },
  });
  return [urls.openapi, REFERENCE_PREFIX, `${REFERENCE_PREFIX}/`, SCRIPT_URL, urls.errors];
}
