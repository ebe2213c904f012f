// The hand-written layer over openapi-fetch and the types generated from the OpenAPI document:
// environment defaults, pagination, typed errors, Retry-After on 429, deadlines.
import createClient, { type Client as FetchClient } from 'openapi-fetch';
import { ApiConnectionError, ApiError, errorFromResponse, retryAfterOf } from './errors.ts';
import type { components, paths } from './generated/schema.ts';

type Schemas = components['schemas'];
export type CommoditySummary = Schemas['CommoditySummary'];
export type CommodityDetail = Schemas['CommodityDetail'];
export type CommodityDetailResponse = Schemas['CommodityDetailResponse'];
export type CommodityListResponse = Schemas['CommodityListResponse'];
export type SeriesResponse = Schemas['SeriesResponse'];
export type TimeSeriesPoint = Schemas['TimeSeriesPoint'];
export type SeriesMeta = Schemas['SeriesMeta'];
export type Conversion = Schemas['Conversion'];
export type SeriesType = Schemas['SeriesType'];
export type CotResponse = Schemas['CotResponse'];
export type CotReport = Schemas['CotReport'];
export type LegacyCotReport = Schemas['LegacyCotReport'];
export type DisaggregatedCotReport = Schemas['DisaggregatedCotReport'];
export type CitCotReport = Schemas['CitCotReport'];
export type PaginationMeta = Schemas['PaginationMeta'];
export type StatusResponse = Schemas['StatusResponse'];
export type BulkListResponse = Schemas['BulkListResponse'];
export type DatasetsResponse = Schemas['DatasetsResponse'];
export type ReleasesResponse = Schemas['ReleasesResponse'];
export type SupplyDemandResponse = Schemas['SupplyDemandResponse'];
export type SupplyDemandFigure = Schemas['SupplyDemandFigure'];
export type SupplyDemandMeta = Schemas['SupplyDemandMeta'];

/** What `npm start` serves; CDS_BASE_URL overrides it. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080/api/v1';
const API_PREFIX = '/api/v1';
const VERSION = '0.1.0';

/**
 * A query parameter the generated types do not know yet (`as_of`, ...): passed on as it is, so a
 * parameter the API adds works before the client is regenerated.
 */
export type ExtraParams = Record<string, string | number | boolean | undefined>;
type Query<P extends keyof paths> = NonNullable<paths[P]['get']['parameters']['query']>;
export type CommoditiesParams = Omit<Query<'/commodities'>, 'page'> & ExtraParams;
export type SeriesParams = Query<'/commodities/{slug}/series'> & ExtraParams;
export type CotParams = Omit<Query<'/commodities/{slug}/cot'>, 'page' | 'format'> & ExtraParams;
export type SupplyDemandParams = Omit<Query<'/commodities/{slug}/supply-demand'>, 'page'> & ExtraParams;

export interface ClientOptions {
  /** The API key; default the CDS_API_KEY environment variable. */
  apiKey?: string;
  /** The API root (`http://127.0.0.1:8080/api/v1`); default CDS_BASE_URL, then that. An origin gets `/api/v1`. */
  baseUrl?: string;
  /** Milliseconds each HTTP request may take, its body included. Default 30 000. */
  timeoutMs?: number;
  /** How many times a 429 is retried after its Retry-After. Default 3. */
  maxRetries?: number;
  /** The longest Retry-After waited (seconds); a longer one (the daily window) is thrown at once. Default 60. */
  maxRetryWaitSeconds?: number;
  /** Milliseconds one method call may take in all, retries and waits included. Default 180 000. */
  deadlineMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof globalThis.fetch;
  /**
   * Send the key over plain `http://` to another machine. Refused by default: only loopback hosts
   * (`localhost`, 127.0.0.0/8, `::1`) are reached over http. Default the CDS_ALLOW_INSECURE_HTTP
   * environment variable (`1`).
   */
  allowInsecureHttp?: boolean;
}

const environment = (): Record<string, string | undefined> =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};

/** localhost, 127.0.0.0/8 or ::1 (a URL's hostname: lower case, IPv4 normalized, IPv6 in brackets). */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/\.$/, '');
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function apiRoot(url: string, allowInsecureHttp: boolean): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`baseUrl must be an http(s) URL such as ${DEFAULT_BASE_URL}, not ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http(s) URL such as ${DEFAULT_BASE_URL}, not ${JSON.stringify(url)}`);
  }
  if (parsed.protocol === 'http:' && !allowInsecureHttp && !isLoopback(parsed.hostname)) {
    throw new TypeError(
      `baseUrl ${parsed.origin} is plain http to another machine: the API key would travel in clear. ` +
        'Use https://, or pass allowInsecureHttp: true (or set CDS_ALLOW_INSECURE_HTTP=1) when the network in between is trusted',
    );
  }
  const path = parsed.pathname.replace(/\/+$/, '');
  return `${parsed.origin}${path || API_PREFIX}`;
}

