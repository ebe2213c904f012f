import { z } from 'zod';
import { contractRegistry } from './registry.ts';
import { ERROR_CODES, type ErrorCode } from './errors.ts';
import { RATE_LIMIT_HEADER_NAMES, RESPONSE_HEADERS } from './headers.ts';
import { PLAN_NAMES, PLANS } from './plans.ts';
import {
  API_PREFIX,
  openApiPath,
  pathParamNames,
  PUBLIC_ROUTES,
  type PublicRoute,
  type RouteHeader,
  type RouteSamples,
} from './routes.ts';
import { CITED } from './sources.ts';

export const API_VERSION = '1.0.0';

type JsonObject = Record<string, unknown>;

const COMPONENT_REF = '#/components/schemas/';

/** Rewrites zod's local `$defs` references to component references and drops keys OpenAPI does not want. */
function toComponentRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toComponentRefs);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema' || k === '$id' || k === '$defs') continue;
    if (k === '$ref' && typeof v === 'string') {
      out[k] = v.replace(/^#\/\$defs\//, COMPONENT_REF);
      continue;
    }
    out[k] = toComponentRefs(v);
  }
  return out;
}

function schemaOf(schema: z.ZodType): JsonObject {
  return toComponentRefs(
    z.toJSONSchema(schema, {
      target: 'draft-2020-12',
      io: 'output',
      metadata: contractRegistry,
      unrepresentable: 'any',
    }),
  ) as JsonObject;
}

/** A body's schema: a reference when it is a component (a schema with an id), else inline. */
function bodySchemaOf(schema: z.ZodType): JsonObject {
  const id = contractRegistry.get(schema)?.id;
  return id === undefined ? schemaOf(schema) : { $ref: `${COMPONENT_REF}${id}` };
}

function queryParameters(schema: z.ZodObject): JsonObject[] {
  return Object.entries(schema.shape).map(([name, field]) => {
    const f = field as z.ZodType;
    const json = schemaOf(f);
    const description = typeof json.description === 'string' ? json.description : undefined;
    return {
      name,
      in: 'query',
      required: !f.safeParse(undefined).success,
      ...(description === undefined ? {} : { description }),
      schema: json,
    };
  });
}

const headerRefs = (names: readonly string[]) =>
  Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

function errorResponses(codes: ErrorCode[], authenticated: boolean): JsonObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const c of codes) byStatus.set(ERROR_CODES[c].status, [...(byStatus.get(ERROR_CODES[c].status) ?? []), c]);
  const out: JsonObject = {};
  for (const [status, group] of byStatus) {
    // 401, 413 and 414 are answered before an account is known: no rate windows to describe.
    const beforeAuth = status === 401 || status === 413 || status === 414;
    const headers = ['X-Request-Id', ...(authenticated && !beforeAuth ? RATE_LIMIT_HEADER_NAMES : [])];
    if (status === 429) headers.push('Retry-After');
    out[String(status)] = {
      description: group.map((c) => `${c}: ${ERROR_CODES[c].title}`).join('; '),
      headers: headerRefs(headers),
      content: { 'application/json': { schema: { $ref: `${COMPONENT_REF}ErrorBody` } } },
    };
  }
  return out;
}

/** Errors of every operation: the key, the windows, the request's size (gateway limits), failures. */
const COMMON_ERRORS: ErrorCode[] = [
  'unauthorized',
  'payload_too_large',
  'uri_too_long',
  'rate_limited',
  'internal_error',
  'service_unavailable',
];

/**
 * The preconditions of a conditional GET (RFC 9110 §13.1). Accept is not a parameter: OpenAPI
 * ignores a header parameter named Accept (3.1 §4.8.12.1); the 200's media types and the 406 say it.
 */
const conditionalParameters: JsonObject[] = [
  {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'ETags of copies you hold (a comma-separated list, `W/` tags compared weakly, or `*`): 304 when one matches ' +
      'the current answer. A value that is not an entity-tag list matches nothing. Takes precedence over ' +
      'If-Modified-Since.',
    schema: { type: 'string' },
  },
  {
    name: 'If-Modified-Since',
    in: 'header',
    required: false,
    description:
      'An HTTP-date: 304 when the data was not ingested after it (to the second). Ignored when If-None-Match is ' +
      'sent, when it is not an HTTP-date, or when it lies in the future.',
    schema: { type: 'string' },
  },
];

