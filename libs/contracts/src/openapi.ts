import { z } from 'zod';
import { contractRegistry } from './registry.ts';
import { ERROR_CODES, type ErrorCode } from './errors.ts';
import { RATE_LIMIT_HEADER_NAMES, RESPONSE_HEADERS } from './headers.ts';
import { EventsQuery, SSE_STREAMS_PER_PLAN } from './notifications.ts';
import { CommodityPathParams, CotQuery, ListCommoditiesQuery, SeriesQuery } from './params.ts';
import { PLAN_NAMES, PLANS } from './plans.ts';
import { API_PREFIX } from './routes.ts';
import './resources.ts';
import './status.ts';
import { BULK_MEDIA_TYPES, BulkFileParams } from './bulk.ts';

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

const slugParameter = {
  name: 'slug',
  in: 'path',
  required: true,
  description: 'Commodity identifier (UPPER_SNAKE_CASE), for example GOLD.',
  schema: schemaOf(CommodityPathParams.shape.slug),
};

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

/** One call of an operation in curl, with the Python client and with the TypeScript client. */
interface CodeSamples {
  /** The path and query string after the API prefix, e.g. `/commodities?category=energy`. */
  path: string;
  python: string;
  typescript: string;
}

/**
 * The `x-codeSamples` of an operation (the reference page shows them beside "try it"): curl with the
 * key from `CDS_API_KEY`, and the clients of clients/python and clients/typescript, which read the
 * key and the API address from `CDS_API_KEY` and `CDS_BASE_URL`, so every sample runs as it is.
 */
