import type { z } from 'zod';
import { API_PREFIX } from './api-prefix.ts';
import { BULK_MEDIA_TYPES, BulkFileParams, BulkListResponse } from './bulk.ts';
import type { ErrorCode } from './errors.ts';
import { EventsQuery, SSE_STREAMS_PER_PLAN } from './notifications.ts';
import { CommodityDetailQuery, CommodityPathParams, CotQuery, ListCommoditiesQuery, SeriesQuery } from './params.ts';
import { CommodityDetailResponse, CommodityListResponse, CotResponse, SeriesResponse } from './resources.ts';
import { ServerSentEvent } from './server-sent-event.ts';
import { SYNC_SOURCE_NAMES } from './sources.ts';
import { DATASETS, DatasetsResponse, ReleasesQuery, ReleasesResponse } from './datasets.ts';
import { StatusResponse } from './status.ts';
import { SupplyDemandQuery, SupplyDemandResponse } from './supply-demand.ts';

export { API_PREFIX };

/** One call of an operation with the Python client and with the TypeScript client (and curl, from `path`). */
export interface RouteSamples {
  /** The path and query string after the API prefix, e.g. `/commodities?category=energy`. */
  path: string;
  python: string;
  typescript: string;
}

/** A header the operation reads besides the conditional-GET preconditions. */
export interface RouteHeader {
  name: string;
  description: string;
  pattern?: string;
}

/**
 * What a 200 carries: a JSON body (and CSV with `Accept: text/csv` when `csv` says its columns), a
 * file's bytes (whole or one range), or a server-sent event stream whose events are `event`.
 */
export type RouteBody =
  | { kind: 'json'; schema: z.ZodType; csv?: string }
  | { kind: 'file'; mediaTypes: readonly string[] }
  | { kind: 'events'; event: z.ZodType; description: string; example: string };

/**
 * One public endpoint, declared once: the query service registers it (params, query string and
 * response schema), the gateway routes it and applies its plan rule, the OpenAPI document maps it,
 * and the test helpers read its path template from it.
 */
export interface PublicRoute {
  name: string;
  /** The fastify path (`:slug`); the OpenAPI template is its `{slug}` form after the prefix (openApiPath). */
  path: string;
  /** Who answers: the query service (the gateway forwards to it) or the gateway itself. */
  servedBy: 'query' | 'gateway';
  /** `public`: no key, never counted (`security: []`). */
  auth: 'key' | 'public';
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /** Path parameters (zod, one member per `:name`) and what each is, for the document. */
  params?: z.ZodObject;
  paramDescriptions?: Readonly<Record<string, string>>;
  /** The query string (zod; strict: any other name is a 400). */
  query?: z.ZodObject;
  headers?: readonly RouteHeader[];
  /** Whether If-None-Match / If-Modified-Since are answered 304. */
  conditional: boolean;
  body: RouteBody;
  /** The route's own error codes (every keyed route also has the common ones, openapi.ts). */
  errors: readonly ErrorCode[];
  /** x-codeSamples: curl with `path`, and the clients in clients/; or shell lines of its own (`shell`). */
  samples?: RouteSamples | { shell: string };
}

const slugParam = {
  params: CommodityPathParams,
  paramDescriptions: { slug: 'Commodity identifier (UPPER_SNAKE_CASE), for example GOLD.' },
};

const streamLimits = Object.entries(SSE_STREAMS_PER_PLAN)
  .map(([plan, n]) => `${plan} ${n}`)
  .join(', ');