/** The headers of a data 200 and 304 besides the rate limit headers. */
const VALIDATOR_HEADERS = ['ETag', 'Last-Modified', 'Cache-Control', 'Vary'] as const;

/**
 * The `x-codeSamples` of an operation (the reference page shows them beside "try it"): curl with the
 * key from `CDS_API_KEY`, and the clients of clients/python and clients/typescript, which read the
 * key and the API address from `CDS_API_KEY` and `CDS_BASE_URL`, so every sample runs as it is.
 */
function codeSamples(samples: RouteSamples): JsonObject[] {
  return [
    {
      lang: 'Shell',
      label: 'curl',
      source: `curl -H "Authorization: Bearer $CDS_API_KEY" "$CDS_BASE_URL${samples.path}"`,
    },
    {
      lang: 'Python',
      label: 'Python (clients/python)',
      source: `from commodity_data import Client\n\nclient = Client()  # CDS_API_KEY, CDS_BASE_URL\n${samples.python}`,
    },
    {
      lang: 'TypeScript',
      label: 'TypeScript (clients/typescript)',
      source: `import { Client } from '@commodity-data/client';\n\nconst client = new Client(); // CDS_API_KEY, CDS_BASE_URL\n${samples.typescript}`,
    },
  ];
}

/** A header parameter of an operation (not required). */
function headerParameter(h: RouteHeader): JsonObject {
  return {
    name: h.name,
    in: 'header',
    required: false,
    description: h.description,
    schema: { type: 'string', ...(h.pattern === undefined ? {} : { pattern: h.pattern }) },
  };
}

/** The path parameters of a route, from its params schema and their descriptions. */
function pathParameters(route: PublicRoute): JsonObject[] {
  return pathParamNames(route).map((name) => ({
    name,
    in: 'path',
    required: true,
    description: route.paramDescriptions?.[name],
    schema: schemaOf(route.params!.shape[name] as z.ZodType),
  }));
}

/** Validators and rate headers of a keyed answer (200, 206, 304); a file has no Vary. */
function answerHeaders(route: PublicRoute, extra: readonly string[] = []): JsonObject {
  const validators = route.body.kind === 'file' ? VALIDATOR_HEADERS.filter((h) => h !== 'Vary') : VALIDATOR_HEADERS;
  return headerRefs(['X-Request-Id', ...RATE_LIMIT_HEADER_NAMES, ...validators, ...extra]);
}

const binaryContent = (types: readonly string[]): JsonObject =>
  Object.fromEntries(
    types.map((type) => [type, { schema: { type: 'string', format: 'binary', contentMediaType: type } }]),
  );

/** The 200 (and the 206 of a file) of a route, by what its body is. */
function successResponses(route: PublicRoute): JsonObject {
  const body = route.body;
  if (body.kind === 'file' && route.auth === 'public') {
    // A public document (the datasets' Atom feed): no rate window, no validators, no byte ranges.
    return {
      '200': {
        description: 'OK',
        headers: headerRefs(['X-Request-Id', 'Cache-Control']),
        content: binaryContent(body.mediaTypes),
      },
    };
  }
  if (body.kind === 'file') {
    const fileHeaders = ['Content-Disposition', 'Accept-Ranges'];
    return {
      '200': {
        description: 'The whole file.',
        headers: answerHeaders(route, fileHeaders),
        content: binaryContent(body.mediaTypes),
      },
      '206': {
        description: 'The byte range asked for.',
        headers: answerHeaders(route, [...fileHeaders, 'Content-Range']),
        content: binaryContent(body.mediaTypes),
      },
    };
  }
  if (body.kind === 'events') {
    return {
      '200': {
        description: body.description,
        headers: {
          ...headerRefs(['X-Request-Id', ...RATE_LIMIT_HEADER_NAMES, 'Cache-Control']),
          'X-Accel-Buffering': {
            description: '`no`: proxies must pass each event on at once.',
            schema: { type: 'string' },
          },
        },
        content: {
          'text/event-stream': {
            // OpenAPI 3.1 types a body, not the items of a stream: the body is text, and each of its
            // events is a ServerSentEvent (x-itemSchema, the `itemSchema` of OpenAPI 3.2).
            schema: { type: 'string', description: 'Events separated by a blank line; each one a ServerSentEvent.' },
            'x-itemSchema': bodySchemaOf(body.event),
            example: body.example,
          },
        },
      },
    };
  }
  const csv = body.csv;
  if (!route.conditional) {
    return {
      '200': {
        description: 'OK',
        headers: headerRefs(['X-Request-Id', 'Cache-Control']),
        content: { 'application/json': { schema: bodySchemaOf(body.schema) } },
      },
    };
  }
  return {
    '200': {
      description:
        csv === undefined
          ? 'OK'
          : `OK. As CSV: one row per item of \`data\` (meta is not part of it), columns ${csv}; numbers as the ` +
            'JSON prints them, an absent or null value as an empty field.',
      headers: answerHeaders(route, csv === undefined ? [] : ['Content-Disposition']),
      content: {
        'application/json': { schema: bodySchemaOf(body.schema) },
        ...(csv === undefined ? {} : { 'text/csv': { schema: { type: 'string' } } }),
      },
    },
  };
}

