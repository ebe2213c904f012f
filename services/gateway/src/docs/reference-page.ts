import type { ApiReferenceConfiguration } from '@scalar/fastify-api-reference';

const escapeAttribute = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface ReferencePageOptions {
  /** The served OpenAPI document, read by the page (same origin). */
  openapiUrl: string;
  /** Scalar's bundled script, served by the gateway from node_modules. */
  scriptUrl: string;
  /** The error codes page, linked where the page has no JavaScript. */
  errorsUrl: string;
}

/**
 * Scalar's options. Nothing the page does may leave its origin: no fonts from fonts.scalar.com,
 * no telemetry, no AI agent (on by default on localhost, it talks to Scalar's servers), no
 * developer toolbar (links and a sign-up form of Scalar's), no button to Scalar's hosted client, no
 * request proxy (try-it requests go straight to this origin). The key the user types is kept in the page's memory only: `persistAuth`
 * false (Scalar's default, stated here) keeps it out of localStorage.
 */
export function referenceConfiguration(openapiUrl: string): Partial<ApiReferenceConfiguration> {
  return {
    url: openapiUrl,
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    showDeveloperTools: 'never',
    // "Open API Client" is a link to client.scalar.com carrying this document's address.
    hideClientButton: true,
    persistAuth: false,
    authentication: { preferredSecurityScheme: 'bearerAuth' },
    // Six operations: all on one page, as the static reference had them.
    defaultOpenAllTags: true,
  };
}

/**
 * The interactive API reference (Scalar): a static page with no inline script. The bundled script
 * reads its options from the `#api-reference` element's `data-configuration` (Scalar's HTML API),
 * so the page's CSP can allow scripts from its own origin only, without a hash or a nonce, and the
 * page is the same bytes for everyone (cacheable).
 */
export function renderReferencePage(opts: ReferencePageOptions): string {
  const configuration = escapeAttribute(JSON.stringify(referenceConfiguration(opts.openapiUrl)));
  const link = (url: string) => `<a href="${escapeAttribute(url)}">${escapeAttribute(url)}</a>`;
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<title>Commodity Data Service API reference</title><link rel="icon" href="data:,"></head><body>',
    `<noscript><p>The API reference needs JavaScript. The contract is served at ${link(opts.openapiUrl)}; `,
    `error codes are explained at ${link(opts.errorsUrl)}.</p></noscript>`,
    // An empty data block: never executed, so there is no inline script for the CSP to allow.
    `<script id="api-reference" type="application/json" data-configuration="${configuration}"></script>`,
    `<script src="${escapeAttribute(opts.scriptUrl)}"></script></body></html>`,
  ].join('');
}