/** Every public endpoint, in the order of the document. */
export const PUBLIC_ROUTES = [
  {
    name: 'list',
    path: `${API_PREFIX}/commodities`,
    servedBy: 'query',
    auth: 'key',
    operationId: 'listCommodities',
    summary: 'List commodities',
    description: 'Commodities sorted by id, filtered by category and by a literal search on name or symbol.',
    tag: 'catalog',
    query: ListCommoditiesQuery,
    conditional: true,
    body: {
      kind: 'json',
      schema: CommodityListResponse,
      csv: 'id, name, symbol, category, exchange, unit (file name `commodities[-<category>][-page-<n>].csv`)',
    },
    errors: ['invalid_parameter'],
    samples: {
      path: '/commodities?category=energy',
      python: 'for c in client.commodities(category="energy"):  # every page\n    print(c.id, c.name)',
      typescript:
        "for await (const c of client.commodities({ category: 'energy' })) console.log(c.id, c.name); // every page",
    },
  },
  {
    name: 'detail',
    path: `${API_PREFIX}/commodities/:slug`,
    servedBy: 'query',
    auth: 'key',
    operationId: 'getCommodity',
    summary: 'Get a commodity',
    description: 'A commodity with contract details and every series it offers, with their date ranges.',
    tag: 'catalog',
    ...slugParam,
    query: CommodityDetailQuery,
    conditional: true,
    body: { kind: 'json', schema: CommodityDetailResponse },
    errors: ['invalid_parameter', 'not_found'],
    samples: {
      path: '/commodities/CORN',
      python: 'corn = client.commodity("CORN").data\nprint(corn.name, [str(s.type_) for s in corn.available_series])',
      typescript:
        "const { data: corn } = await client.commodity('CORN');\nconsole.log(corn.name, corn.available_series.map((s) => s.type));",
    },
  },
  {
    name: 'series',
    path: `${API_PREFIX}/commodities/:slug/series`,
    servedBy: 'query',
    auth: 'key',
    operationId: 'getSeries',
    summary: 'Get a time series',
    description:
      'Points of one series in a date range, optionally resampled to a coarser frequency and transformed. ' +
      'Each point says when it was published (published_at, first_seen_at); as_of answers with what had been ' +
      'published at an instant, first_release=true with the first published versions, include=revisions with ' +
      'the earlier versions (docs/point-in-time.md). Free-tier keys can read the last 12 months.',
    tag: 'series',
    ...slugParam,
    query: SeriesQuery,
    conditional: true,
    body: {
      kind: 'json',
      schema: SeriesResponse,
      csv:
        'date, value, and for an untransformed price series open, high, low, close, volume (file name ' +
        '`<slug>-series-<type>[-<frequency>][-<transform>]-<start>_<end>.csv`)',
    },
    errors: ['invalid_parameter', 'historical_limit', 'not_found'],
    samples: {
      path: '/commodities/CRUDE_OIL_WTI/series?type=price&frequency=monthly&start_date=2022-01-01',
      python:
        'wti = client.series("CRUDE_OIL_WTI", type="price", frequency="monthly", start_date="2022-01-01")\n' +
        'print(wti.to_pandas())  # pip install "commodity-data[pandas]"',
      typescript:
        "const wti = await client.series('CRUDE_OIL_WTI', { type: 'price', frequency: 'monthly', start_date: '2022-01-01' });\n" +
        'for (const p of wti.data) console.log(p.date, p.value);',
    },
  },
  {
    name: 'cot',
    path: `${API_PREFIX}/commodities/:slug/cot`,
    servedBy: 'query',
    auth: 'key',
    operationId: 'getCotReports',
    summary: 'Get positioning (COT) reports',
    description:
      'Commitments of Traders reports, newest first by default. Each report says when it was published ' +
      "(published_at: the Friday 15:30 New York release, holiday shifts included, or the source's time); " +
      'as_of answers with the reports published by an instant (docs/point-in-time.md). scope chooses futures-only ' +
      '(the default) or futures-and-options combined reports, never mixed; format=cit serves the Commodity Index ' +
      'Trader supplement (combined, 13 agricultural markets). A report that failed a consistency check names it in ' +
      'failed_checks and is served as published. Legacy and cit need Professional or above; disaggregated needs ' +
      'Business or above.',
    tag: 'positioning',
    ...slugParam,
    query: CotQuery,
    conditional: true,
    body: {
      kind: 'json',
      schema: CotResponse,
      csv:
        'report_date, commodity, format, scope (in a futures-and-options answer only), exchange, open_interest, each ' +
        'trader group flattened (`<group>_long`, `<group>_short`, `<group>_spreading` where the group has it, ' +
        '`<group>_net`), the included analytics (`changes_open_interest`, `changes_<group>_<field>`, ' +
        '`pct_of_oi_<group>_<field>`, `cot_index_<group>`), then source, last_updated (file name ' +
        '`<slug>-cot-<dataset>[-<start>_<end>][-page-<n>].csv`, the dataset legacy, disaggregated, legacy_combined, ' +
        'disaggregated_combined or cit)',
    },
    errors: ['invalid_parameter', 'forbidden', 'not_found'],
    samples: {
      path: '/commodities/CORN/cot?include=changes,cot_index&per_page=10',
      python:
        'reports = client.cot("CORN", include="changes,cot_index", per_page=10)\n' +
        'print(reports.to_pandas())  # every page, newest first',
      typescript:
        "for await (const r of client.cot('CORN', { include: 'changes,cot_index', per_page: 10 })) {\n" +
        '  console.log(r.report_date, r.non_commercial.net);\n}',
    },
  },
  {
    name: 'supplyDemand',
    path: `${API_PREFIX}/commodities/:slug/supply-demand`,
    servedBy: 'query',
    auth: 'key',
    operationId: 'getSupplyDemand',
    summary: 'Get supply and demand figures (USDA balance sheets)',
    description:
      "The balance sheets of USDA's World Agricultural Supply and Demand Estimates: one figure per region, " +
      'marketing year and attribute, in the unit USDA states, each version published at its edition (12:00 New ' +
      'York on the release date; a corrected re-post at its own time). as_of answers with the editions released ' +
      'by an instant, first_release=true with the first published versions, include=revisions with the earlier ' +
      'ones, view=editions with one figure across every edition and its change (docs/supply-demand.md). Grains ' +
      'carry a derived stocks_to_use (ending stocks / total use). Free-tier keys read the editions of their last ' +
      '12 months: an as_of before them, or a marketing_year whose first year is before the first year of that ' +
      'window minus one, is a 403 historical_limit naming it (docs/decisions.md).',
    tag: 'supply-demand',
    ...slugParam,
    query: SupplyDemandQuery,
    conditional: true,
    body: {
      kind: 'json',
      schema: SupplyDemandResponse,
      csv:
        'marketing_year, region, attribute, value, unit, edition, status, derived, change (view=editions) (file name ' +
        '`<slug>-supply-demand-<region>[-<marketing year>][-<attribute>][-page-<n>].csv`)',
    },
    errors: ['invalid_parameter', 'historical_limit', 'not_found'],
    samples: {
      path: '/commodities/CORN/supply-demand?marketing_year=2026/27&attribute=ending_stocks&view=editions',
      python:
        'sd = client.supply_demand("CORN", marketing_year="2026/27", attribute="ending_stocks", view="editions")\n' +
        'for f in sd.data:\n    print(f.edition, f.value, f.unit, f.change)',
      typescript:
        "const sd = await client.supplyDemand('CORN', { marketing_year: '2026/27', attribute: 'ending_stocks', view: 'editions' });\n" +
        'for (const f of sd.data) console.log(f.edition, f.value, f.unit, f.change);',
    },
  },
  {
    name: 'bulk',
    path: `${API_PREFIX}/bulk`,
    servedBy: 'query',
    auth: 'key',
    operationId: 'listBulkFiles',
    summary: 'List bulk files',
    description:
      'Every bulk file with its manifest: rows, bytes, sha256, date range, when it was generated, the licence ' +
      'and attribution of its sources, and the plans that may download it. Files are regenerated after each ' +
      'sync; a dataset without data has no file.',
    tag: 'bulk',
    query: CommodityDetailQuery,
    conditional: true,
    body: { kind: 'json', schema: BulkListResponse },
    errors: ['invalid_parameter'],
    samples: {
      path: '/bulk',
      python: 'for f in client.bulk_files().data:\n    print(f.file, f.rows, f.sha256)',
      typescript: 'for (const f of (await client.bulkFiles()).data) console.log(f.file, f.rows, f.sha256);',
    },
  },
  {
    name: 'bulkFile',
    path: `${API_PREFIX}/bulk/:file`,
    servedBy: 'query',
    auth: 'key',
    operationId: 'getBulkFile',
    summary: 'Download a bulk file',
    description:
      'One file of GET /bulk, as gzipped CSV (application/gzip) or Parquet (application/vnd.apache.parquet). ' +
      'The ETag is the sha256 of the manifest (strong); If-None-Match / If-Modified-Since get a 304. One byte ' +
      'range (`Range: bytes=first-last`, `first-`, or `-suffix`) is answered 206 with Content-Range, and ' +
      'If-Range with the ETag resumes a download only when the file is unchanged. A plan the manifest does not ' +
      'list for the file gets 403 (Free: only the `recent` files, no COT; Professional: no disaggregated COT). ' +
      'Counted as one request against the rate windows, whatever its size.',
    tag: 'bulk',
    params: BulkFileParams,
    paramDescriptions: { file: 'A file name from GET /bulk: `<dataset>.<full|recent>.<csv.gz|parquet>`.' },
    query: CommodityDetailQuery,
    headers: [
      {
        name: 'Range',
        description:
          'One byte range, `bytes=first-last`, `bytes=first-` or `bytes=-suffix`; several ranges get the whole file.',
      },
      {
        name: 'If-Range',
        description:
          'The ETag of the copy a range continues: when the file changed since, the whole file is sent (200).',
      },
    ],
    conditional: true,
    body: { kind: 'file', mediaTypes: Object.values(BULK_MEDIA_TYPES) },
    errors: ['invalid_parameter', 'forbidden', 'not_found', 'range_not_satisfiable'],
    samples: {
      // -C - resumes an interrupted download with a Range request.
      shell:
        'curl -C - -o price.recent.parquet -H "Authorization: Bearer $CDS_API_KEY" ' +
        '"$CDS_BASE_URL/bulk/price.recent.parquet"\n' +
        'python -c "import pandas; print(pandas.read_parquet(\'price.recent.parquet\'))"',
    },
  },
  {
    name: 'events',
    path: `${API_PREFIX}/events`,
    servedBy: 'gateway',
    auth: 'key',
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
    tag: 'notifications',
    query: EventsQuery,
    headers: [
      {
        name: 'Last-Event-ID',
        description:
          'The id of the last event you received: the stream starts with the changes after it. A value that is not ' +
          'a non-negative integer is a 400. Wins over `last_event_id`.',
        pattern: '^(0|[1-9][0-9]{0,14})$',
      },
    ],
    conditional: false,
    body: {
      kind: 'events',
      event: ServerSentEvent,
      description:
        'The event stream (never a JSON body). Events: `series.updated` and `cot.updated` (data: Notification), ' +
        '`resync` (data: `{message, last_event_id}`), and a final `error` (data: ErrorBody) when the server ends ' +
        'the stream.',
      example:
        'retry: 3000\n\nid: 1042\nevent: series.updated\ndata: {"id":"evt_…","type":"series.updated","data":{…}}\n\n',
    },
    errors: ['invalid_parameter', 'forbidden'],
  },
  {
    name: 'status',
    path: `${API_PREFIX}/status`,
    servedBy: 'gateway',
    auth: 'public',
    operationId: 'getStatus',
    summary: 'Source freshness',
    description:
      `Per official source (${SYNC_SOURCE_NAMES.join(', ')}): the last successful sync, the newest data date, the last release ` +
      'that should be in by now and the next scheduled one (America/New_York, federal holiday shifts included), ' +
      'and whether the source is late. Public: no API key, not counted against any rate window; cacheable for 60 s.',
    tag: 'status',
    conditional: false,
    body: { kind: 'json', schema: StatusResponse },
    errors: [],
  },
  {
    name: 'datasets',
    path: `${API_PREFIX}/datasets`,
    servedBy: 'gateway',
    auth: 'public',
    operationId: 'listDatasets',
    summary: 'Dataset conditions and freshness',
    description:
      `Every dataset (${DATASETS.length}: one source's report kind each) with today's condition, its condition on ` +
      "each of the last 90 days and why, its last and next release against the agency's calendar, and the lag " +
      'from scheduled release to first served, p50 and p95 per month. Also the incidents an operator wrote. ' +
      'Public: no API key, not counted against any rate window; cacheable for 60 s. The status page shows the ' +
      'same; `/datasets/feed` is its Atom feed of changes.',
    tag: 'status',
    conditional: false,
    body: { kind: 'json', schema: DatasetsResponse },
    errors: [],
  },
  {
    name: 'datasetsFeed',
    path: `${API_PREFIX}/datasets/feed`,
    servedBy: 'gateway',
    auth: 'public',
    operationId: 'getDatasetsFeed',
    summary: 'Dataset changes (Atom feed)',
    description:
      'An Atom 1.0 feed (`application/atom+xml`) of the changes a status page reader follows: incidents and their ' +
      'updates, and each day a dataset turned degraded, late or missing (the last 90 days, newest first). Public.',
    tag: 'status',
    conditional: false,
    body: { kind: 'file', mediaTypes: ['application/atom+xml'] },
    errors: [],
  },
  {
    name: 'releases',
    path: `${API_PREFIX}/releases`,
    servedBy: 'gateway',
    auth: 'public',
    operationId: 'listReleases',
    summary: "A dataset's releases against the agency's calendar",
    description:
      'The releases of one dataset between two local dates (America/New_York): scheduled, published, late, ' +
      'missing and cancelled, with the ones a holiday or a shutdown moved marked `shifted` (the Commitments of Traders catch-up ' +
      'after the 2025 shutdown, for example). Each with its scheduled time, when this service first served it, ' +
      'and the lag; `meta.freshness` gives the p50 and p95 lag per month. An unknown dataset, a bad date or a ' +
      'window over 366 days is a 400 naming the parameter. Public: no API key; cacheable for 60 s.',
    tag: 'status',
    query: ReleasesQuery,
    conditional: false,
    body: { kind: 'json', schema: ReleasesResponse },
    errors: ['invalid_parameter'],
  },
] as const satisfies readonly PublicRoute[];