/** The format sentence of a JSON operation's description, and the conditional-request one. */
function formatNote(route: PublicRoute): string {
  if (route.body.kind !== 'json' || !route.conditional) return '';
  return (
    ' ' +
    (route.body.csv === undefined
      ? 'Served as application/json only (Accept must allow it, else 406).'
      : 'Served as application/json (default) or, with `Accept: text/csv`, as CSV (RFC 4180, a header row, ' +
        'streamed; errors stay JSON). An Accept that allows neither is 406.') +
    ' Conditional requests: If-None-Match / If-Modified-Since get a 304 without a body when your copy is ' +
    'current; only every tenth 304 counts against the rate windows.'
  );
}

/** The errors a route answers: its own, 406 for negotiated JSON, and the common ones (public: no key errors). */
function routeErrors(route: PublicRoute): JsonObject {
  if (route.auth === 'public') {
    return errorResponses(
      [...route.errors, 'payload_too_large', 'uri_too_long', 'internal_error', 'service_unavailable'],
      false,
    );
  }
  const negotiated = route.body.kind === 'json' && route.conditional ? (['not_acceptable'] as const) : [];
  return errorResponses([...route.errors, ...negotiated, ...COMMON_ERRORS], true);
}

/** The OpenAPI operation of one public route (libs/contracts routes.ts). */
function operationOf(route: PublicRoute): JsonObject {
  const samples = route.samples;
  return {
    get: {
      operationId: route.operationId,
      summary: route.summary,
      ...(samples === undefined
        ? {}
        : {
            'x-codeSamples':
              'shell' in samples ? [{ lang: 'Shell', label: 'curl', source: samples.shell }] : codeSamples(samples),
          }),
      description: route.description + formatNote(route),
      tags: [route.tag],
      ...(route.auth === 'public' ? { security: [] } : {}),
      parameters: [
        ...(route.params === undefined ? [] : pathParameters(route)),
        ...(route.query === undefined ? [] : queryParameters(route.query)),
        ...(route.headers ?? []).map(headerParameter),
        ...(route.conditional ? conditionalParameters : []),
      ],
      responses: {
        ...successResponses(route),
        ...(route.conditional
          ? {
              '304': {
                description: NOT_MODIFIED[route.body.kind === 'file' ? 'file' : 'data'],
                headers: answerHeaders(route),
              },
            }
          : {}),
        ...routeErrors(route),
      },
    },
  };
}

const NOT_MODIFIED = {
  data:
    'Not modified: the precondition matched, your copy is current. No body; not counted against the rate ' +
    'windows (the rate limit headers show them after the give-back).',
  file: 'Not modified: your copy is current. Not counted against the rate windows.',
};

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The document's introduction, in CommonMark: the API reference at /docs (Scalar) shows each `##`
 * section as an entry of its sidebar, so authentication, rate limits and errors are found there.
 */
