// Bad input end to end (issue 7, item 3): property-based tests (fast-check) over every path and
// query parameter and the auth header, and raw-socket attacks (duplicate and oversized headers,
// request smuggling, slowloris), through a real gateway -> real query service -> FerretDB.
//
// The gateway under test forwards to the query service through a recording proxy, so every test
// can tell exactly which requests reached the query service (by the request id the gateway
// forwards) and assert that nothing but the four public routes with a well-formed slug ever does.
//
// Budget: BAD_INPUT_RUNS (base number of fast-check runs per property, default 100) keeps the file
// around 1-2 minutes on 2 cores.
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  CATEGORIES,
  COT_FORMATS,
  CURRENCY_PATTERN,
  ERROR_CODE_LIST,
  FREQUENCIES,
  MAX_PAGE,
  SERIES_TYPES,
  SNAKE_CASE_PATTERN,
  SORT_ORDERS,
  SUPPLY_DEMAND_VIEWS,
  TRANSFORMS,
  UnitParam,
  isMarketingYear,
} from '@cds/contracts';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { startServiceProcess, waitForReady, type ServiceProcess } from '@cds/testkit';
import fc from 'fast-check';
import { parse as parseQueryString } from 'fast-querystring';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, eventually, startE2E, templateOf, type E2E } from './support/harness.ts';

const RUNS = Number(process.env.BAD_INPUT_RUNS ?? 100);
/** Every answer, accepted or not, comes within this bound (the gateway gives up on the query service after 5 s). */
const ANSWER_BOUND_MS = Number(process.env.BAD_INPUT_ANSWER_BOUND_MS ?? 15_000);
const API = '/api/v1';
const SLUG_SHAPE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
/**
 * What may ever reach the query service: the five public routes, a well-formed slug (of any length:
 * an unknown one is the query service's 404, however long; the URL limit bounds it).
 */
const FORWARDABLE =
  /^\/api\/v1\/commodities(?:\/([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)(?:\/(?:series|cot|supply-demand))?)?(?:\?.*)?$/;
const STACK_TRACE = /\bat [^\s]+ \(?[^\s]*:\d+:\d+\)?|node_modules|MongoServerError|ECONNREFUSED/;

const validate = createOpenApiResponseValidator();

let e2e: E2E;
let gateway: ServiceProcess;
let pool: Pool;
let recorder: Server;
/** Requests that reached the query service: forwarded request id and URL. */
const forwarded: { id: string; url: string }[] = [];
const keys = { enterprise: [] as string[], free: [] as string[], professional: '' };
let nextKey = 0;
const enterpriseKey = () => keys.enterprise[nextKey++ % keys.enterprise.length]!;

interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  ms: number;
  id: string;
}

/** A GET with the path sent byte for byte (fetch would normalise `..` and percent-encodings). */
async function call(path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const start = performance.now();
  const res = await pool.request({ method: 'GET', path, headers });
  const text = await res.body.text();
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h[k] = v;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: h, text, json, ms: performance.now() - start, id: h['x-request-id'] ?? '' };
}

const withKey = (key = enterpriseKey()) => ({ authorization: `Bearer ${key}` });

/** The house rules for any answer: no 5xx, bounded time, a request id, errors in the contract shape. */
function expectContract(res: Answer, path: string): void {
  const where = `${res.status} ${path.slice(0, 300)}: ${res.text.slice(0, 300)}`;
  expect(res.status, where).toBeLessThan(500);
  expect(res.ms, where).toBeLessThan(ANSWER_BOUND_MS);
  expect(res.id, where).toMatch(/\S/);
  expect(res.text, where).not.toMatch(STACK_TRACE);
  if (res.status >= 400) {
    expect(res.headers['content-type'], where).toMatch(/^application\/json/);
    const error = res.json?.error;
    expect(Object.keys(res.json ?? {}), where).toEqual(['error']);
    expect(ERROR_CODE_LIST, where).toContain(error.code);
    expect(typeof error.message, where).toBe('string');
    expect(error.doc_url, where).toMatch(new RegExp(`/docs/errors#${error.code}$`));
    expect(error.request_id, where).toBe(res.id);
    if (error.param !== undefined) expect(typeof error.param, where).toBe('string');
  }
  let template: string | undefined;
  try {
    template = templateOf(path);
  } catch {
    template = undefined;
  }
  // Requests refused before routing (a path that is not valid percent-encoded UTF-8) carry no
  // rate-limit headers, like an unknown route: the document describes routed answers.
  const unrouted = res.json?.error?.param === 'path';
  if (template !== undefined && !unrouted && [200, 400, 401, 403, 404, 429].includes(res.status)) {
    validate(template, { statusCode: res.status, headers: res.headers, body: res.text });
  }
}

/** The URLs the query service received for one public request. */
const reached = (res: Answer) => forwarded.filter((f) => f.id === res.id).map((f) => f.url);

function expectForwardedOnlyIfWellFormed(res: Answer, slug: string | undefined): void {
  const urls = reached(res);
  for (const url of urls) {
    expect(url, `reached the query service: ${url}`).toMatch(FORWARDABLE);
  }
  if (slug !== undefined && !SLUG_SHAPE.test(slug)) expect(urls, `slug ${slug}`).toEqual([]);
}

// ---- generators ----------------------------------------------------------------------------------

const encodable = (s: string) => {
  try {
    encodeURIComponent(s);
    return true;
  } catch {
    return false;
  }
};
const text = (max = 40) =>
  fc.oneof(
    fc.string({ maxLength: max }),
    fc.string({ unit: 'binary', maxLength: max }).filter(encodable),
    fc.string({ unit: 'grapheme', maxLength: max }),
  );
const validInt = (min: number, max: number) => (s: string) =>
  /^[0-9]{1,16}$/.test(s) && Number(s) >= min && Number(s) <= max;
const isRealDate = (s: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
};

const HUGE_NUMBERS = [
  '1e309',
  '9999999999999999999',
  '1e3',
  '-1',
  '0',
  '1.5',
  '+1',
  ' 1',
  '0x10',
  'NaN',
  'Infinity',
  '１',
  '00000000000000001000001',
  '-0',
  '1_000',
];
const badInt = (min: number, max: number) =>
  fc
    .oneof(
      fc.constantFrom(...HUGE_NUMBERS, String(max + 1), String(min - 1), ''),
      fc.bigInt({ min: BigInt(max) + 1n, max: 10n ** 40n }).map(String),
      text(),
    )
    .filter((s) => !validInt(min, max)(s));