function codeSamples(samples: CodeSamples): JsonObject[] {
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

function operation(opts: {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  parameters: JsonObject[];
  responseRef: string;
  errors: ErrorCode[];
  /** The CSV form's columns, when the endpoint serves `text/csv`. */
  csv?: string;
  /** How to call it with curl and the clients in clients/ (shown by the reference at /docs). */
  samples: CodeSamples;
}): JsonObject {
  const csv = opts.csv;
  return {
    get: {
      operationId: opts.operationId,
      summary: opts.summary,
      'x-codeSamples': codeSamples(opts.samples),
      description:
        `${opts.description} ` +
        (csv === undefined
          ? 'Served as application/json only (Accept must allow it, else 406).'
          : 'Served as application/json (default) or, with `Accept: text/csv`, as CSV (RFC 4180, a header row, ' +
            'streamed; errors stay JSON). An Accept that allows neither is 406.') +
        ' Conditional requests: If-None-Match / If-Modified-Since get a 304 without a body when your copy is ' +
        'current; only every tenth 304 counts against the rate windows.',
      tags: [opts.tag],
      parameters: [...opts.parameters, ...conditionalParameters],
      responses: {
        '200': {
          description:
            csv === undefined
              ? 'OK'
              : `OK. As CSV: one row per item of \`data\` (meta is not part of it), columns ${csv}; numbers as the ` +
                'JSON prints them, an absent or null value as an empty field.',
          headers: headerRefs([
            'X-Request-Id',
            ...RATE_LIMIT_HEADER_NAMES,
            ...VALIDATOR_HEADERS,
            ...(csv === undefined ? [] : ['Content-Disposition']),
          ]),
          content: {
            'application/json': { schema: { $ref: `${COMPONENT_REF}${opts.responseRef}` } },
            ...(csv === undefined ? {} : { 'text/csv': { schema: { type: 'string' } } }),
          },
        },
        '304': {
          description:
            'Not modified: the precondition matched, your copy is current. No body; not counted against the rate ' +
            'windows (the rate limit headers show them after the give-back).',
          headers: headerRefs(['X-Request-Id', ...RATE_LIMIT_HEADER_NAMES, ...VALIDATOR_HEADERS]),
        },
        ...errorResponses([...opts.errors, 'not_acceptable', ...COMMON_ERRORS], true),
      },
    },
  };
}

/**
 * GET /bulk/{file}: a file's bytes (not JSON), whole or one byte range, with the file's sha256 as
 * its strong ETag; refused 403 to plans the manifest does not list for it.
 */
const bulkFileOperation: JsonObject = {
  get: {
    operationId: 'getBulkFile',
    summary: 'Download a bulk file',
    'x-codeSamples': [
      {
        lang: 'Shell',
        label: 'curl',
        // -C - resumes an interrupted download with a Range request.
        source:
          'curl -C - -o price.recent.parquet -H "Authorization: Bearer $CDS_API_KEY" ' +
          '"$CDS_BASE_URL/bulk/price.recent.parquet"\n' +
          'python -c "import pandas; print(pandas.read_parquet(\'price.recent.parquet\'))"',
      },
    ],
    description:
      'One file of GET /bulk, as gzipped CSV (application/gzip) or Parquet (application/vnd.apache.parquet). ' +
      'The ETag is the sha256 of the manifest (strong); If-None-Match / If-Modified-Since get a 304. One byte ' +
      'range (`Range: bytes=first-last`, `first-`, or `-suffix`) is answered 206 with Content-Range, and ' +
      'If-Range with the ETag resumes a download only when the file is unchanged. A plan the manifest does not ' +
      'list for the file gets 403 (Free: only the `recent` files, no COT; Professional: no disaggregated COT). ' +
      'Counted as one request against the rate windows, whatever its size.',
    tags: ['bulk'],
    parameters: [
      {
        name: 'file',
        in: 'path',
        required: true,
        description: 'A file name from GET /bulk: `<dataset>.<full|recent>.<csv.gz|parquet>`.',
        schema: schemaOf(BulkFileParams.shape.file),
      },
      {
        name: 'Range',
        in: 'header',
        required: false,
        description:
          'One byte range, `bytes=first-last`, `bytes=first-` or `bytes=-suffix`; several ranges get the whole file.',
        schema: { type: 'string' },
      },
      {
        name: 'If-Range',
        in: 'header',
        required: false,
        description:
          'The ETag of the copy a range continues: when the file changed since, the whole file is sent (200).',
        schema: { type: 'string' },
      },
      ...conditionalParameters,
    ],
    responses: {
      '200': {
        description: 'The whole file.',
        headers: headerRefs([
          'X-Request-Id',
          ...RATE_LIMIT_HEADER_NAMES,
          ...VALIDATOR_HEADERS.filter((h) => h !== 'Vary'),
          'Content-Disposition',
          'Accept-Ranges',
        ]),
        content: Object.fromEntries(
          Object.values(BULK_MEDIA_TYPES).map((type) => [
            type,
            { schema: { type: 'string', format: 'binary', contentMediaType: type } },
          ]),
        ),
      },
      '206': {
        description: 'The byte range asked for.',
        headers: headerRefs([
          'X-Request-Id',
          ...RATE_LIMIT_HEADER_NAMES,
          ...VALIDATOR_HEADERS.filter((h) => h !== 'Vary'),
          'Content-Disposition',
          'Accept-Ranges',
          'Content-Range',
        ]),
        content: Object.fromEntries(
          Object.values(BULK_MEDIA_TYPES).map((type) => [
            type,
            { schema: { type: 'string', format: 'binary', contentMediaType: type } },
          ]),
        ),
      },
      '304': {
        description: 'Not modified: your copy is current. Not counted against the rate windows.',
        headers: headerRefs([
          'X-Request-Id',
          ...RATE_LIMIT_HEADER_NAMES,
          ...VALIDATOR_HEADERS.filter((h) => h !== 'Vary'),
        ]),
      },
      ...errorResponses(
        ['invalid_parameter', 'forbidden', 'not_found', 'range_not_satisfiable', ...COMMON_ERRORS],
        true,
      ),
    },
  },
};

/**
 * GET /status: public (no key, `security: []`), never counted against a rate window, answered
 * from the gateway's memory; so none of the key or window errors apply.
 */
const statusOperation: JsonObject = {
  get: {
    operationId: 'getStatus',
    summary: 'Source freshness',
    description:
      'Per official source (CFTC, EIA, NASS): the last successful sync, the newest data date, the last release ' +
      'that should be in by now and the next scheduled one (America/New_York, federal holiday shifts included), ' +
      'and whether the source is late. Public: no API key, not counted against any rate window; cacheable for 60 s.',
    tags: ['status'],
    security: [],
    parameters: [],
    responses: {
      '200': {
        description: 'OK',
        headers: headerRefs(['X-Request-Id', 'Cache-Control']),
        content: { 'application/json': { schema: { $ref: `${COMPONENT_REF}StatusResponse` } } },
      },
      ...errorResponses(['payload_too_large', 'uri_too_long', 'internal_error', 'service_unavailable'], false),
    },
  },
};

const streamLimits = Object.entries(SSE_STREAMS_PER_PLAN)
  .map(([plan, n]) => `${plan} ${n}`)
  .join(', ');

/**
 * GET /events: server-sent change notifications. The 200 is a stream that does not end by itself,
 * so the operation describes its events in words; each `data:` is a `Notification` (components).
 */
const eventsOperation: JsonObject = {
  get: {
    operationId: 'streamEvents',
    summary: 'Change notifications (server-sent events)',
    description:
      'A `text/event-stream` that tells you when data changed: one event each time new series points or COT ' +
      'reports become readable through the API, filtered by `commodities` and `types`. Opening a stream counts as ' +
      'one request against the rate windows. Concurrent streams per account are limited by plan (' +
      `${streamLimits}); one more is 429. After the headers: \`retry: 3000\`, then events and a \`: keep-alive\` ` +
      'comment every 15 s. Each event is `id: <id>`, `event: series.updated` or `cot.updated`, `data: <Notification ' +
      'JSON>` (components: Notification). Reconnect with `Last-Event-ID: <the last id you received>` (or ' +
      '`last_event_id`) to receive every change after it that the server still keeps (the last 7 days at most); ' +
      'when it no longer keeps all of them the stream starts with `event: resync` (refetch what you follow). The ' +
      'server ends a stream with a final `event: error` whose data is the error body: `unauthorized` (the key was ' +
      'revoked), `forbidden` (the plan changed and no longer reads a COT format you asked for), `rate_limited` ' +
      '(the plan changed and allows fewer streams: the newest end) or `slow_consumer` (the client read too slowly: ' +
      'reconnect with Last-Event-ID).',
    tags: ['notifications'],
    parameters: [
      ...queryParameters(EventsQuery),
      {
        name: 'Last-Event-ID',
        in: 'header',
        required: false,
        description:
          'The id of the last event you received: the stream starts with the changes after it. A value that is not ' +
          'a non-negative integer is a 400. Wins over `last_event_id`.',
        schema: { type: 'string', pattern: '^(0|[1-9][0-9]{0,14})$' },
      },
    ],
    responses: {
      '200': {
        description:
          'The event stream (never a JSON body). Events: `series.updated` and `cot.updated` (data: Notification), ' +
          '`resync` (data: `{message, last_event_id}`), and a final `error` (data: ErrorBody) when the server ends ' +
          'the stream.',
        headers: {
          ...headerRefs(['X-Request-Id', ...RATE_LIMIT_HEADER_NAMES, 'Cache-Control']),
          'X-Accel-Buffering': {
            description: '`no`: proxies must pass each event on at once.',
            schema: { type: 'string' },
          },
        },
        content: {
          'text/event-stream': {
            schema: { type: 'string' },
            example:
              'retry: 3000\n\nid: 1042\nevent: series.updated\ndata: {"id":"evt_…","type":"series.updated","data":{…}}\n\n',
          },
        },
      },
      ...errorResponses(['invalid_parameter', 'forbidden', ...COMMON_ERRORS], true),
    },
  },
};

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The document's introduction, in CommonMark: the API reference at /docs (Scalar) shows each `##`
 * section as an entry of its sidebar, so authentication, rate limits and errors are found there.
 */
const INFO_DESCRIPTION = [
  'A read-only REST API over free government commodity data: a commodity catalog, time series ' +
    '(prices, volume, open interest, fundamentals) and CFTC Commitments of Traders reports.',
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
    paths: {
      '/commodities': operation({
        operationId: 'listCommodities',
        summary: 'List commodities',
        description: 'Commodities sorted by id, filtered by category and by a literal search on name or symbol.',
        tag: 'catalog',
        parameters: queryParameters(ListCommoditiesQuery),
        responseRef: 'CommodityListResponse',
        errors: ['invalid_parameter'],
        csv: 'id, name, symbol, category, exchange, unit (file name `commodities[-<category>][-page-<n>].csv`)',
        samples: {
          path: '/commodities?category=energy',
          python: 'for c in client.commodities(category="energy"):  # every page\n    print(c.id, c.name)',
          typescript:
            "for await (const c of client.commodities({ category: 'energy' })) console.log(c.id, c.name); // every page",
        },
      }),
      '/commodities/{slug}': operation({
        operationId: 'getCommodity',
        summary: 'Get a commodity',
        description: 'A commodity with contract details and every series it offers, with their date ranges.',
        tag: 'catalog',
        parameters: [slugParameter],
        responseRef: 'CommodityDetailResponse',
        errors: ['invalid_parameter', 'not_found'],
        samples: {
          path: '/commodities/CORN',
          python:
            'corn = client.commodity("CORN").data\nprint(corn.name, [str(s.type_) for s in corn.available_series])',
          typescript:
            "const { data: corn } = await client.commodity('CORN');\nconsole.log(corn.name, corn.available_series.map((s) => s.type));",
        },
      }),
      '/commodities/{slug}/series': operation({
        operationId: 'getSeries',
        summary: 'Get a time series',
        description:
          'Points of one series in a date range, optionally resampled to a coarser frequency and transformed. ' +
          'Each point says when it was published (published_at, first_seen_at); as_of answers with what had been ' +
          'published at an instant, first_release=true with the first published versions, include=revisions with ' +
          'the earlier versions (docs/point-in-time.md). Free-tier keys can read the last 12 months.',
        tag: 'series',
        parameters: [slugParameter, ...queryParameters(SeriesQuery)],
        responseRef: 'SeriesResponse',
        errors: ['invalid_parameter', 'historical_limit', 'not_found'],
        csv:
          'date, value, and for an untransformed price series open, high, low, close, volume (file name ' +
          '`<slug>-series-<type>[-<frequency>][-<transform>]-<start>_<end>.csv`)',
        samples: {
          path: '/commodities/CRUDE_OIL_WTI/series?type=price&frequency=monthly&start_date=2022-01-01',
          python:
            'wti = client.series("CRUDE_OIL_WTI", type="price", frequency="monthly", start_date="2022-01-01")\n' +
            'print(wti.to_pandas())  # pip install "commodity-data[pandas]"',
          typescript:
            "const wti = await client.series('CRUDE_OIL_WTI', { type: 'price', frequency: 'monthly', start_date: '2022-01-01' });\n" +
            'for (const p of wti.data) console.log(p.date, p.value);',
        },
      }),
      '/commodities/{slug}/cot': operation({
        operationId: 'getCotReports',
        summary: 'Get positioning (COT) reports',
        description:
          'Commitments of Traders reports, newest first by default. Each report says when it was published ' +
          "(published_at: the Friday 15:30 New York release, holiday shifts included, or the source's time); " +
          'as_of answers with the reports published by an instant (docs/point-in-time.md). Legacy needs ' +
          'Professional or above; disaggregated needs Business or above.',
        tag: 'positioning',
        parameters: [slugParameter, ...queryParameters(CotQuery)],
        responseRef: 'CotResponse',
        errors: ['invalid_parameter', 'forbidden', 'not_found'],
        csv:
          'report_date, commodity, format, exchange, open_interest, each trader group flattened (`<group>_long`, ' +
          '`<group>_short`, `<group>_spreading` where the group has it, `<group>_net`), the included analytics ' +
          '(`changes_open_interest`, `changes_<group>_<field>`, `pct_of_oi_<group>_<field>`, `cot_index_<group>`), ' +
          'then source, last_updated (file name `<slug>-cot-<format>[-<start>_<end>][-page-<n>].csv`)',
        samples: {
          path: '/commodities/CORN/cot?include=changes,cot_index&per_page=10',
          python:
            'reports = client.cot("CORN", include="changes,cot_index", per_page=10)\n' +
            'print(reports.to_pandas())  # every page, newest first',
          typescript:
            "for await (const r of client.cot('CORN', { include: 'changes,cot_index', per_page: 10 })) {\n" +
            '  console.log(r.report_date, r.non_commercial.net);\n}',
        },
      }),
      '/bulk': operation({
        operationId: 'listBulkFiles',
        summary: 'List bulk files',
        description:
          'Every bulk file with its manifest: rows, bytes, sha256, date range, when it was generated, the licence ' +
          'and attribution of its sources, and the plans that may download it. Files are regenerated after each ' +
          'sync; a dataset without data has no file.',
        tag: 'bulk',
        parameters: [],
        responseRef: 'BulkListResponse',
        errors: ['invalid_parameter'],
        samples: {
          path: '/bulk',
          python: 'for f in client.bulk_files().data:\n    print(f.file, f.rows, f.sha256)',
          typescript: 'for (const f of (await client.bulkFiles()).data) console.log(f.file, f.rows, f.sha256);',
        },
      }),
      '/bulk/{file}': bulkFileOperation,
      '/events': eventsOperation,
      '/status': statusOperation,
    },
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