const INFO_DESCRIPTION = [
  'A read-only REST API over free government commodity data: a commodity catalog, time series ' +
    `(prices, volume, open interest, fundamentals) and ${CITED.cotReports}.`,
  '## Authentication',
  'Every request needs an API key, except `GET /status`. Send your 40-character key as ' +
    '`Authorization: Bearer <key>`. The `api_key` query parameter is still accepted, for old scripts, but not ' +
    'offered by this reference: a key in a URL is written to logs, browser histories and proxies (the header ' +
    'wins when both are sent). An address that sends more than 30 requests a minute without a valid key ' +
    'is answered 429 to them until the minute passes.',
  '```sh\ncurl -H "Authorization: Bearer $KEY" "$BASE/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&limit=5&sort_order=desc"\n```',
  '## Rate limits',
  'Access is metered per plan, in two windows per account: a minute and a day.',
  [
    '| Plan | Requests a minute | Requests a day |',
    '| --- | ---: | ---: |',
    ...PLAN_NAMES.map((p) => `| ${p} | ${count(PLANS[p].perMinute)} | ${count(PLANS[p].perDay)} |`),
  ].join('\n'),
  'Every answer to an authenticated request carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and ' +
    '`X-RateLimit-Reset` (the binding window), `RateLimit-Policy` and `RateLimit`; a 429 adds `Retry-After`. ' +
    'Only every tenth 304 counts against the rate windows (a secondary limit on revalidation).',
  '## Errors',
  'Every error body is `{"error": {"code", "message", "doc_url", "param"?, "request_id"}}`; each code is ' +
    'explained on the [error codes page](/docs/errors). Every path answers a method other than GET, HEAD and ' +
    'OPTIONS 405 (`Allow: GET, HEAD, OPTIONS`), a request target longer than 4,096 characters 414, and a GET ' +
    'with a body 413.',
  '## Caching and formats',
  'Data answers carry a strong ETag, Last-Modified and `Cache-Control: private, max-age=N` (never past the next ' +
    'scheduled update of the data); If-None-Match / If-Modified-Since are answered 304 without a body. The ' +
    'list, series and COT endpoints also serve CSV (`Accept: text/csv`).',
].join('\n\n');

/** Builds the OpenAPI 3.1 document of the public API from the zod contracts. */
export function buildOpenApiDocument(): JsonObject {
  const components = z.toJSONSchema(contractRegistry, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `${COMPONENT_REF}${id}`,
  });
  const schemas = toComponentRefs(components.schemas) as JsonObject;

  return {
    openapi: '3.1.0',
    info: {
      title: 'Commodity Data Service',
      version: API_VERSION,
      description: INFO_DESCRIPTION,
    },
    servers: [{ url: API_PREFIX, description: 'Relative to the host that serves this document.' }],
    // Only the header: a scheme in the query string would have every tool reading this document
    // (the reference's try-it, generators) offer to put the key in URLs. api_key is still accepted
    // (services/gateway/src/auth/extract-key.ts) and described in the Authentication section.
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'catalog', description: 'The commodity catalog.' },
      { name: 'series', description: 'Time series per commodity.' },
      { name: 'positioning', description: 'Commitments of Traders reports per commodity.' },
      { name: 'bulk', description: 'Whole datasets as gzipped CSV and Parquet files, with a manifest.' },
      { name: 'status', description: 'Freshness of the official sources (public).' },
      { name: 'notifications', description: 'Change notifications as server-sent events.' },
    ],
    paths: Object.fromEntries(PUBLIC_ROUTES.map((route) => [openApiPath(route), operationOf(route)])),
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            '`Authorization: Bearer <key>` (recommended): a 40-character key, `cds_` then 36 letters and digits ' +
            '(a key issued before that: 40 lowercase hexadecimal characters).',
        },
      },
      headers: Object.fromEntries(
        Object.entries(RESPONSE_HEADERS).map(([name, h]) => [
          name,
          {
            description: h.description,
            ...('optional' in h ? { required: false } : {}),
            schema: { type: h.type, ...(h.type === 'integer' ? { minimum: 0 } : {}) },
          },
        ]),
      ),
    },
  };
}