/** What replaces the key in a message, were it ever to appear in one. */
const REDACTED = '[REDACTED]';

/** One page of a list endpoint. */
interface Page<T> {
  data: T[];
  meta: PaginationMeta;
}

/**
 * Every item of a list endpoint across its pages, fetched lazily one page at a time: iterate it
 * with `for await`, or `first()` (one request), `total()`, `toArray()`, `pages()`.
 */
export class Pager<T> implements AsyncIterable<T> {
  readonly #fetchPage: (page: number) => Promise<Page<T>>;
  readonly #start: number;
  #first: Promise<Page<T>> | undefined;

  constructor(fetchPage: (page: number) => Promise<Page<T>>, start = 1) {
    this.#fetchPage = fetchPage;
    this.#start = start;
  }

  #firstPage(): Promise<Page<T>> {
    this.#first ??= this.#fetchPage(this.#start);
    return this.#first;
  }

  async *pages(): AsyncGenerator<Page<T>> {
    let number = this.#start;
    let page = await this.#firstPage();
    for (;;) {
      yield page;
      // Past the last page the API answers 200 with no data: either ends the walk.
      if (page.data.length === 0 || number >= page.meta.total_pages) return;
      number += 1;
      page = await this.#fetchPage(number);
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** The first item (one request), or undefined when there is none. */
  async first(): Promise<T | undefined> {
    return (await this.#firstPage()).data[0];
  }

  /** How many items match over all pages (the first page's meta.total). */
  async total(): Promise<number> {
    return (await this.#firstPage()).meta.total;
  }

  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) all.push(item);
    return all;
  }
}

/**
 * Supply and demand figures across pages: iterate them with `for await` (or `first()`, `total()`,
 * `pages()`) as any Pager, or `await` it for `{ data, meta }`: every figure of every page (read
 * once) and the first page's meta (region, view, total, attribution).
 */
export class SupplyDemandPager
  extends Pager<SupplyDemandFigure>
  implements PromiseLike<{ data: SupplyDemandFigure[]; meta: SupplyDemandMeta }>
{
  #all: Promise<{ data: SupplyDemandFigure[]; meta: SupplyDemandMeta }> | undefined;

  /** Every figure of every page and the first page's meta (one walk over the pages, kept). */
  all(): Promise<{ data: SupplyDemandFigure[]; meta: SupplyDemandMeta }> {
    this.#all ??= (async () => {
      const data: SupplyDemandFigure[] = [];
      let meta: SupplyDemandMeta | undefined;
      for await (const page of this.pages()) {
        meta ??= page.meta as SupplyDemandMeta;
        data.push(...page.data);
      }
      return { data, meta: meta! };
    })();
    return this.#all;
  }

  then<A = { data: SupplyDemandFigure[]; meta: SupplyDemandMeta }, B = never>(
    onfulfilled?: ((value: { data: SupplyDemandFigure[]; meta: SupplyDemandMeta }) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.all().then(onfulfilled, onrejected);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The Commodity Data Service API. Every method takes the API's query parameters, and passes others on.
 * The key is never shown: it lives in a private field, and util.inspect / console.log, JSON.stringify
 * and every error message leave it out.
 */
export class Client {
  readonly baseUrl: string;
  /** The openapi-fetch client typed by the generated `paths`, for what this layer does not cover. */
  readonly lowlevel: FetchClient<paths>;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #maxRetryWaitSeconds: number;
  readonly #deadlineMs: number;
  readonly #fetch: typeof globalThis.fetch;
  readonly #key: string;

  constructor(options: ClientOptions = {}) {
    const env = environment();
    const key = options.apiKey ?? env.CDS_API_KEY ?? '';
    if (key === '') throw new TypeError('no API key: pass new Client({ apiKey }) or set CDS_API_KEY');
    // Printable ASCII without spaces, as every key is: anything else could not travel in a header,
    // and the Headers class's complaint would quote it. This message never does.
    if (!/^[\x21-\x7e]+$/.test(key)) {
      throw new TypeError('the API key has characters an API key never has (spaces, line breaks, non-ASCII): check it');
    }
    this.#key = key;
    const insecure = options.allowInsecureHttp ?? ['1', 'true'].includes(env.CDS_ALLOW_INSECURE_HTTP ?? '');
    this.baseUrl = apiRoot(options.baseUrl ?? (env.CDS_BASE_URL || DEFAULT_BASE_URL), insecure);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxRetries = options.maxRetries ?? 3;
    this.#maxRetryWaitSeconds = options.maxRetryWaitSeconds ?? 60;
    this.#deadlineMs = options.deadlineMs ?? 180_000;
    if (!(this.#timeoutMs > 0 && this.#deadlineMs > 0 && this.#maxRetries >= 0 && this.#maxRetryWaitSeconds >= 0)) {
      throw new TypeError('timeoutMs and deadlineMs must be positive, maxRetries and maxRetryWaitSeconds not negative');
    }
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.lowlevel = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
      fetch: (request) => this.#send(request),
    });
  }

  /** What console.log and util.inspect show: the address, never the key. */
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `Client { baseUrl: ${JSON.stringify(this.baseUrl)} }`;
  }

  /** What JSON.stringify writes: the address, never the key. */
  toJSON(): { baseUrl: string } {
    return { baseUrl: this.baseUrl };
  }

  /** Every commodity of the catalog (filtered), across pages. */
  commodities(params: CommoditiesParams = {}, startPage = 1): Pager<CommoditySummary> {
    const query = { per_page: 100, ...params };
    return new Pager(
      (page) =>
        this.#call(
          this.lowlevel.GET('/commodities', { params: { query: { ...query, page } } }),
        ) as Promise<CommodityListResponse>,
      startPage,
    );
  }

  /** One commodity and every series it offers (`data.available_series`). */
  commodity(slug: string, params: ExtraParams = {}): Promise<CommodityDetailResponse> {
    return this.#call(
      this.lowlevel.GET('/commodities/{slug}', { params: { path: { slug }, query: params as never } }),
    ) as Promise<CommodityDetailResponse>;
  }

  /**
   * A time series (default: the last year). `currency: 'EUR'` converts a price with the exchange
   * rate of each point's own date (or the average of its week's or month's rates), `unit: 't'` to
   * another measure (or a price unit, `'USc/bu'`, `'EUR/t'`): `meta.unit` is then the unit served,
   * `meta.conversion` the working, and a point without a rate has `value: null` (its `fx_rate` says
   * the rate of the others). An unknown currency or a unit that does not fit is a BadRequestError
   * naming it (docs/conversion.md).
   */
  series(slug: string, params: SeriesParams): Promise<SeriesResponse> {
    return this.#call(
      this.lowlevel.GET('/commodities/{slug}/series', { params: { path: { slug }, query: params } }),
    ) as Promise<SeriesResponse>;
  }

  /** The newest point of a series however old (two requests), or undefined when there is no such series. */
  async latest(
    slug: string,
    params: { type: SeriesType } & Omit<SeriesParams, 'start_date' | 'end_date'>,
  ): Promise<TimeSeriesPoint | undefined> {
    const detail = await this.commodity(slug);
    const newest = detail.data.available_series?.find((s) => s.type === params.type)?.last_date;
    if (newest === undefined) return undefined;
    const series = await this.series(slug, { ...params, start_date: newest, end_date: newest });
    return series.data.at(-1);
  }

  /**
   * COT reports (newest first by default) across pages; the report type follows `format` (`cit`: the
   * Commodity Index Trader supplement). `scope` is `futures_only` (default) or `futures_and_options`
   * (the combined reports; cit's only scope); each report names its scope.
   */
  cot(slug: string, params?: CotParams & { format?: 'legacy' }, startPage?: number): Pager<LegacyCotReport>;
  cot(slug: string, params: CotParams & { format: 'disaggregated' }, startPage?: number): Pager<DisaggregatedCotReport>;
  cot(slug: string, params: CotParams & { format: 'cit' }, startPage?: number): Pager<CitCotReport>;
  cot(
    slug: string,
    params: CotParams & { format?: 'legacy' | 'disaggregated' | 'cit' } = {},
    startPage = 1,
  ): Pager<CotReport> {
    const query = { per_page: 100, ...params };
    return new Pager(
      (page) =>
        this.#call(
          this.lowlevel.GET('/commodities/{slug}/cot', { params: { path: { slug }, query: { ...query, page } } }),
        ) as Promise<CotResponse>,
      startPage,
    );
  }

  /**
   * Supply and demand (WASDE) figures across pages, each with its unit as USDA states it: `region`
   * (`united_states` by default, `world`, a country or group), `marketing_year` (`2026/27`),
   * `attribute` (`ending_stocks`, the derived `stocks_to_use`), `view: 'editions'` (one figure across
   * every edition, with its change), `as_of`, `first_release`, `include: 'revisions'`. Iterate it, or
   * `await` it for `{ data, meta }` (docs/supply-demand.md).
   */
  supplyDemand(slug: string, params: SupplyDemandParams = {}, startPage = 1): SupplyDemandPager {
    const query = { per_page: 100, ...params };
    return new SupplyDemandPager(
      (page) =>
        this.#call(
          this.lowlevel.GET('/commodities/{slug}/supply-demand', {
            params: { path: { slug }, query: { ...query, page } },
          }),
        ) as Promise<SupplyDemandResponse>,
      startPage,
    );
  }

  /** Where each source stands. */
  status(): Promise<StatusResponse> {
    return this.#call(this.lowlevel.GET('/status')) as Promise<StatusResponse>;
  }

  /** Every dataset with its condition over the last 90 days, its last and next release, its lag per month, and the incidents. */
  datasets(): Promise<DatasetsResponse> {
    return this.#call(this.lowlevel.GET('/datasets')) as Promise<DatasetsResponse>;
  }

  /**
   * One page of a dataset's releases against the agency's calendar (`status: 'shifted'` for the ones
   * a holiday or a shutdown moved), with `meta.freshness`: the p50 and p95 lag per month.
   */
  releases(params: Query<'/releases'> & ExtraParams): Promise<ReleasesResponse> {
    return this.#call(this.lowlevel.GET('/releases', { params: { query: params } })) as Promise<ReleasesResponse>;
  }

  /** The bulk files and their manifests (`data`: file, format, rows, sha256, plans, ...). */
  bulkFiles(): Promise<BulkListResponse> {
    return this.#call(this.lowlevel.GET('/bulk')) as Promise<BulkListResponse>;
  }

  /** The data of an answer, or its typed error; a failure to get one is an ApiConnectionError. */
  async #call(pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<unknown> {
    try {
      return await this.#settle(pending);
    } catch (err) {
      throw this.#scrub(err);
    }
  }

  /** The error with the key cut out of its message (were an answer ever to quote it). */
  #scrub(err: unknown): unknown {
    if (err instanceof Error && err.message.includes(this.#key)) {
      err.message = err.message.replaceAll(this.#key, REDACTED);
      if (err.stack !== undefined) err.stack = err.stack.replaceAll(this.#key, REDACTED);
    }
    return err;
  }

  async #settle(pending: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<unknown> {
    let result: { data?: unknown; error?: unknown; response: Response };
    try {
      result = await pending;
    } catch (err) {
      if (err instanceof ApiError || err instanceof ApiConnectionError) throw err;
      // A timeout while the body streamed in, a reset connection, an unreadable JSON body.
      throw new ApiConnectionError(`no complete answer: ${err instanceof Error ? err.message : String(err)}`, {
        cause: err,
      });
    }
    if (!result.response.ok) {
      throw errorFromResponse(result.response, result.error, typeof result.error === 'string' ? result.error : '');
    }
    return result.data;
  }

  /** One request with its timeout, retried after Retry-After on 429, within the call's deadline. */
  async #send(request: Request): Promise<Response> {
    const ends = Date.now() + this.#deadlineMs;
    for (let attempt = 0; ; attempt += 1) {
      const left = ends - Date.now();
      if (left <= 0)
        throw new ApiConnectionError(`${request.url}: no answer within the deadline of ${this.#deadlineMs} ms`);
      let response: Response;
      try {
        const headers = new Headers(request.headers);
        headers.set('user-agent', `commodity-data-typescript/${VERSION}`);
        response = await this.#fetch(request.url, {
          method: request.method,
          headers,
          signal: AbortSignal.timeout(Math.min(this.#timeoutMs, left)),
        });
      } catch (err) {
        throw new ApiConnectionError(`${request.url}: ${err instanceof Error ? err.message : String(err)}`, {
          cause: err,
        });
      }
      if (response.status !== 429 || attempt >= this.#maxRetries) return response;
      const wait = retryAfterOf(response.headers) ?? 1;
      if (wait > this.#maxRetryWaitSeconds || Date.now() + wait * 1000 >= ends) return response;
      await response.body?.cancel();
      await sleep(wait * 1000);
    }
  }
}
