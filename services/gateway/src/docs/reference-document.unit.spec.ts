// The document the API reference (Scalar, /docs) reads offers no way to put the key in a URL: the
// gateway's docs routes with the committed OpenAPI document, as main.ts serves it; the document's
// address is the one the page's configuration names.
import openapiDocument from '@cds/contracts/openapi.json' with { type: 'json' };
import Fastify from 'fastify';
import { afterAll, expect, it } from 'vitest';
import { registerDocsRoutes } from '../routes/docs.ts';

const app = Fastify();
registerDocsRoutes(app, openapiDocument);
afterAll(() => app.close());

interface Scheme {
  type?: string;
  in?: string;
  name?: string;
}

it('has no key scheme in the query string (or a cookie), and no operation asks for one', async () => {
  const page = await app.inject('/docs');
  expect(page.statusCode).toBe(200);
  const configuration = /data-configuration="([^"]+)"/.exec(page.body)?.[1];
  expect(configuration).toBeDefined();
  const { url } = JSON.parse(configuration!.replace(/&quot;/g, '"').replace(/&amp;/g, '&')) as { url: string };
  const res = await app.inject(url);
  expect(res.statusCode).toBe(200);
  const document = res.json<{
    security?: Record<string, string[]>[];
    components: { securitySchemes: Record<string, Scheme> };
    paths: Record<string, Record<string, { security?: Record<string, string[]>[]; parameters?: Scheme[] }>>;
  }>();

  const schemes = document.components.securitySchemes;
  const inUrlOrCookie = Object.entries(schemes).filter(([, s]) => s.type === 'apiKey' && s.in !== 'header');
  expect(inUrlOrCookie).toEqual([]);
  expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  const required = [
    document.security ?? [],
    ...Object.values(document.paths).flatMap((p) => Object.values(p).map((op) => op.security ?? [])),
  ]
    .flat()
    .flatMap((requirement) => Object.keys(requirement));
  expect([...new Set(required)]).toEqual(['bearerAuth']);
  // Nor is api_key a documented parameter of any operation.
  const parameters = Object.values(document.paths).flatMap((p) =>
    Object.values(p).flatMap((op) => op.parameters ?? []),
  );
  expect(parameters.length).toBeGreaterThan(0);
  expect(parameters.filter((p) => p.name?.toLowerCase() === 'api_key')).toEqual([]);
  // The prose still says it is accepted, and why it is not offered.
  expect((openapiDocument.info as { description: string }).description).toMatch(
    /`api_key` query parameter is still accepted/,
  );
});