const BAD_DATES = [
  '2024-02-30',
  '2023-02-29',
  '2024-13-01',
  '2024-00-10',
  '2024-04-31',
  '2024-1-1',
  '24-01-01',
  '2024/01/01',
  '20240101',
  '2024-01-01T00:00:00Z',
  '+2024-01-01',
  '2024-01-01 ',
  '１９９９-01-01',
  '',
];
const badDate = fc.oneof(fc.constantFrom(...BAD_DATES), text()).filter((s) => !isRealDate(s));
const badEnum = (allowed: readonly string[]) =>
  fc
    .oneof(
      fc.constantFrom(
        ...allowed.map((a) => a.toUpperCase()),
        ...allowed.map((a) => ` ${a}`),
        '',
        '$ne',
        '[object Object]',
        'true',
        'null',
      ),
      text(),
    )
    .filter((s) => !allowed.includes(s));
// search is limited to 100 characters: code points, as zod counts them (not UTF-16 units).
// The empty search is valid (no filter), so only over-long ones are bad.
const badSearch = fc.oneof(
  fc.string({ minLength: 101, maxLength: 400 }),
  fc.string({ unit: 'binary', minLength: 101, maxLength: 160 }).filter((s) => [...s].length > 100 && encodable(s)),
);

/** A region or attribute that is not snake_case of at most 60 characters. */
const badName = fc
  .oneof(fc.constantFrom('United_States', 'ending stocks', '_x', 'x_', 'a__b', '', '$ne', 'x'.repeat(61)), text())
  .filter((s) => s.length > 60 || !SNAKE_CASE_PATTERN.test(s));

/** A currency or unit the schema refuses (one it takes but the data lacks, XYZ or furlong: test/conversion.e2e.spec.ts). */
const badCurrency = fc
  .oneof(fc.constantFrom('usd', 'Eur', 'US', 'EURO', 'US$', ' EUR', '€', '', '$ne'), text())
  .filter((s) => !CURRENCY_PATTERN.test(s));
const badUnit = fc
  .oneof(fc.constantFrom('', 'usd/t', 'USD/', '/t', 't/acre/d', 'EUR/USD/t', 'USc/', 'x'.repeat(41), '$ne'), text())
  .filter((s) => !UnitParam.safeParse(s).success);

// The enums come from the contract itself, so the properties exercise exactly what it accepts.