type Routes = (typeof PUBLIC_ROUTES)[number];
/** Every public endpoint's name. */
export type PublicRouteName = Routes['name'];
/** The keyed data endpoints the query service answers (the gateway forwards them). */
export type RouteName = Extract<Routes, { servedBy: 'query' }>['name'];

/** A public route by name. */
export const ROUTES_BY_NAME = Object.fromEntries(PUBLIC_ROUTES.map((r) => [r.name, r])) as {
  readonly [N in PublicRouteName]: Extract<Routes, { name: N }>;
};

/** The four data endpoints and the bulk files' list and download: the routes the query service answers. */
export const ROUTE_NAMES: readonly RouteName[] = PUBLIC_ROUTES.filter(
  (r): r is Extract<Routes, { servedBy: 'query' }> => r.servedBy === 'query',
).map((r) => r.name);

/** A value per query-service route, by name. */
function byRouteName<T>(valueOf: (route: PublicRoute) => T): Readonly<Record<RouteName, T>> {
  const out: Partial<Record<RouteName, T>> = {};
  for (const name of ROUTE_NAMES) out[name] = valueOf(ROUTES_BY_NAME[name]);
  return out as Record<RouteName, T>;
}

/** Their paths as fastify routes (`:slug`), by name. */
export const ROUTE_PATHS: Readonly<Record<RouteName, string>> = byRouteName((route) => route.path);

/** The query parameters each endpoint accepts besides ALWAYS_ALLOWED_QUERY_PARAMS, by name. */
export const QUERY_PARAMS_BY_ROUTE: Readonly<Record<RouteName, readonly string[]>> = byRouteName((route) =>
  Object.keys(route.query?.shape ?? {}),
);

/** The OpenAPI path template of a route: after the prefix, `{name}` for each `:name`. */
export function openApiPath(route: Pick<PublicRoute, 'path'>): string {
  return route.path.slice(API_PREFIX.length).replace(/:([a-z_]+)/g, '{$1}');
}

/** The names of a route's path parameters, in path order. */
export function pathParamNames(route: Pick<PublicRoute, 'path'>): string[] {
  return [...route.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
}

/**
 * The public route a request path (no query string) belongs to, by its shape: each `:name`
 * segment matches one non-empty segment. Undefined when none does.
 */
export function routeOfPath(path: string): PublicRoute | undefined {
  const segments = path.split('/');
  return PUBLIC_ROUTES.find((route: PublicRoute) => {
    const pattern = route.path.split('/');
    return (
      pattern.length === segments.length &&
      pattern.every((p, i) => (p.startsWith(':') ? segments[i] !== '' : p === segments[i]))
    );
  });
}
