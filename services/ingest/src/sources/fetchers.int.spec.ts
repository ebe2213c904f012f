import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collect, ownFixturePath, realFixturePath } from '../../test/helpers/source-fixtures.ts';
import { fetchCftcCot } from './cftc/fetch.ts';
import { createHttpClient, SourceFetchError } from './common/http.ts';
import { createParseStats } from './common/stats.ts';
import { fetchEiaSeries } from './eia/fetch.ts';
import { fetchNassQuickStats } from './nass/fetch.ts';
import { CATALOG } from './registry.ts';

// A local HTTP server on 127.0.0.1 serving recorded (and constructed) source responses.
type Handler = (req: IncomingMessage, url: URL, res: ServerResponse) => void;
let server: Server;
let baseUrl: string;
let handler: Handler;
const seen: { url: URL; headers: IncomingMessage['headers'] }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', baseUrl);
    seen.push({ url, headers: req.headers });
    handler(req, url, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  seen.length = 0;
});

/** Sleeps are recorded, not waited, so backoff and rate-limit delays are visible and fast. */
function fakeTime() {
  let t = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: (ms: number) => {
      sleeps.push(ms);
      t += ms;
      return Promise.resolve();
    },
    random: () => 0.5,
  };
}

const json = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
};

describe('CFTC Socrata fetcher', () => {
  it('pages with $limit/$offset, sends the app token, and retries a 429 after Retry-After', async () => {
    const legacy = JSON.parse(readFileSync(ownFixturePath('cftc_socrata_legacy_sample.json'), 'utf8')) as unknown[];
    let first = true;
    handler = (_req, url, res) => {
      if (first) {
        first = false;
        return json(res, 429, '{"message":"slow down"}', { 'retry-after': '2' });
      }
      const offset = Number(url.searchParams.get('$offset'));
      json(res, 200, JSON.stringify(legacy.slice(offset, offset + 1)));
    };
    const time = fakeTime();
    const stats = createParseStats();
    const items = await collect(
      fetchCftcCot({
        catalog: CATALOG,
        format: 'legacy',
        baseUrl,
        appToken: 'tok',
        pageSize: 1,
        from: '2025-01-01',
        stats,
        ...time,
      }),
    );
    expect(items.filter((i) => i.kind === 'cot')).toHaveLength(1);
    expect(items.filter((i) => i.kind === 'rejected')).toHaveLength(1); // the GOLD row without open interest
    expect(stats).toMatchObject({ rows: 3, skipped: 1 });
    // 1 throttled + 4 pages (3 rows, then an empty page)
    expect(seen.map((s) => s.url.searchParams.get('$offset'))).toEqual(['0', '0', '1', '2', '3']);
    const u = seen[1]!.url;
    expect(u.pathname).toBe('/resource/6dca-aqww.json');
    expect(u.searchParams.get('$where')).toContain("cftc_contract_market_code in ('067651'");
    expect(u.searchParams.get('$where')).toContain("report_date_as_yyyy_mm_dd >= '2025-01-01T00:00:00.000'");
    expect(u.searchParams.get('$order')).toBe('report_date_as_yyyy_mm_dd,cftc_contract_market_code');
    expect(seen[1]!.headers['x-app-token']).toBe('tok');
    expect(time.sleeps).toContain(2000); // Retry-After respected
  });
});