const date = fc
  .date({ min: new Date('1990-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10));
const intIn = (min: number, max: number) => fc.integer({ min, max }).map(String);
/** Near pages and far ones: any page up to 2^53 - 1 is answered (past the last: an empty 200). */
const pageIn = fc.oneof(intIn(1, 1_000), intIn(1, MAX_PAGE));
const validSearch = fc.oneof(
  fc.string({ maxLength: 100 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 50 }).filter(encodable),
  fc.constantFrom('.*', '$ne', '^G', '{"$gt":""}', '(', '\\', '%', '(a+)+$', 'gold'),
);

type Params = Record<string, string>;
interface Endpoint {
  name: 'list' | 'detail' | 'series' | 'cot' | 'supplyDemand';
  path: (slug: string) => string;
  slug: fc.Arbitrary<string>;
  /** Valid parameters (an optional subset; the required ones always there). */
  valid: fc.Arbitrary<Params>;
  /** For each parameter, values that are never valid. */
  bad: Record<string, fc.Arbitrary<string>>;
}

/** Two optional valid dates, start not after end. */
const dateRange = fc
  .record({ a: fc.option(date, { nil: undefined }), b: fc.option(date, { nil: undefined }) })
  .map(({ a, b }) => {
    const out: Params = {};
    if (a !== undefined && b !== undefined) {
      [out.start_date, out.end_date] = a <= b ? [a, b] : [b, a];
    } else if (a !== undefined) out.start_date = a;
    else if (b !== undefined) out.end_date = b;
    return out;
  });
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const compact = (p: Record<string, string | undefined>): Params =>
  Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Params;

const ENDPOINTS: Endpoint[] = [
  {
    name: 'list',
    path: () => `${API}/commodities`,
    slug: fc.constant(''),
    valid: fc
      .record({
        category: optional(fc.constantFrom(...CATEGORIES)),
        search: optional(validSearch),
        sort_order: optional(fc.constantFrom(...SORT_ORDERS)),
        page: optional(pageIn),
        per_page: optional(intIn(1, 100)),
      })
      .map(compact),
    bad: {
      category: badEnum(CATEGORIES),
      search: badSearch,
      sort_order: badEnum(SORT_ORDERS),
      page: badInt(1, MAX_PAGE),
      per_page: badInt(1, 100),
    },
  },
  {
    name: 'detail',
    path: (slug) => `${API}/commodities/${slug}`,
    slug: fc.constantFrom('GOLD', 'CRUDE_OIL_WTI', 'UNOBTAINIUM', 'X_1'),
    valid: fc.constant({}),
    bad: {},
  },
  {
    name: 'series',
    path: (slug) => `${API}/commodities/${slug}/series`,
    slug: fc.constantFrom('GOLD', 'CRUDE_OIL_WTI'),
    valid: fc
      .tuple(
        fc.record({
          type: fc.constantFrom(...SERIES_TYPES),
          frequency: optional(fc.constantFrom(...FREQUENCIES)),
          transform: optional(fc.constantFrom(...TRANSFORMS)),
          limit: optional(intIn(1, 10_000)),
          sort_order: optional(fc.constantFrom(...SORT_ORDERS)),
        }),
        dateRange,
      )
      .map(([p, d]) => ({ ...compact(p), ...d })),
    bad: {
      type: badEnum(SERIES_TYPES),
      start_date: badDate,
      end_date: badDate,
      frequency: badEnum(FREQUENCIES),
      transform: badEnum(TRANSFORMS),
      limit: badInt(1, 10_000),
      sort_order: badEnum(SORT_ORDERS),
      currency: badCurrency,
      unit: badUnit,
    },
  },
  {
    name: 'cot',
    path: (slug) => `${API}/commodities/${slug}/cot`,
    slug: fc.constantFrom('GOLD', 'CORN', 'CRUDE_OIL_BRENT'),
    valid: fc
      .tuple(
        fc.record({
          format: optional(fc.constantFrom(...COT_FORMATS)),
          sort_order: optional(fc.constantFrom(...SORT_ORDERS)),
          page: optional(pageIn),
          per_page: optional(intIn(1, 100)),
        }),
        dateRange,
      )
      .map(([p, d]) => ({ ...compact(p), ...d })),
    bad: {
      format: badEnum(COT_FORMATS),
      start_date: badDate,
      end_date: badDate,
      sort_order: badEnum(SORT_ORDERS),
      page: badInt(1, MAX_PAGE),
      per_page: badInt(1, 100),
    },
  },
  {
    name: 'supplyDemand',
    path: (slug) => `${API}/commodities/${slug}/supply-demand`,
    slug: fc.constantFrom('CORN', 'GOLD'),
    valid: fc
      .record({
        region: optional(fc.constantFrom('united_states', 'world', 'china')),
        marketing_year: optional(fc.constantFrom('2026/27', '2025/26', '2025')),
        attribute: optional(fc.constantFrom('ending_stocks', 'production', 'stocks_to_use')),
        view: optional(fc.constant('figures')),
        page: optional(pageIn),
        per_page: optional(intIn(1, 100)),
      })
      .map(compact),
    bad: {
      region: badName,
      marketing_year: fc
        .oneof(fc.constantFrom('2026/28', '2026-27', '26/27', '2026/027', ''), text())
        .filter((s) => !isMarketingYear(s)),
      attribute: badName,
      view: badEnum(SUPPLY_DEMAND_VIEWS),
      first_release: badEnum(['true', 'false']),
      include: badEnum(['revisions']),
      page: badInt(1, MAX_PAGE),
      per_page: badInt(1, 100),
    },
  },
];
/** A parameter name as an error body carries it: at most 100 characters (errorBody clips it). */
const clipped = (name: string) =>
  name.length <= 100
    ? name
    : `${name.slice(0, name.charCodeAt(98) >= 0xd800 && name.charCodeAt(98) <= 0xdbff ? 98 : 99)}\u2026`;
const endpointNamed = (name: Endpoint['name']) => ENDPOINTS.find((e) => e.name === name)!;
const KNOWN_NAMES = new Set(['api_key', ...ENDPOINTS.flatMap((e) => Object.keys(e.bad))]);
const unknownName = fc
  .oneof(
    fc.constantFrom(
      'search[$ne]',
      'page[]',
      'per_page[0]',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'PAGE',
      'Type',
      'api_key ',
      ' page',
      'page\u0000',
      '$where',
      'a'.repeat(2000),
    ),
    text().filter((s) => s.length > 0),
  )
  .filter((n) => !KNOWN_NAMES.has(n));

const enc = (s: string) => encodeURIComponent(s);
const queryString = (pairs: [string, string][]) =>
  pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&')}`;

// ---- setup ---------------------------------------------------------------------------------------

beforeAll(async () => {
  e2e = await startE2E({ gateways: 1 });
  for (const [source, file] of [
    ['cftc-legacy', 'cftc_legacy_fut_annual_2025_excerpt.txt'],
    ['cftc-disaggregated', 'cftc_disagg_fut_f_year_2021_excerpt.txt'],
    ['eia', 'eia_rwtc_wti_spot_daily_2022_excerpt.csv'],
  ] as const) {
    const run = await e2e.ingest(['backfill', '--source', source, '--file', join(FIXTURES, file)]);
    expect(run.code, `${file}: ${run.stderr}`).toBe(0);
  }

  // The recording proxy between the gateway under test and the query service.
  const upstream = new URL(e2e.system.query.url);
  recorder = createServer((req, res) => {
    forwarded.push({ id: String(req.headers['x-request-id'] ?? ''), url: req.url ?? '' });
    const out = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  const recorderPort = (recorder.address() as { port: number }).port;
  gateway = await startServiceProcess({
    service: 'gateway',
    name: 'gateway-audited',
    env: {
      NATS_URL: e2e.infra.natsUrl,
      REDIS_URL: e2e.infra.redisUrl,
      QUERY_URL: `http://127.0.0.1:${recorderPort}`,
      PUBLIC_BASE_URL: 'http://localhost:8080',
      LOG_LEVEL: 'warn',
      // Every property sends many bad keys from 127.0.0.1: keep the failed-auth throttle out of the way.
      FAILED_AUTH_MAX: '1000000',
    },
  });
  await waitForReady(`${gateway.url}/readyz`, { service: gateway });
  pool = new Pool(gateway.url, { connections: 8 });

  // Each property run is one request or two, all within a minute or so: enough Enterprise accounts
  // (1,000 requests/min each) that no run meets a 429, whatever BAD_INPUT_RUNS is.
  const enterpriseAccounts = Math.max(4, Math.ceil((RUNS * 20) / 1000));
  for (let i = 0; i < enterpriseAccounts; i += 1) keys.enterprise.push((await e2e.account('enterprise')).key);
  for (let i = 0; i < 6; i += 1) keys.free.push((await e2e.account('free')).key);
  keys.professional = (await e2e.account('professional')).key;

  await eventually(
    'projections and keys on the audited gateway',
    async () => {
      const cot = await call(`${API}/commodities/GOLD/cot?start_date=2025-01-01`, withKey());
      const corn = await call(`${API}/commodities/CORN/cot?format=disaggregated`, withKey());
      const px = await call(
        `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2022-01-01&end_date=2022-12-31`,
        withKey(),
      );
      return (
        cot.status === 200 &&
        cot.json.data.length === 5 &&
        corn.status === 200 &&
        px.status === 200 &&
        px.json.data.length > 0
      );
    },
    180_000,
  );
}, 300_000);

afterAll(async () => {
  await pool?.close();
  await gateway?.stop();
  await new Promise((resolve) => (recorder ? recorder.close(resolve) : resolve(undefined)));
  await e2e?.stop();
}, 60_000);

// ---- query parameters ------------------------------------------------------------------------------

describe('query parameters', () => {
  it('answers well-formed requests 200 or 404, bounded, in the contract shape', async () => {
    const endpoint = fc.constantFrom(...ENDPOINTS);
    await fc.assert(
      fc.asyncProperty(
        endpoint.chain((e) => fc.tuple(fc.constant(e.name), e.slug, e.valid)),
        async ([name, slug, params]) => {
          const e = endpointNamed(name);
          const path = e.path(slug) + queryString(Object.entries(params));
          const res = await call(path, withKey());
          expectContract(res, path);
          if (res.status === 400) {
            // The 400s a well-formed request can get: a frequency finer than the series' native one,
            // or (series) a start_date after the default end_date, today.
            const today = new Date().toISOString().slice(0, 10);
            const lateStart = e.name === 'series' && params.end_date === undefined && params.start_date! > today;
            // (supply-demand) a region, marketing year or attribute the commodity's balance sheets lack.
            if (e.name === 'supplyDemand')
              expect(['region', 'marketing_year', 'attribute'], path).toContain(res.json.error.param);
            else expect(res.json.error.param, path).toBe(lateStart ? 'start_date' : 'frequency');
          } else {
            expect([200, 404], path).toContain(res.status);
          }
          if (res.status === 200 && e.name !== 'detail') {
            const max = e.name === 'series' ? Number(params.limit ?? 10_000) : Number(params.per_page ?? 25);
            expect(res.json.data.length, path).toBeLessThanOrEqual(max);
          }
          expectForwardedOnlyIfWellFormed(res, slug || undefined);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('names the parameter of one bad value, unknown name or repeated parameter among valid ones', async () => {
    const poisoned = fc.constantFrom(...ENDPOINTS).chain((e) => {
      const names = Object.keys(e.bad);
      const poisons: fc.Arbitrary<{ kind: string; name: string; value: string }>[] = [
        unknownName.chain((name) => text(20).map((value) => ({ kind: 'unknown', name, value }))),
      ];
      if (names.length > 0) {
        poisons.push(
          fc.constantFrom(...names).chain((name) => e.bad[name]!.map((value) => ({ kind: 'value', name, value }))),
          fc.constantFrom(...names).map((name) => ({ kind: 'repeat', name, value: '' })),
        );
      }
      return fc.tuple(fc.constant(e.name), e.slug, e.valid, fc.oneof(...poisons), fc.nat());
    });
    await fc.assert(
      fc.asyncProperty(poisoned, async ([name, slug, params, poison, at]) => {
        const e = endpointNamed(name);
        const pairs: [string, string][] = Object.entries(params);
        if (poison.kind === 'value') {
          const i = pairs.findIndex(([k]) => k === poison.name);
          if (i >= 0) pairs.splice(i, 1);
          pairs.splice(at % (pairs.length + 1), 0, [poison.name, poison.value]);
        } else if (poison.kind === 'unknown') {
          pairs.splice(at % (pairs.length + 1), 0, [poison.name, poison.value]);
        } else {
          const existing = pairs.find(([k]) => k === poison.name);
          const value = existing?.[1] ?? '1';
          if (existing === undefined) pairs.push([poison.name, value]);
          pairs.splice(at % (pairs.length + 1), 0, [poison.name, value]);
        }
        const path = e.path(slug) + queryString(pairs);
        const res = await call(path, withKey());
        expectContract(res, path);
        expect(res.status, `${poison.kind} ${path}`).toBe(400);
        expect(res.json.error.code).toBe('invalid_parameter');
        expect(res.json.error.param, `${poison.kind} ${path}`).toBe(clipped(poison.name));
      }),
      { numRuns: RUNS * 3 },
    );
  });

  it('answers any query string in the contract shape, naming a parameter the request has', async () => {
    const token = fc.oneof(
      fc.constantFrom(
        '%',
        '%Z',
        '%ZZ',
        '%FF',
        '%00',
        '%C0%AE',
        '%E2%82',
        '&',
        '&&',
        '=',
        '==',
        '[',
        ']',
        'a[b]=c',
        '+',
        '%2B',
        ';',
        '#',
        '?',
        '/',
        '%2F',
        '..',
        '%2E%2E',
      ),
      fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz_[]$.=&%0123456789'.split('')), maxLength: 12 }),
      fc.constantFrom(
        'type=price',
        'page=1e309',
        'page=1&page=2',
        'search[$ne]=',
        'start_date=2024-02-30',
        'per_page=100',
        `api_key=${'0'.repeat(40)}`,
      ),
      text(10).map(enc),
    );
    const anyQuery = fc.array(token, { maxLength: 12 }).map((ts) => ts.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINTS.map((x) => x.name)),
        fc.constantFrom('GOLD', 'CRUDE_OIL_WTI'),
        anyQuery,
        async (name, slug, qs) => {
          const e = endpointNamed(name);
          const path = `${e.path(slug)}?${qs}`;
          const res = await call(path, withKey());
          expectContract(res, path);
          expect([200, 400, 401, 404, 414], path).toContain(res.status);
          if (res.status === 400) {
            const param = res.json.error.param as string | undefined;
            const names = Object.keys(parseQueryString(qs)).map(clipped);
            // Every 400 names a parameter; an empty name (`=x`) is named `query` (the query string).
            expect(param, path).toBeDefined();
            if (param !== undefined && !['type', 'query', 'path', 'frequency'].includes(param)) {
              expect(names, `${path} -> ${param}`).toContain(param);
            }
          }
          expectForwardedOnlyIfWellFormed(res, slug);
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });

  it('keeps every accepted request bounded: the widest valid requests answer, the next step is a 400', async () => {
    const search = '(.*)+$[\\'.repeat(20).slice(0, 100);
    const widest = [
      `${API}/commodities?page=${MAX_PAGE}&per_page=100`,
      `${API}/commodities?search=${enc(search)}&per_page=100`,
      `${API}/commodities/GOLD/cot?start_date=0001-01-01&end_date=9999-12-31&page=${MAX_PAGE}&per_page=100`,
      `${API}/commodities/GOLD/cot?start_date=0001-01-01&end_date=9999-12-31&per_page=100`,
      `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=0001-01-01&end_date=9999-12-31&limit=10000`,
      `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=0001-01-01&end_date=9999-12-31&transform=pct_change`,
      `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=1000-01-01&end_date=9999-12-31&frequency=monthly&transform=cumulative`,
      `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=9999-01-01&end_date=9999-12-31&transform=change`,
      `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=0001-01-01&end_date=0001-12-31&transform=pct_change`,
    ];
    for (const path of widest) {
      const res = await call(path, withKey());
      expectContract(res, path);
      expect(res.status, path).toBe(200);
      expect(res.json.data.length).toBeLessThanOrEqual(path.includes('/series') ? 10_000 : 100);
      console.log(`widest: ${res.ms.toFixed(0).padStart(5)} ms  ${res.json.data.length} items  ${path.slice(0, 110)}`);
    }
    const beyond: [string, string][] = [
      [`${API}/commodities?page=${MAX_PAGE + 1}`, 'page'],
      [`${API}/commodities?per_page=101`, 'per_page'],
      [`${API}/commodities?search=${'x'.repeat(101)}`, 'search'],
      [`${API}/commodities?page=1e309`, 'page'],
      [`${API}/commodities?search[$ne]=`, 'search[$ne]'],
      [`${API}/commodities?page=1&page=2`, 'page'],
      [`${API}/commodities/CRUDE_OIL_WTI/series?type=price&limit=10001`, 'limit'],
      [`${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2024-02-30`, 'start_date'],
      [`${API}/commodities/GOLD/cot?page=99999999999999999999`, 'page'],
    ];
    for (const [path, param] of beyond) {
      const res = await call(path, withKey());
      expectContract(res, path);
      expect(res.status, path).toBe(400);
      expect(res.json.error.param, path).toBe(param);
    }
  });
});

// ---- path parameters ---------------------------------------------------------------------------------

describe('path parameters', () => {
  const TRAVERSALS = [
    '%2E%2E',
    '%2e%2e',
    '%2E%2E%2F',
    '%2E%2E%2F%2E%2E%2Fhealthz',
    '..%2F..%2Fadmin',
    '..%2F..%2Freadyz',
    '%2F',
    'GOLD%2Fseries',
    'GOLD%2F..%2F..%2Fhealthz',
    '%252E%252E',
    '%252E%252E%252Fhealthz',
    '%5C..%5C',
    '..%5C..%5Cmetrics',
    '%C0%AE%C0%AE',
    '%E0%80%AE',
    '%ZZ',
    '%',
    '%00',
    'GOLD%00',
    'GOLD%0D%0AX-Injected:%201',
    '.',
    '..',
    '%2e',
    'GOLD;x',
    'GOLD%3Fapi_key=x',
    'GOLD%23',
    'gold',
    'Gold',
    'GOLD_',
    '_GOLD',
    'GO__LD',
    'GOLD-1',
    `${'A'.repeat(65)}`,
    `${'A'.repeat(199)}`,
    `${'A'.repeat(250)}`,
    `${'A_'.repeat(100)}A`,
  ];
  const slugArb = fc.oneof(
    fc.constantFrom(...TRAVERSALS),
    text().map(enc),
    fc.string({ unit: fc.constantFrom(...'ABCZ019_'.split('')), minLength: 1, maxLength: 90 }),
  );
  const tail = fc.constantFrom(
    '',
    '/series',
    '/series?type=price',
    '/cot',
    '/cot?format=legacy',
    '/',
    '/x',
    '/series/x',
    '/..',
    '/%2E%2E',
    '/..%2F..%2Fhealthz',
  );

  it('refuses malformed slugs and encoded traversal 400/404, and nothing but a public route reaches the query service', async () => {
    await fc.assert(
      fc.asyncProperty(slugArb, tail, async (rawSlug, rest) => {
        const path = `${API}/commodities/${rawSlug}${rest}`;
        const res = await call(path, withKey());
        expectContract(res, path);
        let decoded: string | undefined;
        try {
          decoded = decodeURIComponent(rawSlug);
        } catch {
          decoded = undefined;
        }
        const wellFormed = decoded !== undefined && SLUG_SHAPE.test(decoded);
        if (!wellFormed) {
          expect([400, 404], path).toContain(res.status);
          expect(reached(res), path).toEqual([]);
          if (res.status === 400) expect(['slug', 'path'], path).toContain(res.json.error.param);
        } else if (res.status === 400) {
          // A well-formed id, however long, is never refused for its shape (an unknown one is a 404).
          expect(res.json.error.param, path).not.toBe('slug');
        }
        expectForwardedOnlyIfWellFormed(res, decoded ?? rawSlug);
      }),
      { numRuns: RUNS * 3, examples: TRAVERSALS.map((t) => [t, '/series?type=price'] as [string, string]) },
    );
  });

  it('answers a well-formed commodity id the catalog lacks 404 not_found at any length up to the URL limit; a malformed one 400', async () => {
    // The contract tester's case: 68 characters of UPPER_SNAKE_CASE (longer than any catalog id).
    const long = `${'COMMODITY_'.repeat(6)}ABCDEFGH`;
    expect(long).toHaveLength(68);
    const longest = `X${'_9'.repeat(1_990)}`; // 3,981 characters: the path stays under 4,096
    for (const slug of [long, 'A'.repeat(65), longest]) {
      for (const tail of ['', '/series?type=price', '/cot']) {
        const path = `${API}/commodities/${slug}${tail}`;
        const res = await call(path, withKey());
        expectContract(res, path);
        expect(res.status, path.slice(0, 120)).toBe(404);
        expect(res.json.error).toMatchObject({ code: 'not_found', param: 'slug' });
      }
    }
    for (const slug of [`${long}_`, long.toLowerCase(), `${long}-1`]) {
      const path = `${API}/commodities/${slug}/series?type=price`;
      const res = await call(path, withKey());
      expectContract(res, path);
      expect(res.status, path).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'invalid_parameter', param: 'slug' });
      expect(reached(res), path).toEqual([]);
    }
    // Past the URL limit the router refuses the slug itself (server/hardening.ts): never forwarded.
    const tooLong = await call(`${API}/commodities/${'A'.repeat(5_000)}`, withKey());
    expectContract(tooLong, 'slug of 5,000 characters');
    expect([400, 414]).toContain(tooLong.status);
    expect(reached(tooLong)).toEqual([]);
  });

  it('serves no other route of either service through the API prefix', async () => {
    for (const path of [
      `${API}/commodities/../../healthz`,
      `${API}/commodities/../../../readyz`,
      `${API}/commodities/%2E%2E/%2E%2E/metrics`,
      `${API}/commodities/GOLD/../../../admin/v1/accounts`,
      `${API}/%2E%2E/healthz`,
      `${API}/commodities//GOLD`,
      `/api/v1//commodities`,
      `/API/V1/COMMODITIES`,
      `${API}/commodities/GOLD/series/../cot`,
    ]) {
      const res = await call(path, withKey());
      expectContract(res, path);
      expect([400, 404], path).toContain(res.status);
      expect(reached(res), path).toEqual([]);
    }
  });
});

// ---- the API key -------------------------------------------------------------------------------------

describe('the API key', () => {
  it('accepts exactly `Bearer <a valid key>` and answers anything else 401 unauthorized', async () => {
    const valid = () => enterpriseKey();
    const header = fc.oneof(
      text(80),
      fc.string({ maxLength: 60 }).map((s) => `Bearer ${s}`),
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'bearer VALID',
        'BEARER VALID',
        'Bearer  VALID  ',
        'Bearer\tVALID',
        'Bearer VALID x',
        'Bearer VALIDx',
        'Bearer xVALID',
        'Bearer UPPER',
        'Bearer SHORT',
        'Basic VALID',
        'Token VALID',
        'VALID',
        'Bearer VALID, Bearer VALID',
        `Bearer ${'f'.repeat(7000)}`, // long, but the request head stays under its 8 KiB bound
        'Bearer 0000000000000000000000000000000000000000',
      ),
    );
    await fc.assert(
      fc.asyncProperty(header, fc.boolean(), async (template, alsoQueryKey) => {
        const key = valid();
        const value = template
          .replaceAll('VALID', key)
          .replaceAll('UPPER', key.toUpperCase())
          .replaceAll('SHORT', key.slice(1));
        // Header values cannot carry CR, LF or NUL; leading and trailing whitespace is not part of the value.
        fc.pre(!/[\r\n\0]/.test(value) && !/[^\t\x20-\x7e]/.test(value));
        const path = `${API}/commodities?per_page=1${alsoQueryKey ? `&api_key=${key}` : ''}`;
        const res = await call(path, { authorization: value });
        expectContract(res, path);
        const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value.trim());
        const accepted = m !== null && m[1] === key;
        expect(res.status, JSON.stringify(value.slice(0, 100))).toBe(accepted ? 200 : 401);
        if (!accepted) expect(res.json.error.code).toBe('unauthorized');
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('answers 401 to a missing, malformed, repeated or unknown api_key parameter', async () => {
    const key = keys.enterprise[0]!;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          text(60).map((s) => [s]),
          fc.constant([key, key]),
          fc.constant([key.toUpperCase()]),
          fc.constant([`${key} `]),
          fc.constant([]),
        ),
        async (values) => {
          const path = `${API}/commodities?${values.map((v) => `api_key=${enc(v)}`).join('&')}`;
          const res = await call(path);
          expectContract(res, path);
          expect(res.status, path).toBe(401);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('applies the plan rules after authentication, and leaves wrong shapes to the 400 naming them', async () => {
    let i = 0;
    const free = () => keys.free[i++ % keys.free.length]!;
    const cases: [string, string, number, string, string | undefined][] = [
      [free(), `${API}/commodities/GOLD/cot`, 403, 'forbidden', undefined],
      [free(), `${API}/commodities/GOLD/cot?format=disaggregated`, 403, 'forbidden', undefined],
      [
        free(),
        `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2000-01-01`,
        403,
        'historical_limit',
        'start_date',
      ],
      [
        free(),
        `${API}/commodities/CRUDE_OIL_WTI/series?type=price&end_date=2001-01-01`,
        403,
        'historical_limit',
        'start_date',
      ],
      [
        free(),
        `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2024-02-30`,
        400,
        'invalid_parameter',
        'start_date',
      ],
      [
        free(),
        `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=1e309`,
        400,
        'invalid_parameter',
        'start_date',
      ],
      [
        free(),
        `${API}/commodities/CRUDE_OIL_WTI/series?type=price&start_date=2000-01-01&start_date=2000-01-02`,
        400,
        'invalid_parameter',
        'start_date',
      ],
      [keys.professional, `${API}/commodities/GOLD/cot?format=disaggregated`, 403, 'forbidden', undefined],
      [keys.professional, `${API}/commodities/GOLD/cot?format=DISAGGREGATED`, 400, 'invalid_parameter', 'format'],
      [
        keys.professional,
        `${API}/commodities/GOLD/cot?format=legacy&format=disaggregated`,
        400,
        'invalid_parameter',
        'format',
      ],
    ];
    for (const [key, path, status, code, param] of cases) {
      const res = await call(path, withKey(key));
      expectContract(res, path);
      expect(res.status, path).toBe(status);
      expect(res.json.error.code, path).toBe(code);
      expect(res.json.error.param, path).toBe(param);
      expect(res.headers['x-ratelimit-limit'], path).toMatch(/^\d+$/);
    }
  });
});

// ---- raw sockets ---------------------------------------------------------------------------------------

interface RawResult {
  responses: { status: number; head: string; body: string }[];
  closedByServer: boolean;
  ms: number;
}

/** Writes raw bytes, collects every HTTP response until the server closes (or `waitMs`). */
function raw(payload: string | Buffer, waitMs = 3_000, opts: { responses?: number } = {}): Promise<RawResult> {
  return new Promise((resolve) => {
    const start = performance.now();
    const socket = connect(gateway.port, '127.0.0.1');
    let out = Buffer.alloc(0);
    let settled = false;
    const finish = (closedByServer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(out.toString('latin1')), closedByServer, ms: performance.now() - start });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (c: Buffer) => {
      out = Buffer.concat([out, c]);
      // Callers that expect a kept-alive connection stop at the expected number of answers.
      if (opts.responses !== undefined && parseResponses(out.toString('latin1')).length >= opts.responses) {
        finish(false);
      }
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(payload);
  });
}

function parseResponses(stream: string): RawResult['responses'] {
  const responses: RawResult['responses'] = [];
  let rest = stream;
  while (rest.startsWith('HTTP/1.')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const head = rest.slice(0, headEnd);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    const bodyLength = length === null ? 0 : Number(length[1]);
    if (rest.length < headEnd + 4 + bodyLength) break;
    responses.push({ status, head, body: rest.slice(headEnd + 4, headEnd + 4 + bodyLength) });
    rest = rest.slice(headEnd + 4 + bodyLength);
  }
  return responses;
}

function expectErrorBody(body: string, code: string, where: string): void {
  const json = JSON.parse(body) as { error: Record<string, unknown> };
  expect(json.error.code, where).toBe(code);
  expect(json.error.doc_url, where).toMatch(new RegExp(`/docs/errors#${code}$`));
  expect(json.error.request_id, where).toMatch(/\S/);
  expect(body, where).not.toMatch(STACK_TRACE);
}

describe('raw HTTP', () => {
  const request = (lines: string[], body = '') => `${lines.join('\r\n')}\r\n\r\n${body}`;
  const auth = () => `Authorization: Bearer ${keys.enterprise[0]}`;
  const SMUGGLED = () => request(['GET /api/v1/commodities/SMUGGLED HTTP/1.1', 'Host: x', auth()]);

  it('answers two Authorization headers 401, whatever they hold', async () => {
    const key = keys.enterprise[0]!;
    for (const second of [`Bearer ${key}`, `Bearer ${'0'.repeat(40)}`, 'Basic eDp5', '']) {
      const r = await raw(
        request([
          'GET /api/v1/commodities HTTP/1.1',
          'Host: x',
          `Authorization: Bearer ${key}`,
          `Authorization: ${second}`,
        ]),
        5_000,
        { responses: 1 },
      );
      expect(
        r.responses.map((x) => x.status),
        second,
      ).toEqual([401]);
      expectErrorBody(r.responses[0]!.body, 'unauthorized', second);
    }
    const lower = await raw(
      request([
        'GET /api/v1/commodities HTTP/1.1',
        'Host: x',
        `authorization: Bearer ${key}`,
        `AUTHORIZATION: Bearer ${key}`,
      ]),
      5_000,
      { responses: 1 },
    );
    expect(lower.responses.map((x) => x.status)).toEqual([401]);
    const bytes = Buffer.concat([
      Buffer.from('GET /api/v1/commodities HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer '),
      Buffer.from([0xff, 0xfe, 0x80, 0xc3, 0xa9]),
      Buffer.from('\r\n\r\n'),
    ]);
    const obsText = await raw(bytes, 5_000, { responses: 1 });
    expect(obsText.responses.map((x) => x.status)).toEqual([401]);
    expectErrorBody(obsText.responses[0]!.body, 'unauthorized', 'obs-text');
  });

  it('answers any method but GET, HEAD and OPTIONS 405 with Allow on every API path, before the key', async () => {
    const before = forwarded.length;
    const paths = ['/api/v1/commodities', '/api/v1/commodities/GOLD', '/api/v1/commodities/GOLD/series?type=price'];
    paths.push('/api/v1/commodities/GOLD/cot', '/api/v1/commodities/not_a_slug/cot');
    // Fastify's methods, the rest of Node's, tokens Node's parser refuses, and CONNECT.
    for (const method of ['POST', 'TRACE', 'QUERY', 'PROPFIND', 'M-SEARCH', 'PURGE', 'FOO', 'BREW', 'CONNECT']) {
      for (const path of paths) {
        const where = `${method} ${path}`;
        const r = await raw(request([`${method} ${path} HTTP/1.1`, 'Host: x']), 5_000, { responses: 1 });
        expect(
          r.responses.map((x) => x.status),
          where,
        ).toEqual([405]);
        expect(r.responses[0]!.head, where).toMatch(/\r\nallow: GET, HEAD, OPTIONS(\r\n|$)/i);
        expectErrorBody(r.responses[0]!.body, 'method_not_allowed', where);
      }
    }
    expect(forwarded.length).toBe(before);
  });

  it('refuses request smuggling 400/413 in the contract shape, closes the connection, and never serves the hidden request', async () => {
    const before = forwarded.length;
    const g = 'GET /api/v1/commodities HTTP/1.1';
    const attacks: Record<string, string> = {
      'CL + TE': request(
        [g, 'Host: x', auth(), 'Content-Length: 4', 'Transfer-Encoding: chunked'],
        `0\r\n\r\n${SMUGGLED()}`,
      ),
      'TE + CL': request(
        [g, 'Host: x', auth(), 'Transfer-Encoding: chunked', 'Content-Length: 60'],
        `0\r\n\r\n${SMUGGLED()}`,
      ),
      'two Content-Length': request(
        [g, 'Host: x', auth(), 'Content-Length: 0', `Content-Length: ${SMUGGLED().length}`],
        SMUGGLED(),
      ),
      'Content-Length list': request([g, 'Host: x', auth(), `Content-Length: 0, ${SMUGGLED().length}`], SMUGGLED()),
      'negative Content-Length': request([g, 'Host: x', auth(), 'Content-Length: -1'], SMUGGLED()),
      'hex Content-Length': request([g, 'Host: x', auth(), 'Content-Length: 0x10'], SMUGGLED()),
      'Content-Length with a body': request([g, 'Host: x', auth(), `Content-Length: ${SMUGGLED().length}`], SMUGGLED()),
      'chunked with an empty body': request(
        [g, 'Host: x', auth(), 'Transfer-Encoding: chunked'],
        `0\r\n\r\n${SMUGGLED()}`,
      ),
      'invalid chunk size': request([g, 'Host: x', auth(), 'Transfer-Encoding: chunked'], `ZZ\r\n${SMUGGLED()}`),
      'chunk size overflow': request(
        [g, 'Host: x', auth(), 'Transfer-Encoding: chunked'],
        `FFFFFFFFFFFFFFFFFF\r\n${SMUGGLED()}`,
      ),
      'unknown Transfer-Encoding': request([g, 'Host: x', auth(), 'Transfer-Encoding: xchunked'], SMUGGLED()),
      'two Transfer-Encoding': request(
        [g, 'Host: x', auth(), 'Transfer-Encoding: chunked', 'Transfer-Encoding: identity'],
        `0\r\n\r\n${SMUGGLED()}`,
      ),
      'obs-fold Transfer-Encoding': request(
        [g, 'Host: x', auth(), 'Transfer-Encoding:', ' chunked'],
        `0\r\n\r\n${SMUGGLED()}`,
      ),
      'obs-fold header': request([g, 'Host: x', auth(), 'X-Folded: a', ' b'], ''),
      'space before colon': request([g, 'Host: x', auth(), 'Content-Length : 5'], SMUGGLED()),
      'LF-only line ends': `${g}\nHost: x\n${auth()}\nContent-Length: 0\n\n${SMUGGLED()}`,
      'bare CR': `${g}\rHost: x\r\n${auth()}\r\n\r\n`,
      'NUL in a header': request([g, 'Host: x', auth(), 'X-A: a\0b']),
      'space in the target': request(['GET /api/v1/commo dities HTTP/1.1', 'Host: x', auth()]),
      'unknown version': request(['GET /api/v1/commodities HTTP/9.9', 'Host: x', auth()]),
      'not HTTP': 'HELLO\r\n\r\n',
    };
    for (const [name, payload] of Object.entries(attacks)) {
      const r = await raw(payload);
      expect(r.responses.length, name).toBeGreaterThanOrEqual(1);
      for (const res of r.responses) {
        expect([400, 413], name).toContain(res.status);
        expectErrorBody(res.body, res.status === 413 ? 'payload_too_large' : 'invalid_parameter', name);
      }
      expect(r.closedByServer, `${name}: connection closed`).toBe(true);
    }
    const hidden = forwarded.slice(before).filter((f) => f.url.includes('SMUGGLED'));
    expect(hidden).toEqual([]);
    // The gateway still serves the next honest request.
    expect((await call(`${API}/commodities?per_page=1`, withKey())).status).toBe(200);
  });

  it('answers a request without Host 400 (HTTP/1.1) and serves HTTP/1.0', async () => {
    const noHost = await raw(request(['GET /api/v1/commodities HTTP/1.1', auth()]));
    expect(noHost.responses.map((r) => r.status)).toEqual([400]);
    expectErrorBody(noHost.responses[0]!.body, 'invalid_parameter', 'no Host');
    expect(noHost.closedByServer).toBe(true);
    const old = await raw(request(['GET /api/v1/commodities?per_page=1 HTTP/1.0', auth()]), 5_000, { responses: 1 });
    expect(old.responses.map((r) => r.status)).toEqual([200]);
  });

  it('answers over-long URLs 414 and oversized headers 413, in the contract shape', async () => {
    const cases: [string, string, number, string][] = [
      [
        'URL of 5,000 characters',
        request([`GET /api/v1/commodities?search=${'a'.repeat(5_000)} HTTP/1.1`, 'Host: x', auth()]),
        414,
        'uri_too_long',
      ],
      [
        // Well-formed, within the URL limit: an unknown commodity, not a bad parameter.
        'slug of 3,000 characters',
        request([`GET /api/v1/commodities/${'A'.repeat(3_000)}/series?type=price HTTP/1.1`, 'Host: x', auth()]),
        404,
        'not_found',
      ],
      [
        'URL of 20,000 characters',
        request([`GET /api/v1/commodities?search=${'a'.repeat(20_000)} HTTP/1.1`, 'Host: x', auth()]),
        413,
        'payload_too_large',
      ],
      [
        'header of 20,000 bytes',
        request(['GET /api/v1/commodities HTTP/1.1', 'Host: x', auth(), `X-Big: ${'a'.repeat(20_000)}`]),
        413,
        'payload_too_large',
      ],
      [
        'Authorization of 20,000 bytes',
        request(['GET /api/v1/commodities HTTP/1.1', 'Host: x', `Authorization: Bearer ${'a'.repeat(20_000)}`]),
        413,
        'payload_too_large',
      ],
      [
        'header name of 7,000 bytes',
        request(['GET /api/v1/commodities HTTP/1.1', 'Host: x', auth(), `X-${'n'.repeat(7_000)}: 1`]),
        200,
        '',
      ],
      [
        // The request head is bounded at 8 KiB (Node's default is 16 KiB).
        'header name of 9,000 bytes',
        request(['GET /api/v1/commodities HTTP/1.1', 'Host: x', auth(), `X-${'n'.repeat(9_000)}: 1`]),
        413,
        'payload_too_large',
      ],
      [
        // Accept, the preconditions and Range are bounded at 1 KiB before anything parses them.
        'Accept of 2,000 bytes of inner spaces',
        request(['GET /api/v1/commodities HTTP/1.1', 'Host: x', auth(), `Accept: x${' '.repeat(2_000)}y`]),
        400,
        'invalid_parameter',
      ],
      [
        '3,000 small headers',
        request([
          'GET /api/v1/commodities?per_page=1 HTTP/1.1',
          'Host: x',
          auth(),
          ...Array.from({ length: 3_000 }, (_, i) => `X-${i}: 1`),
        ]),
        413,
        'payload_too_large',
      ],
    ];
    for (const [name, payload, status, code] of cases) {
      const r = await raw(payload, 5_000, { responses: 1 });
      expect(
        r.responses.map((x) => x.status),
        name,
      ).toEqual([status]);
      if (code !== '') expectErrorBody(r.responses[0]!.body, code, name);
    }
  });

  it('closes slowloris connections after the headers timeout while serving everyone else', async () => {
    const SLOW = Number(process.env.SLOWLORIS_SOCKETS ?? 20);
    const started = performance.now();
    const slow = Array.from({ length: SLOW }, (_, i) => {
      const socket = connect(gateway.port, '127.0.0.1');
      socket.on('error', () => {});
      let received = '';
      socket.on('data', (c: Buffer) => (received += c.toString()));
      const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now() - started)));
      // Idle ones send nothing at all; the others dribble a header line every second.
      const idle = i % 4 === 0;
      if (!idle) socket.write(`GET /api/v1/commodities HTTP/1.1\r\nHost: x\r\n${auth()}\r\n`);
      const timer = idle
        ? undefined
        : setInterval(() => socket.write(`X-Slow-${Math.random().toString(36).slice(2)}: 1\r\n`), 1_000);
      return { socket, closed, timer, received: () => received };
    });
    // Meanwhile every honest request is served.
    const honest: number[] = [];
    const deadline = performance.now() + 12_000;
    while (performance.now() < deadline) {
      const res = await call(`${API}/commodities?per_page=1`, withKey());
      honest.push(res.status);
      await new Promise((r) => setTimeout(r, 250));
    }
    const closedAfter = await Promise.race([
      Promise.all(slow.map((s) => s.closed)),
      new Promise<undefined>((r) => setTimeout(() => r(undefined), 25_000)),
    ]);
    for (const s of slow) {
      clearInterval(s.timer);
      s.socket.destroy();
    }
    expect(closedAfter, 'every slowloris socket closed by the gateway').toBeDefined();
    console.log(
      `slowloris: ${SLOW} sockets closed after ${Math.min(...closedAfter!).toFixed(0)}-${Math.max(...closedAfter!).toFixed(0)} ms; ${honest.length} honest requests meanwhile`,
    );
    expect(honest.length).toBeGreaterThan(5);
    expect(honest.every((s) => s === 200)).toBe(true);
    for (const s of slow) expect(s.received()).not.toMatch(/^HTTP\/1\.1 2/);
  }, 60_000);
});

describe('the query service', () => {
  it('was reached only on the four public routes with well-formed slugs', () => {
    expect(forwarded.length).toBeGreaterThan(0);
    for (const f of forwarded) {
      expect(f.url).toMatch(FORWARDABLE);
      const query = f.url.includes('?') ? f.url.slice(f.url.indexOf('?') + 1) : '';
      const names = Object.keys(parseQueryString(query)).map((n) => n.toLowerCase());
      expect(names, f.url).not.toContain('api_key');
    }
  });
});
