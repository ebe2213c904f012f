// The hand-written layer against a local stub of the API (127.0.0.1): pagination, Retry-After,
// typed errors, timeouts and the environment defaults.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiConnectionError,
  AuthenticationError,
  BadRequestError,
  Client,
  DEFAULT_BASE_URL,
  RateLimitError,
  ServerError,
  type Conversion,
} from '../src/index.ts';
import { SeriesResponse } from '@cds/contracts';

const KEY = '0123456789abcdef0123456789abcdef01234567';
const REQUEST_ID = 'req_0123456789abcdef';

interface Reply {
  status: number;
  headers?: Record<string, string>;
  body: string;
}
interface Seen {
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  at: number;
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}): Reply => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const apiError = (
  status: number,
  code: string,
  message: string,
  param?: string,
  headers: Record<string, string> = {},
) =>
  json(
    {
      error: {
        code,
        message,
        doc_url: `http://x/docs/errors#${code}`,
        request_id: REQUEST_ID,
        ...(param ? { param } : {}),
      },
    },
    status,
    headers,
  );

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

/** Starts a stub whose answers the test scripts; returns its base URL and what it saw. */
async function stub(answer: (path: string, query: URLSearchParams) => Reply | Promise<Reply>) {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    seen.push({ path: url.pathname, query: url.searchParams, headers: req.headers, at: Date.now() });
    void Promise.resolve(answer(url.pathname, url.searchParams)).then((reply) => {
      if (res.destroyed) return;
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/api/v1`, seen };
}

const catalog = (total: number) => (_path: string, q: URLSearchParams) => {
  const page = Number(q.get('page'));
  const perPage = Number(q.get('per_page'));
  const all = Array.from({ length: total }, (_, i) => ({ id: `C${i}`, name: `Commodity ${i}`, category: 'energy' }));
  return json({
    data: all.slice((page - 1) * perPage, page * perPage),
    meta: { page, per_page: perPage, total, total_pages: Math.ceil(total / perPage), request_id: REQUEST_ID },
  });
};

const series = {
  data: [{ date: '2024-01-02', value: 70.38 }],
  meta: {
    commodity_id: 'CRUDE_OIL_WTI',
    type: 'price',
    frequency: 'daily',
    transform: 'none',
    count: 1,
    request_id: REQUEST_ID,
  },
};

describe('pagination', () => {
  it('iterates every item across pages, with the same filters and unknown parameters on every request', async () => {
    const { url, seen } = await stub(catalog(7));
    const pager = new Client({ apiKey: KEY, baseUrl: url }).commodities({
      category: 'energy',
      per_page: 3,
      as_of: '2024-06-30',
    });
    const ids: string[] = [];
    for await (const c of pager) ids.push(c.id);
    expect(ids).toEqual(['C0', 'C1', 'C2', 'C3', 'C4', 'C5', 'C6']);
    expect(await pager.total()).toBe(7);
    expect(seen.map((s) => s.query.get('page'))).toEqual(['1', '2', '3']);
    for (const s of seen) {
      expect(s.path).toBe('/api/v1/commodities');
      expect(s.query.get('category')).toBe('energy');
      expect(s.query.get('as_of')).toBe('2024-06-30');
      expect(s.headers.authorization).toBe(`Bearer ${KEY}`);
    }
  });

  it('first() reads one page, and an empty list ends at once', async () => {
    const { url, seen } = await stub(catalog(0));
    const pager = new Client({ apiKey: KEY, baseUrl: url }).commodities();
    expect(await pager.first()).toBeUndefined();
    expect(await pager.toArray()).toEqual([]);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.query.get('per_page')).toBe('100');
  });
});

// A recorded answer shaped by SupplyDemandResponse: US corn 2026/27 as the May and June 2026 WASDE
// editions published it (ending stocks 1,957 then 1,960 million bushels; released 12:00 New York).
const may = { edition: '2026-05', published_at: '2026-05-12T16:00:00Z', status: 'projection' };
const june = { edition: '2026-06', published_at: '2026-06-11T16:00:00Z', status: 'projection' };
const corn2026 = { marketing_year: '2026/27', region: 'united_states' };
const sheet = [
  { ...corn2026, attribute: 'area_planted', value: 95.3, unit: 'Million Acres', ...june },
  { ...corn2026, attribute: 'ending_stocks', value: 1960, unit: 'Million Bushels', ...june },
  { ...corn2026, attribute: 'stocks_to_use', value: 0.121, unit: 'ratio', derived: true, ...june },
];
const editions = [
  { ...corn2026, attribute: 'ending_stocks', value: 1957, unit: 'Million Bushels', change: null, ...may },
  { ...corn2026, attribute: 'ending_stocks', value: 1960, unit: 'Million Bushels', change: 3, ...june },
];
const supplyDemandPages =
  (figures: object[], view = 'figures') =>
  (_path: string, q: URLSearchParams) => {
    const page = Number(q.get('page'));
    const perPage = Number(q.get('per_page'));
    return json({
      data: figures.slice((page - 1) * perPage, page * perPage),
      meta: {
        commodity_id: 'CORN',
        region: 'united_states',
        view,
        page,
        per_page: perPage,
        total: figures.length,
        total_pages: Math.ceil(figures.length / perPage),
        attribution: 'USDA World Agricultural Outlook Board',
        request_id: REQUEST_ID,
      },
    });
  };

describe('supplyDemand', () => {
  it('sends the query as the API reads it, and awaited gives every figure with its unit and change', async () => {
    const { url, seen } = await stub(supplyDemandPages(editions, 'editions'));
    const client = new Client({ apiKey: KEY, baseUrl: url });
    const sd = await client.supplyDemand('CORN', {
      region: 'united_states',
      marketing_year: '2026/27',
      attribute: 'ending_stocks',
      view: 'editions',
      as_of: '2026-06-30',
      first_release: true,
      include: 'revisions',
    });
    expect(sd.data.map((f) => [f.edition, f.value, f.unit, f.change])).toEqual([
      ['2026-05', 1957, 'Million Bushels', null],
      ['2026-06', 1960, 'Million Bushels', 3],
    ]);
    expect(sd.meta.attribution).toBe('USDA World Agricultural Outlook Board');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe('/api/v1/commodities/CORN/supply-demand');
    expect(Object.fromEntries(seen[0]!.query)).toEqual({
      region: 'united_states',
      marketing_year: '2026/27',
      attribute: 'ending_stocks',
      view: 'editions',
      as_of: '2026-06-30',
      first_release: 'true',
      include: 'revisions',
      page: '1',
      per_page: '100',
    });
  });

  it('pages like the other lists: for await, or awaited once for every page', async () => {
    const { url, seen } = await stub(supplyDemandPages(sheet));
    const pager = new Client({ apiKey: KEY, baseUrl: url }).supplyDemand('CORN', { per_page: 2 });
    const attributes: string[] = [];
    for await (const f of pager) attributes.push(f.attribute);
    expect(attributes).toEqual(['area_planted', 'ending_stocks', 'stocks_to_use']);
    const all = await pager;
    expect(all.data.map((f) => f.unit)).toEqual(['Million Acres', 'Million Bushels', 'ratio']);
    expect(all.data[2]!.derived).toBe(true);
    expect(all.meta.total).toBe(3);
    // the walk: pages 1 and 2, the first page read once for both
    expect(seen.map((s) => s.query.get('page'))).toEqual(['1', '2', '2']);
    await pager;
    expect(seen).toHaveLength(3);
  });

  it('a refusal is a BadRequestError naming its parameter', async () => {
    const { url } = await stub(() => apiError(400, 'invalid_parameter', 'no figures for region mars', 'region'));
    const client = new Client({ apiKey: KEY, baseUrl: url });
    const err = await client.supplyDemand('CORN', { region: 'mars' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).param).toBe('region');
  });
});

// A converted answer recorded from the system (GET .../CORN/series?type=price&start_date=2026-01-01
// &currency=EUR&unit=t), checked against the contract's schema: the real national corn prices
// received (NASS, USD/bu) in euros per tonne, each month at the average of its days' reference
// rates; May and June 2026 had no rate yet (null).
const BU_PER_T = 1000 / (56 * 0.45359237);
const cornInEuroPerTonne = SeriesResponse.parse(
  JSON.parse(readFileSync(new URL('./recorded/corn-price-eur-t-2026.json', import.meta.url), 'utf8')),
);

describe('series in another currency and unit', () => {
  it('sends currency and unit, and the answer keeps its null values and the working', async () => {
    const { url, seen } = await stub(() => json(cornInEuroPerTonne));
    const client = new Client({ apiKey: KEY, baseUrl: url });
    const corn = await client.series('CORN', { type: 'price', start_date: '2026-01-01', currency: 'EUR', unit: 't' });
    expect(seen[0]!.path).toBe('/api/v1/commodities/CORN/series');
    expect(Object.fromEntries(seen[0]!.query)).toEqual({
      type: 'price',
      start_date: '2026-01-01',
      currency: 'EUR',
      unit: 't',
    });
    expect(corn.meta.unit).toBe('EUR/t');
    const conversion: Conversion | undefined = corn.meta.conversion;
    expect(conversion?.unit?.factor).toBeCloseTo(BU_PER_T, 12);
    expect(conversion?.currency).toMatchObject({ rule: 'monthly_average', missing: 2 });
    expect(conversion?.currency?.attribution).toBe('Source: ECB statistics');
    expect(corn.data.map((p) => p.value)).toEqual([137.52033, 136.84569, 145.44234, 145.78867, null, null]);
    expect(corn.data[0]!.fx_rate).toBe(0.85199452);
  });

  it('latest() passes them on, and a refusal names the parameter', async () => {
    const answers: Reply[] = [
      json({
        data: {
          id: 'CORN',
          name: 'Corn',
          category: 'agriculture',
          available_series: [
            { type: 'price', frequency: 'monthly', first_date: '2025-01-31', last_date: '2026-04-30' },
          ],
        },
        meta: { request_id: REQUEST_ID },
      }),
      json({ ...cornInEuroPerTonne, data: cornInEuroPerTonne.data.slice(3, 4) }),
      apiError(400, 'invalid_parameter', 'no exchange rates for XAU', 'currency'),
    ];
    const { url, seen } = await stub(() => answers.shift()!);
    const client = new Client({ apiKey: KEY, baseUrl: url });
    const newest = await client.latest('CORN', { type: 'price', currency: 'EUR', unit: 't' });
    expect(newest?.value).toBe(145.78867);
    expect(seen[1]!.query.get('currency')).toBe('EUR');
    expect(seen[1]!.query.get('unit')).toBe('t');
    const err = await client.series('CORN', { type: 'price', currency: 'XAU' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expect((err as BadRequestError).param).toBe('currency');
  });
});

describe('Retry-After', () => {
  it('retries a 429 after the seconds Retry-After gives', async () => {
    const answers = [
      apiError(429, 'rate_limited', 'Rate limit exceeded', undefined, { 'retry-after': '1' }),
      json(series),
    ];
    const { url, seen } = await stub(() => answers.shift()!);
    const res = await new Client({ apiKey: KEY, baseUrl: url }).series('CRUDE_OIL_WTI', { type: 'price' });
    expect(res.data.map((p) => p.value)).toEqual([70.38]);
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1_000);
  });

  it('throws at once a wait longer than maxRetryWaitSeconds, and bounds the retries', async () => {
    const long = await stub(() => apiError(429, 'rate_limited', 'daily limit', undefined, { 'retry-after': '3600' }));
    const err = await new Client({ apiKey: KEY, baseUrl: long.url }).commodity('GOLD').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 3600, requestId: REQUEST_ID });
    expect(long.seen).toHaveLength(1);
    server?.closeAllConnections();
    server?.close();

    const again = await stub(() => apiError(429, 'rate_limited', 'slow down', undefined, { 'retry-after': '0' }));
    await expect(
      new Client({ apiKey: KEY, baseUrl: again.url, maxRetries: 2 }).commodity('GOLD'),
    ).rejects.toBeInstanceOf(RateLimitError);
    expect(again.seen).toHaveLength(3);
  });
});

describe('errors', () => {
  it('a bad parameter is a BadRequestError with code, param and requestId', async () => {
    const { url } = await stub(() =>
      apiError(400, 'invalid_parameter', 'must be a whole number from 1 to 100', 'per_page'),
    );
    const err = await new Client({ apiKey: KEY, baseUrl: url })
      .commodities({ per_page: 0 })
      .first()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_parameter', param: 'per_page', requestId: REQUEST_ID });
    expect(String(err)).toMatch(/param: per_page/);
  });

  it('401 and an answer that is not the contract body', async () => {
    const replies = [
      apiError(401, 'unauthorized', 'unknown key'),
      { status: 502, headers: { 'x-request-id': 'edge-1' }, body: '<h1>Bad Gateway</h1>' },
    ];
    const { url } = await stub(() => replies.shift()!);
    const client = new Client({ apiKey: KEY, baseUrl: url });
    await expect(client.commodity('GOLD')).rejects.toBeInstanceOf(AuthenticationError);
    const err = await client.commodity('GOLD').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status: 502, code: 'unknown_error', requestId: 'edge-1' });
  });

  it('every request has a timeout', async () => {
    const { url } = await stub(() => new Promise((resolve) => setTimeout(() => resolve(json(series)), 2_000)));
    const started = Date.now();
    await expect(
      new Client({ apiKey: KEY, baseUrl: url, timeoutMs: 300 }).series('CRUDE_OIL_WTI', { type: 'price' }),
    ).rejects.toBeInstanceOf(ApiConnectionError);
    expect(Date.now() - started).toBeLessThan(1_500);
  });
});

describe('configuration', () => {
  it('takes the key and the base URL from CDS_API_KEY and CDS_BASE_URL', () => {
    const saved = { key: process.env.CDS_API_KEY, url: process.env.CDS_BASE_URL };
    try {
      process.env.CDS_API_KEY = KEY;
      process.env.CDS_BASE_URL = 'https://example.test:9000';
      expect(new Client().baseUrl).toBe('https://example.test:9000/api/v1');
      delete process.env.CDS_BASE_URL;
      expect(new Client().baseUrl).toBe(DEFAULT_BASE_URL);
      delete process.env.CDS_API_KEY;
      expect(() => new Client()).toThrow(/CDS_API_KEY/);
      expect(() => new Client({ apiKey: KEY, baseUrl: 'localhost:8080' })).toThrow(/http/);
    } finally {
      for (const [name, value] of [
        ['CDS_API_KEY', saved.key],
        ['CDS_BASE_URL', saved.url],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

/** Runs fn with the given environment variables set (undefined: unset), restoring them after. */
function withEnv<T>(vars: Record<string, string | undefined>, fn: () => T): T {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, value] of Object.entries(v)) {
      if (value === undefined) delete process.env[k];
      else process.env[k] = value;
    }
  };
  apply(vars);
  try {
    return fn();
  } finally {
    apply(saved);
  }
}

describe('plain http', () => {
  it('is refused to another machine unless asked, with a message saying how', () => {
    withEnv({ CDS_ALLOW_INSECURE_HTTP: undefined }, () => {
      for (const baseUrl of [
        'http://example.test:9000',
        'http://api.example.com/api/v1',
        'http://10.0.0.5:8080',
        'http://[2001:db8::1]:8080',
        'http://localhost.example.com',
        'http://127.0.0.1.example.com',
      ]) {
        let err: unknown;
        try {
          new Client({ apiKey: KEY, baseUrl });
        } catch (e) {
          err = e;
        }
        expect(err, baseUrl).toBeInstanceOf(TypeError);
        expect((err as Error).message).toMatch(/https:\/\/.*allowInsecureHttp: true/);
        expect((err as Error).message).not.toContain(KEY);
      }
      expect(new Client({ apiKey: KEY, baseUrl: 'http://api.example.com', allowInsecureHttp: true }).baseUrl).toBe(
        'http://api.example.com/api/v1',
      );
    });
    withEnv({ CDS_ALLOW_INSECURE_HTTP: '1' }, () => {
      expect(new Client({ apiKey: KEY, baseUrl: 'http://gateway:8080' }).baseUrl).toBe('http://gateway:8080/api/v1');
      expect(() => new Client({ apiKey: KEY, baseUrl: 'http://gateway:8080', allowInsecureHttp: false })).toThrow(
        /plain http/,
      );
    });
  });

  it('stays allowed to this machine (localhost, 127.0.0.0/8, ::1), and https anywhere', () => {
    withEnv({ CDS_ALLOW_INSECURE_HTTP: undefined }, () => {
      for (const baseUrl of [
        'http://localhost:8080',
        'http://LOCALHOST:8080/api/v1',
        'http://127.0.0.1:8080',
        'http://127.3.2.1',
        'http://[::1]:8080',
        'https://api.example.com',
        DEFAULT_BASE_URL,
      ]) {
        expect(new Client({ apiKey: KEY, baseUrl }).baseUrl, baseUrl).toMatch(/\/api\/v1$/);
      }
    });
  });
});

describe('the key is never shown', () => {
  it('not by util.inspect / console.log or JSON.stringify', async () => {
    const { url, seen } = await stub(() => json(series));
    const client = new Client({ apiKey: KEY, baseUrl: url });
    await client.series('CRUDE_OIL_WTI', { type: 'price' });
    expect(seen[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    const shown = [
      inspect(client),
      inspect(client, { depth: Infinity, showHidden: true, getters: true }),
      inspect({ nested: { client } }, { depth: Infinity }),
      JSON.stringify(client),
      JSON.stringify({ client }),
      inspect(client.lowlevel, { depth: Infinity, showHidden: true }),
    ];
    for (const text of shown) expect(text).not.toContain(KEY);
    expect(inspect(client)).toBe(`Client { baseUrl: ${JSON.stringify(url)} }`);
    expect(JSON.parse(JSON.stringify(client))).toEqual({ baseUrl: url });
  });

  it('not by an error, even when the answer quotes the key', async () => {
    const { url } = await stub(() => apiError(401, 'unauthorized', `unknown key ${KEY}`));
    const err = await new Client({ apiKey: KEY, baseUrl: url }).commodity('GOLD').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as Error).message).toContain('unknown key [REDACTED]');
    for (const text of [String(err), (err as Error).stack ?? '', inspect(err, { depth: Infinity, showHidden: true })]) {
      expect(text).not.toContain(KEY);
    }
    // No answer at all: the connection error names the URL, not the key.
    const refused = await new Client({ apiKey: KEY, baseUrl: 'http://127.0.0.1:1' }).status().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiConnectionError);
    expect(inspect(refused, { depth: Infinity, showHidden: true })).not.toContain(KEY);
  });

  it('nor by the refusal of a key no header can carry', () => {
    for (const bad of [`${KEY}\n`, `${KEY} x`, `${KEY}é`, `${KEY}\r\nx-injected: 1`]) {
      let err: unknown;
      try {
        new Client({ apiKey: bad, baseUrl: DEFAULT_BASE_URL });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(TypeError);
      expect((err as Error).message).not.toContain(KEY);
    }
  });
});