describe('EIA API v2 fetcher', () => {
  it('builds the v2 query with the key and reads each page', async () => {
    const body = readFileSync(ownFixturePath('eia_api_v2_wcestus1_sample.json'), 'utf8');
    handler = (_req, _url, res) => json(res, 200, body);
    const items = await collect(
      fetchEiaSeries({
        catalog: CATALOG,
        apiKey: 'secret-key',
        series: ['WCESTUS1'],
        baseUrl,
        start: '2024-08-16',
        ...fakeTime(),
      }),
    );
    expect(items.filter((i) => i.kind === 'series')).toHaveLength(3);
    const u = seen[0]!.url;
    expect(u.pathname).toBe('/v2/petroleum/stoc/wstk/data/');
    expect(Object.fromEntries(u.searchParams)).toMatchObject({
      api_key: 'secret-key',
      frequency: 'weekly',
      'data[0]': 'value',
      'facets[series][]': 'WCESTUS1',
      start: '2024-08-16',
      offset: '0',
      length: '5000',
    });
  });

  it('gives up after repeated 500s with a clear error that does not show the key', async () => {
    handler = (_req, _url, res) => json(res, 500, '{"error":"internal"}');
    const time = fakeTime();
    const err = await collect(
      fetchEiaSeries({
        catalog: CATALOG,
        apiKey: 'secret-key',
        series: ['RWTC'],
        baseUrl,
        maxRetries: 3,
        minIntervalMs: 0,
        ...time,
      }),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SourceFetchError);
    const e = err as SourceFetchError;
    expect(e.status).toBe(500);
    expect(e.attempts).toBe(4);
    expect(e.message).toMatch(/^eia: GET .* failed after 4 attempts; last: HTTP 500/);
    expect(e.message).toContain('api_key=***');
    expect(e.message).not.toContain('secret-key');
    expect(seen).toHaveLength(4);
    // exponential backoff with jitter (random() = 0.5 gives 75 % of the base delay)
    expect(time.sleeps).toEqual([375, 750, 1500]);
  });

  it('does not retry a 403 (bad key)', async () => {
    handler = (_req, _url, res) => json(res, 403, '{"error":"API_KEY_INVALID"}');
    await expect(
      collect(fetchEiaSeries({ catalog: CATALOG, apiKey: 'k', series: ['RWTC'], baseUrl, ...fakeTime() })),
    ).rejects.toMatchObject({ status: 403, attempts: 1 });
    expect(seen).toHaveLength(1);
  });
});

describe('NASS Quick Stats fetcher', () => {
  it('queries one data item at a time with the key and treats "no data" as empty', async () => {
    const body = readFileSync(realFixturePath('nass_quickstats_api_corn_yield_va_2012.json'), 'utf8');
    handler = (_req, url, res) => {
      if (url.searchParams.get('short_desc')?.includes('YIELD')) return json(res, 200, body);
      json(res, 400, '{"error":["bad request - no data"]}');
    };
    const stats = createParseStats();
    const items = await collect(
      fetchNassQuickStats({
        catalog: CATALOG,
        apiKey: 'nass-key',
        commodities: ['CORN'],
        baseUrl,
        fromYear: 2012,
        filter: { level: 'STATE', state: 'VA' },
        stats,
        ...fakeTime(),
      }),
    );
    expect(items).toEqual([]); // census by practice and forecasts only
    expect(stats).toMatchObject({ rows: 10, skippedByReason: { unmapped_item: 6, forecast: 4 } });
    expect(seen).toHaveLength(6); // five fundamentals and the monthly price received
    const price = seen.find((s) => s.url.searchParams.get('short_desc')!.includes('PRICE RECEIVED'))!.url;
    expect(price.searchParams.get('freq_desc')).toBe('MONTHLY');
    const u = seen.find((s) => s.url.searchParams.get('short_desc')!.includes('YIELD'))!.url;
    expect(u.pathname).toBe('/api/api_GET/');
    expect(Object.fromEntries(u.searchParams)).toMatchObject({
      key: 'nass-key',
      short_desc: 'CORN, GRAIN - YIELD, MEASURED IN BU / ACRE',
      agg_level_desc: 'STATE',
      state_alpha: 'VA',
      source_desc: 'SURVEY',
      year__GE: '2012',
      format: 'JSON',
    });
  });
});

