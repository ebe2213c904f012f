import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import {
  buildOpenApiDocument,
  contractRegistry,
  ERROR_CODE_LIST,
  ERROR_CODES,
  openApiPath,
  pathParamNames,
  PUBLIC_ROUTES,
  type PublicRoute,
} from '../src/index.ts';
import { createOpenApiResponseValidator } from '../src/testing/index.ts';
import { legacyReport } from './fixtures.ts';

const committed = JSON.parse(await readFile(new URL('../openapi.json', import.meta.url), 'utf8')) as Record<
  string,
  unknown
>;

describe('the OpenAPI document', () => {
  it('is current: the committed file equals what the contracts generate', () => {
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(committed);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('has version 1.0.0, the /api/v1 prefix, the bearer key scheme only and the GET paths', () => {
    expect((committed.info as { version: string }).version).toBe('1.0.0');
    expect(committed.servers).toEqual([expect.objectContaining({ url: '/api/v1' })]);
    const schemes = (committed.components as { securitySchemes: Record<string, unknown> }).securitySchemes;
    expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    // No scheme puts the key in a URL (api_key is accepted, described in prose, never offered).
    expect(Object.keys(schemes)).toEqual(['bearerAuth']);
    expect(committed.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(committed.paths as object)).toEqual(PUBLIC_ROUTES.map(openApiPath));
  });

  it('holds each route of the table, with its params, query, headers and statuses, and nothing else', () => {
    // The file the gateway serves at /api/v1/openapi.json (services/gateway/src/main.ts imports it).
    type Op = { parameters: { name: string; in: string }[]; responses: Record<string, unknown> };
    const paths = committed.paths as Record<string, { get: Op }>;
    expect(Object.keys(paths).sort()).toEqual(PUBLIC_ROUTES.map(openApiPath).sort());
    for (const route of PUBLIC_ROUTES as readonly PublicRoute[]) {
      const op = paths[openApiPath(route)]!.get;
      const named = (where: string) => op.parameters.filter((p) => p.in === where).map((p) => p.name);
      expect(named('path'), route.name).toEqual(pathParamNames(route));
      expect(named('path'), route.name).toEqual(Object.keys(route.params?.shape ?? {}));
      expect(named('query'), route.name).toEqual(Object.keys(route.query?.shape ?? {}));
      const headers = (route.headers ?? []).map((h) => h.name);
      expect(named('header'), route.name).toEqual(
        route.conditional ? [...headers, 'If-None-Match', 'If-Modified-Since'] : headers,
      );
      const statuses = Object.keys(op.responses);
      expect(statuses, route.name).toContain('200');
      expect(statuses.includes('304'), route.name).toBe(route.conditional);
      for (const code of route.errors)
        expect(statuses, `${route.name} ${code}`).toContain(String(ERROR_CODES[code].status));
      expect(op.responses['401'] === undefined, route.name).toBe(route.auth === 'public');
      if (route.body.kind === 'json') {
        const id = contractRegistry.get(route.body.schema)?.id;
        expect(op.responses['200'], route.name).toMatchObject({
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${id}` } } },
        });
        expect(Object.keys((op.responses['200'] as { content: object }).content).includes('text/csv')).toBe(
          route.body.csv !== undefined,
        );
      }
    }
  });

  it('documents /events as a text/event-stream with its filters, Last-Event-ID and its refusals', () => {
    const op = (committed.paths as Record<string, { get: Record<string, unknown> }>)['/events']!.get;
    const params = op.parameters as { name: string; in: string; required: boolean }[];
    expect(params.map((p) => `${p.in}:${p.name}`)).toEqual([
      'query:commodities',
      'query:types',
      'query:last_event_id',
      'header:Last-Event-ID',
    ]);
    expect(params.every((p) => !p.required)).toBe(true);
    const responses = op.responses as Record<string, { headers: object; content?: Record<string, unknown> }>;
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '403', '413', '414', '429', '500', '503']);
    expect(Object.keys(responses['200']!.content!)).toEqual(['text/event-stream']);
    expect(Object.keys(responses['200']!.headers)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-Accel-Buffering', 'Cache-Control']),
    );
    expect(op.description).toMatch(/slow_consumer/);
  });

  it('documents /status as public: no security, no key or window errors, cacheable', () => {
    const op = (committed.paths as Record<string, { get: Record<string, unknown> }>)['/status']!.get;
    expect(op.security).toEqual([]);
    const responses = op.responses as Record<string, { headers: object; content?: unknown }>;
    expect(Object.keys(responses).sort()).toEqual(['200', '413', '414', '500', '503']);
    expect(Object.keys(responses['200']!.headers)).toEqual(['X-Request-Id', 'Cache-Control']);
    expect(responses['200']!.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/StatusResponse' } },
    });
  });

  it('declares the statuses of each endpoint with the error body and rate limit headers', () => {
    const paths = committed.paths as Record<string, { get: { responses: Record<string, { headers?: object }> } }>;
    const statuses = (p: string) => Object.keys(paths[p]!.get.responses).sort();
    // 413 and 414 (a GET with a body, a target over 4,096 characters) are answered on every path.
    // 304 (a matching If-None-Match / If-Modified-Since) and 406 (an Accept allowing no format served) too.
    const common = ['304', '401', '406', '413', '414', '429', '500', '503'];
    expect(statuses('/commodities')).toEqual(['200', '400', ...common].sort());
    expect(statuses('/commodities/{slug}')).toEqual(['200', '400', '404', ...common].sort());
    expect(statuses('/commodities/{slug}/series')).toEqual(['200', '400', '403', '404', ...common].sort());
    expect(statuses('/commodities/{slug}/cot')).toEqual(['200', '400', '403', '404', ...common].sort());
    // Answered before the key is looked up: no rate-limit headers to promise.
    for (const status of ['401', '413', '414']) {
      expect(Object.keys(paths['/commodities']!.get.responses[status]!.headers!)).toEqual(['X-Request-Id']);
    }
    const ok = paths['/commodities/{slug}/series']!.get.responses['200']!.headers!;
    expect(Object.keys(ok)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']),
    );
    expect(Object.keys(paths['/commodities']!.get.responses['429']!.headers!)).toContain('Retry-After');
    const codes = (
      (committed.components as { schemas: Record<string, { enum?: string[] }> }).schemas.ErrorCode!.enum ?? []
    ).sort();
    expect(codes).toEqual([...ERROR_CODE_LIST].sort());
  });

  it('describes the parameters with their constraints and defaults', () => {
    const params = (p: string) =>
      (
        committed.paths as Record<
          string,
          { get: { parameters: { name: string; required: boolean; schema: Record<string, unknown> }[] } }
        >
      )[p]!.get.parameters;
    const series = params('/commodities/{slug}/series');
    expect(series.map((p) => p.name)).toEqual([
      'slug',
      'type',
      'start_date',
      'end_date',
      'frequency',
      'transform',
      'limit',
      'sort_order',
      // point in time (issue #25)
      'as_of',
      'first_release',
      'include',
      'currency',
      'unit',
      // the preconditions of a conditional request (issue #13), on every data endpoint
      'If-None-Match',
      'If-Modified-Since',
    ]);
    expect(series.find((p) => p.name === 'type')!.required).toBe(true);
    expect(series.find((p) => p.name === 'limit')!.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 10000,
    });
    const list = params('/commodities');
    expect(list.find((p) => p.name === 'per_page')!.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 25,
    });
    expect(params('/commodities/{slug}/cot').find((p) => p.name === 'sort_order')!.schema).toMatchObject({
      default: 'desc',
    });
    // Issue 16: any page a JSON number carries exactly; an empty search is valid (no filter).
    for (const path of ['/commodities', '/commodities/{slug}/cot']) {
      expect(params(path).find((p) => p.name === 'page')!.schema).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
      });
    }
    const search = list.find((p) => p.name === 'search')!.schema;
    expect(search).toMatchObject({ type: 'string', maxLength: 100 });
    expect(search).not.toHaveProperty('minLength');
  });
});

describe('createOpenApiResponseValidator', () => {
  const validate = createOpenApiResponseValidator(committed);
  const headers = {
    'x-request-id': 'r1',
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': '99',
    'x-ratelimit-reset': '1700000000',
    'ratelimit-policy': '"minute";q=100;w=60',
    ratelimit: '"minute";r=99;t=10',
    // the validators and freshness of every data 200 (issue #13)
    etag: '"abc"',
    'cache-control': 'private, max-age=60',
    vary: 'Accept',
  };
  const body = { data: [legacyReport()], meta: { page: 1, per_page: 25, total: 1, total_pages: 1, request_id: 'r1' } };

  it('accepts a conforming response', () => {
    expect(() =>
      validate('/commodities/{slug}/cot', { statusCode: 200, headers, body: JSON.stringify(body) }),
    ).not.toThrow();
  });
  it('rejects a wrong body, a missing header and an undeclared status', () => {
    const bad = { ...body, data: [{ ...legacyReport(), extra: 1 }] };
    expect(() => validate('/commodities/{slug}/cot', { statusCode: 200, headers, body: JSON.stringify(bad) })).toThrow(
      /body/,
    );
    const { 'x-ratelimit-reset': _r, ...missing } = headers;
    expect(() =>
      validate('/commodities/{slug}/cot', { statusCode: 200, headers: missing, body: JSON.stringify(body) }),
    ).toThrow(/X-RateLimit-Reset/);
    expect(() => validate('/commodities', { statusCode: 404, headers, body: '{}' })).toThrow(/not declared/);
  });
});