describe('HTTP client', () => {
  it('spaces requests by the source rate limit, also for concurrent callers', async () => {
    handler = (_req, _url, res) => json(res, 200, '[]');
    const time = fakeTime();
    const client = createHttpClient({ source: 'test', minIntervalMs: 1000, ...time });
    await Promise.all([1, 2, 3].map(() => client.getText(new URL('/x', baseUrl))));
    expect(time.sleeps).toEqual([1000, 1000]);
    expect(seen).toHaveLength(3);
  });

  it('retries network errors and times out slow responses', async () => {
    handler = () => {
      /* never answers */
    };
    const client = createHttpClient({ source: 'test', timeoutMs: 50, maxRetries: 1, ...fakeTime() });
    await expect(client.getText(new URL('/slow', baseUrl))).rejects.toThrow(
      /failed after 2 attempts; last: timed out after 50 ms/,
    );
    const refused = createHttpClient({ source: 'test', maxRetries: 1, ...fakeTime() });
    await expect(refused.getText(new URL('http://127.0.0.1:1/'))).rejects.toThrow(/last: network error/);
  });

  it('fetches https only: plain http only to a loopback host, refused before any request', async () => {
    const client = createHttpClient({ source: 'test', maxRetries: 0, ...fakeTime() });
    for (const url of ['http://example.com/x', 'http://10.0.0.1/x', 'ftp://127.0.0.1/x', 'file:///etc/passwd']) {
      const err = await client.getText(new URL(url)).catch((e: unknown) => e);
      expect(err, url).toBeInstanceOf(SourceFetchError);
      expect((err as Error).message, url).toMatch(/only https is fetched/);
    }
    expect(seen).toHaveLength(0);
  });

  it('follows a few same-origin redirects and refuses one to another host or scheme', async () => {
    handler = (_req, url, res) => {
      if (url.pathname === '/hop') res.writeHead(302, { location: '/final' }).end();
      else if (url.pathname === '/loop') res.writeHead(301, { location: '/loop' }).end();
      else if (url.pathname === '/away') res.writeHead(302, { location: 'https://evil.example/CMO.xlsx' }).end();
      else if (url.pathname === '/downgrade')
        res.writeHead(307, { location: `http://localhost:${url.port}/final` }).end();
      else json(res, 200, '"here"');
    };
    const client = createHttpClient({ source: 'test', maxRetries: 2, ...fakeTime() });
    expect(await client.getText(new URL('/hop', baseUrl))).toBe('"here"');
    await expect(client.getText(new URL('/away', baseUrl))).rejects.toThrow(
      'test: GET ' +
        baseUrl +
        '/away: HTTP 302 redirects to another host or scheme (https://evil.example): not followed',
    );
    // another host name for the same server is another origin too
    await expect(client.getText(new URL('/downgrade', baseUrl))).rejects.toThrow(/redirects to another host or scheme/);
    await expect(client.getText(new URL('/loop', baseUrl))).rejects.toThrow(/more than 3 redirects: not followed/);
    // refused at once, not retried: /away asked once
    expect(seen.filter((r) => r.url.pathname === '/away')).toHaveLength(1);
    expect(seen.filter((r) => r.url.pathname === '/loop')).toHaveLength(4);
  });

  it('reads a text body within its bound, announced or chunked', async () => {
    handler = (_req, url, res) => {
      res.writeHead(200, url.pathname === '/announced' ? { 'content-length': '3000' } : {});
      for (let i = 0; i < 3; i++) res.write(Buffer.alloc(1000, 120));
      res.end();
    };
    const client = createHttpClient({ source: 'test', maxRetries: 0, maxTextBytes: 2500, ...fakeTime() });
    await expect(client.getText(new URL('/announced', baseUrl))).rejects.toThrow(
      /the body is 3000 bytes, more than the 2500 read/,
    );
    await expect(client.getText(new URL('/chunked', baseUrl))).rejects.toThrow(/more than the 2500 read/);
    const roomy = createHttpClient({ source: 'test', maxRetries: 0, maxTextBytes: 3000, ...fakeTime() });
    expect(await roomy.getText(new URL('/chunked', baseUrl))).toHaveLength(3000);
  });
});
