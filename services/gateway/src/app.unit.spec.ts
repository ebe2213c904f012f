import { connect, type AddressInfo } from 'node:net';
import { Readable, Writable } from 'node:stream';
import { ERROR_CODE_LIST, ErrorBody, buildOpenApiDocument, type KeyEvent } from '@cds/contracts';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { createResponseCache, type ResponseCache } from '@cds/response-cache';
import { createLogger } from '@cds/telemetry';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import { forwardedQuery } from './proxy/forwarded-query.ts';
import { FailedAuthLimiter } from './auth/failed-auth-limiter.ts';
import { KeyTable, hashKey } from './keys/key-table.ts';
import type { QueryClient } from './proxy/query-client.ts';
import { createMemoryRateLimiter } from './rate/memory-limiter.ts';
import type { RateLimiter } from './rate/windows.ts';

const doc = buildOpenApiDocument();
const validate = createOpenApiResponseValidator(doc);

const KEYS = {
  free: 'f'.repeat(40),
  professional: 'a'.repeat(40),
  business: 'b'.repeat(40),
  revoked: 'c'.repeat(40),
};
const ev = <T extends KeyEvent['type']>(type: T, data: Extract<KeyEvent, { type: T }>['data']) =>
  ({
    id: `${type}:${Math.random()}`,
    type,
    version: 1,
    occurred_at: '2026-11-01T00:00:00Z',
    source: 'test',
    data,
  }) as KeyEvent;

function keyTable(): KeyTable {
  const t = new KeyTable();
  const plans = { free: 'free', professional: 'professional', business: 'business', revoked: 'enterprise' } as const;
  for (const [name, plan] of Object.entries(plans)) {
    const account = `acc_${name.padEnd(8, '0')}`;
    t.apply(ev('account.created', { account_id: account, name, plan }));
    t.apply(
      ev('key.created', {
        key_id: `key_${name.padEnd(8, '0')}`,
        account_id: account,
        key_hash: hashKey(KEYS[name as keyof typeof KEYS]),
        plan,
      }),
    );
  }
  t.apply(ev('key.revoked', { key_id: 'key_revoked0', account_id: 'acc_revoked0', key_hash: hashKey(KEYS.revoked) }));
  return t;
}

const NOW = Date.UTC(2026, 10, 21, 12, 0, 30);
const SERIES_BODY = JSON.stringify({
  data: [{ date: '2026-11-20', value: 70.1 }],
  meta: {
    commodity_id: 'GOLD',
    type: 'price',
    frequency: 'daily',
    transform: 'none',
    count: 1,
    request_id: 'PLACEHOLDER',
  },
});

interface Harness {
  app: ReturnType<typeof buildApp>;
  calls: { path: string; requestId: string; preconditions?: boolean }[];
  lookups: string[];
  logs: string[];
  table: KeyTable;
  clock: { now: number };
  queryDown: { value: boolean };
}

function harness(
  opts: { failedAuth?: FailedAuthLimiter; cache?: ResponseCache; onQuery?: () => void; rateCalls?: string[] } = {},
): Harness {
  const calls: Harness['calls'] = [];
  const lookups: string[] = [];
  const logs: string[] = [];
  const table = keyTable();
  const clock = { now: NOW };
  const queryDown = { value: false };
  const query: QueryClient = {
    get(path, requestId, headers) {
      const preconditions = headers?.['if-none-match'] !== undefined || headers?.['if-modified-since'] !== undefined;
      calls.push(preconditions ? { path, requestId, preconditions } : { path, requestId });
      opts.onQuery?.();
      if (queryDown.value) return Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:8081'));
      if (headers?.accept === 'text/csv') {
        const csv = 'date,value\r\n2025-01-02,2650.5\r\n';
        return Promise.resolve({
          statusCode: 200,
          headers: {
            'content-type': 'text/csv; charset=utf-8; header=present',
            'content-length': String(Buffer.byteLength(csv)),
            'content-disposition': 'attachment; filename="GOLD-series-price.csv"',
            etag: '"query-csv-etag"',
            'cache-control': 'private, max-age=60',
            vary: 'Accept',
          },
          body: Readable.from([Buffer.from(csv)]),
        });
      }
      const body = path.includes('/series') ? SERIES_BODY.replace('PLACEHOLDER', requestId) : '{"data":[]}';
      return Promise.resolve({
        statusCode: 200,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(Buffer.byteLength(body)),
          // The validators and freshness the query service sends with every data 200.
          etag: '"query-etag"',
          'cache-control': 'private, max-age=60',
          vary: 'Accept',
        },
        body: Readable.from([Buffer.from(body)]),
      });
    },
    close: () => Promise.resolve(),
  };
  const logger = createLogger({
    name: 'gateway',
    level: 'debug',
    destination: new Writable({
      write(chunk: Buffer, _e, cb) {
        logs.push(chunk.toString());
        cb();
      },
    }),
  });
  const app = buildApp({
    keys: {
      lookup: (key) => {
        lookups.push(key);
        return table.lookup(key);
      },
      isReady: () => true,
    },
    rateLimiter: spiedOn(createMemoryRateLimiter({ nowMs: () => clock.now }), opts.rateCalls),
    query,
    logger,
    nowMs: () => clock.now,
    publicBaseUrl: 'https://api.example.com',
    openapiDocument: doc,
    ...(opts.failedAuth === undefined ? {} : { failedAuth: opts.failedAuth }),
    ...(opts.cache === undefined ? {} : { cache: opts.cache }),
  });
  return { app, calls, lookups, logs, table, clock, queryDown };
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The limiter, with each call's kind (take, check, giveBack) written to `calls` when given. */
function spiedOn(limiter: RateLimiter, calls: string[] | undefined): RateLimiter {
  if (calls === undefined) return limiter;
  return {
    take: (...args) => (calls.push('take'), limiter.take(...args)),
    check: (...args) => (calls.push('check'), limiter.check(...args)),
    giveBack: (...args) => (calls.push('giveBack'), limiter.giveBack(...args)),
  };
}
const SERIES = '/api/v1/commodities/GOLD/series?type=price';

describe('authentication', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });

  it('answers 401 unauthorized without a key, with a request id and no rate headers', async () => {
    const res = await h.app.inject(SERIES);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({
      error: { code: 'unauthorized', doc_url: 'https://api.example.com/docs/errors#unauthorized' },
    });
    expect(res.headers['x-request-id']).toBe(res.json().error.request_id);
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    validate('/commodities/{slug}/series', res);
  });

  it('rejects malformed keys with 401 without a lookup', async () => {
    for (const key of ['F'.repeat(40), 'f'.repeat(39), 'f'.repeat(41), 'g'.repeat(40), `${'f'.repeat(39)} `]) {
      const res = await h.app.inject({ url: SERIES, headers: bearer(key) });
      expect(res.statusCode, key).toBe(401);
    }
    expect(h.lookups).toEqual([]);
  });

  it('rejects unknown and revoked keys', async () => {
    expect((await h.app.inject({ url: SERIES, headers: bearer('0'.repeat(40)) })).statusCode).toBe(401);
    expect((await h.app.inject({ url: SERIES, headers: bearer(KEYS.revoked) })).statusCode).toBe(401);
  });

  it('accepts the key as Bearer or as api_key, and the header wins when both are given', async () => {
    expect((await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) })).statusCode).toBe(200);
    expect((await h.app.inject(`${SERIES}&api_key=${KEYS.free}`)).statusCode).toBe(200);
    const headerBad = await h.app.inject({ url: `${SERIES}&api_key=${KEYS.free}`, headers: bearer('0'.repeat(40)) });
    expect(headerBad.statusCode).toBe(401);
    const headerGood = await h.app.inject({ url: `${SERIES}&api_key=${'0'.repeat(40)}`, headers: bearer(KEYS.free) });
    expect(headerGood.statusCode).toBe(200);
    expect((await h.app.inject({ url: SERIES, headers: { authorization: `Basic ${KEYS.free}` } })).statusCode).toBe(
      401,
    );
    expect((await h.app.inject(`${SERIES}&api_key=${KEYS.free}&api_key=${KEYS.free}`)).statusCode).toBe(401);
  });

  it('refuses duplicate Authorization headers', async () => {
    const res = await h.app.inject({
      url: SERIES,
      // Two Authorization fields on the wire (light-my-request sends an array as repeated fields).
      headers: { authorization: [`Bearer ${KEYS.free}`, `Bearer ${KEYS.business}`] } as unknown as Record<
        string,
        string
      >,
    });
    expect(res.statusCode).toBe(401);
  });

  it('never forwards or logs the key', async () => {
    await h.app.inject(`${SERIES}&api_key=${KEYS.business}&limit=5`);
    await h.app.inject({ url: `${SERIES}&api_key=${'0'.repeat(40)}`, headers: bearer(KEYS.revoked) });
    expect(h.calls[0]!.path).toBe('/api/v1/commodities/GOLD/series?type=price&limit=5');
    const logged = h.logs.join('');
    for (const key of [KEYS.business, KEYS.revoked, '0'.repeat(40)]) expect(logged).not.toContain(key);
  });
});

describe('forwardedQuery', () => {
  it('drops api_key in any spelling and keeps the rest in order', () => {
    expect(forwardedQuery('/x')).toBe('');
    expect(forwardedQuery('/x?')).toBe('');
    expect(forwardedQuery('/x?a=1&b=2')).toBe('?a=1&b=2');
    expect(forwardedQuery('/x?api_key=k&a=1')).toBe('?a=1');
    expect(forwardedQuery('/x?a=1&API_KEY=k&api%5Fkey=k2&b=%ZZ')).toBe('?a=1&b=%ZZ');
    expect(forwardedQuery('/x?api_key=k')).toBe('');
  });
});

describe('rate windows', () => {
  it('sets the headers on every authenticated answer and refuses the 11th free request with 429', async () => {
    const h = harness();
    for (let i = 1; i <= 10; i += 1) {
      const res = await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('10');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(10 - i));
      expect(res.headers['x-ratelimit-reset']).toBe(String(Math.floor(NOW / 60_000 + 1) * 60));
      expect(res.headers['ratelimit-policy']).toBe('"minute";q=10;w=60, "day";q=1000;w=86400');
      validate('/commodities/{slug}/series', res);
    }
    const refused = await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: { code: 'rate_limited' } });
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    validate('/commodities/{slug}/series', refused);
    expect(h.calls).toHaveLength(10);

    // A refused request is not counted: the next minute admits ten again, and the day has 990 left.
    h.clock.now = NOW + 30_000;
    const next = await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) });
    expect(next.statusCode).toBe(200);
    expect(next.headers['x-ratelimit-remaining']).toBe('9');
  });

  it('counts 4xx answers too and puts the headers on them', async () => {
    const h = harness();
    const bad = await h.app.inject({ url: '/api/v1/commodities/gold', headers: bearer(KEYS.free) });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'invalid_parameter', param: 'slug' } });
    expect(bad.headers['x-ratelimit-remaining']).toBe('9');
    validate('/commodities/{slug}', bad);
  });
});

describe('plan rules', () => {
  const COT = '/api/v1/commodities/GOLD/cot';

  it('free: no COT (403 forbidden), 12 months of history (403 historical_limit on start_date)', async () => {
    const h = harness();
    const cot = await h.app.inject({ url: COT, headers: bearer(KEYS.free) });
    expect(cot.statusCode).toBe(403);
    expect(cot.json()).toMatchObject({ error: { code: 'forbidden' } });
    expect(cot.headers['x-ratelimit-limit']).toBe('10');
    validate('/commodities/{slug}/cot', cot);

    const old = await h.app.inject({ url: `${SERIES}&start_date=2025-11-20`, headers: bearer(KEYS.free) });
    expect(old.statusCode).toBe(403);
    expect(old.json()).toMatchObject({ error: { code: 'historical_limit', param: 'start_date' } });
    validate('/commodities/{slug}/series', old);
    expect(
      (await h.app.inject({ url: `${SERIES}&start_date=2025-11-21`, headers: bearer(KEYS.free) })).statusCode,
    ).toBe(200);
    const oldEnd = await h.app.inject({ url: `${SERIES}&end_date=2025-06-30`, headers: bearer(KEYS.free) });
    expect(oldEnd.json()).toMatchObject({ error: { code: 'historical_limit', param: 'start_date' } });
    expect(h.calls.every((c) => !c.path.includes('cot'))).toBe(true);
  });

  it('professional: legacy only; business: both; full history', async () => {
    const h = harness();
    expect((await h.app.inject({ url: COT, headers: bearer(KEYS.professional) })).statusCode).toBe(200);
    const dis = await h.app.inject({ url: `${COT}?format=disaggregated`, headers: bearer(KEYS.professional) });
    expect(dis.statusCode).toBe(403);
    expect(dis.json().error.code).toBe('forbidden');
    expect(
      (await h.app.inject({ url: `${COT}?format=disaggregated`, headers: bearer(KEYS.business) })).statusCode,
    ).toBe(200);
    expect(
      (await h.app.inject({ url: `${SERIES}&start_date=1990-01-01`, headers: bearer(KEYS.professional) })).statusCode,
    ).toBe(200);
  });

  it('the CIT supplement and the combined reports follow their layout: cit and legacy with Professional, disaggregated with Business', async () => {
    const h = harness();
    const freeCit = await h.app.inject({ url: `${COT}?format=cit`, headers: bearer(KEYS.free) });
    expect(freeCit.statusCode).toBe(403);
    expect(freeCit.json()).toMatchObject({
      error: { code: 'forbidden', message: expect.stringContaining('Professional') },
    });
    validate('/commodities/{slug}/cot', freeCit);
    expect((await h.app.inject({ url: `${COT}?format=cit`, headers: bearer(KEYS.professional) })).statusCode).toBe(200);
    const legacyCombined = `${COT}?format=legacy&scope=futures_and_options`;
    expect((await h.app.inject({ url: legacyCombined, headers: bearer(KEYS.professional) })).statusCode).toBe(200);
    const disCombined = await h.app.inject({
      url: `${COT}?format=disaggregated&scope=futures_and_options`,
      headers: bearer(KEYS.professional),
    });
    expect(disCombined.statusCode).toBe(403);
    expect(disCombined.json()).toMatchObject({
      error: { code: 'forbidden', message: expect.stringContaining('Business') },
    });
    validate('/commodities/{slug}/cot', disCombined);
    // The refusals never reached the query service; the allowed requests were forwarded with their scope.
    expect(h.calls.map((c) => c.path)).toEqual([
      expect.stringContaining('format=cit'),
      expect.stringContaining('scope=futures_and_options'),
    ]);
  });

  it('a plan change applies at once to every key of the account', async () => {
    const h = harness();
    expect((await h.app.inject({ url: COT, headers: bearer(KEYS.free) })).statusCode).toBe(403);
    h.table.apply(ev('account.plan_changed', { account_id: 'acc_free0000', plan: 'business', previous_plan: 'free' }));
    const res = await h.app.inject({ url: COT, headers: bearer(KEYS.free) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-ratelimit-limit']).toBe('500');
  });

  it('leaves malformed parameters to the query service, which names them', async () => {
    const h = harness();
    await h.app.inject({ url: `${SERIES}&start_date=2024-02-30`, headers: bearer(KEYS.free) });
    expect(h.calls).toHaveLength(1);
  });
});

describe('routing and failures', () => {
  it('forwards with the request id and streams the answer', async () => {
    const h = harness();
    const res = await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) });
    expect(res.statusCode).toBe(200);
    expect(h.calls[0]!.requestId).toBe(res.headers['x-request-id']);
    expect(res.json().meta.request_id).toBe(res.headers['x-request-id']);
    expect(res.headers['content-type']).toContain('application/json');
    validate('/commodities/{slug}/series', res);
  });

  it('answers 503 when the query service is down, without leaking its address', async () => {
    const h = harness();
    h.queryDown.value = true;
    const res = await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.code).toBe('service_unavailable');
    expect(res.body).not.toContain('10.1.2.3');
    validate('/commodities/{slug}/series', res);
  });

  it('keeps encoded traversal inside the slug: it never reaches another route', async () => {
    const h = harness();
    for (const path of ['%2E%2E%2Fhealthz', '..%2F..%2Fadmin', '%2E%2E', 'GOLD%2Fseries', 'GOLD%00']) {
      const res = await h.app.inject({ url: `/api/v1/commodities/${path}`, headers: bearer(KEYS.business) });
      // 400 on the slug, or 404 where the router refuses the segment itself: never forwarded.
      expect([400, 404], path).toContain(res.statusCode);
      expect(ErrorBody.safeParse(res.json()).success).toBe(true);
      if (res.statusCode === 400) expect(res.json().error.param).toBe('slug');
    }
    expect(h.calls).toEqual([]);
  });

  it('answers unknown routes 404, write methods 405, preflight 204, long URLs 414, bodies 413', async () => {
    const h = harness();
    const missing = await h.app.inject({ url: '/api/v2/commodities', headers: bearer(KEYS.business) });
    expect(missing.statusCode).toBe(404);
    expect(ErrorBody.parse(missing.json()).error.code).toBe('not_found');
    const post = await h.app.inject({ method: 'DELETE', url: '/api/v1/commodities/GOLD' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
    const preflight = await h.app.inject({
      method: 'OPTIONS',
      url: SERIES,
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-headers']).toContain('Authorization');
    const long = await h.app.inject({ url: `${SERIES}&x=${'a'.repeat(5000)}`, headers: bearer(KEYS.business) });
    expect(long.statusCode).toBe(414);
    expect(long.json().error.code).toBe('uri_too_long');
    const body = await h.app.inject({
      method: 'GET',
      url: SERIES,
      headers: { ...bearer(KEYS.business), 'content-type': 'application/json' },
      payload: '{"a":1}',
    });
    expect(body.statusCode).toBe(413);
    expect(body.json().error.code).toBe('payload_too_large');
    expect(h.calls).toEqual([]);
  });

  it('answers every method it does not serve 405 with Allow on every API path, before authentication', async () => {
    const h = harness();
    const paths = ['/api/v1/commodities', '/api/v1/commodities/GOLD', SERIES, '/api/v1/commodities/GOLD/cot'];
    for (const url of [...paths, '/api/v1/commodities/gold', '/api/v1/openapi.json']) {
      for (const method of ['TRACE', 'QUERY', 'PROPFIND', 'PURGE', 'M-SEARCH', 'POST']) {
        const res = await h.app.inject({ method: method as 'GET', url });
        expect(res.statusCode, `${method} ${url}`).toBe(405);
        expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
        expect(ErrorBody.parse(res.json()).error).toMatchObject({ code: 'method_not_allowed' });
        expect(res.headers['x-request-id']).toMatch(/^req_/);
      }
    }
    // A body does not change the answer (it is not read), and its connection is not kept.
    const withBody = await h.app.inject({
      method: 'QUERY' as 'GET',
      url: '/api/v1/commodities',
      headers: { 'content-type': 'application/json' },
      payload: '{not json',
    });
    expect(withBody.statusCode).toBe(405);
    expect(withBody.headers.connection).toBe('close');
    expect(h.lookups).toEqual([]);
    expect(h.calls).toEqual([]);
  });

  it("answers methods Node's parser does not know, and CONNECT, 405 on API paths (raw socket), with the security headers", async () => {
    const expectSecurityHeaders = (answer: string) => {
      const head = answer.slice(0, answer.indexOf('\r\n\r\n')).toLowerCase();
      expect(head).toContain('\r\nx-content-type-options: nosniff\r\n');
      expect(head).toContain('\r\nx-frame-options: deny\r\n');
      expect(head).toContain('\r\nreferrer-policy: no-referrer\r\n');
      expect(head).toContain('\r\ncross-origin-resource-policy: cross-origin\r\n');
      expect(head).toContain('\r\naccess-control-allow-origin: *\r\n');
      expect(head).toMatch(/\r\nx-request-id: req_/);
    };
    const h = harness();
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = h.app.server.address() as AddressInfo;
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        let text = '';
        socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
        socket.setTimeout(5_000, () => reject(new Error('no answer')));
      });
    try {
      for (const request of [
        'FOO /api/v1/commodities HTTP/1.1\r\nHost: x\r\n\r\n',
        'BREW /api/v1/commodities/GOLD/series?type=price HTTP/1.1\r\nHost: x\r\n\r\n',
        'CONNECT /api/v1/commodities HTTP/1.1\r\nHost: x\r\n\r\n',
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      ]) {
        const answer = await raw(request);
        expect(answer, request).toMatch(/^HTTP\/1\.1 405 /);
        expectSecurityHeaders(answer);
        expect(answer).toMatch(/\r\nAllow: GET, HEAD, OPTIONS\r\n/);
        const body = ErrorBody.parse(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)));
        expect(body.error.code).toBe('method_not_allowed');
      }
      const notFound = await raw('FOO /nope HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(notFound).toMatch(/^HTTP\/1\.1 404 [^]*"not_found"/);
      expectSecurityHeaders(notFound);
      const unparseable = await raw('F(O /api/v1/commodities HTTP/1.1\r\nHost: x\r\n\r\n');
      expect(unparseable).toMatch(/^HTTP\/1\.1 400 /);
      expectSecurityHeaders(unparseable);
      // A request head over 8 KiB (the gateway's maxHeaderSize; Node's default is 16 KiB) is
      // refused by the parser: 413 written raw, whichever headers make it up.
      for (const head of [`X-Big: ${'a'.repeat(10_000)}`, `Accept: x${' '.repeat(9_000)}y`]) {
        const oversized = await raw(`GET /api/v1/commodities HTTP/1.1\r\nHost: x\r\n${head}\r\n\r\n`);
        expect(oversized).toMatch(/^HTTP\/1\.1 413 [^]*"payload_too_large"/);
        expectSecurityHeaders(oversized);
      }
    } finally {
      await h.app.close();
    }
    expect(h.calls).toEqual([]);
  });

  it('sets security and CORS headers on every response', async () => {
    const h = harness();
    for (const res of [
      await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) }),
      await h.app.inject('/nope'),
      // Fastify's own refusal of a badly encoded path (frameworkErrors).
      await h.app.inject({ url: '/api/v1/commodities/%ZZ', headers: bearer(KEYS.business) }),
    ]) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.headers['x-request-id']).toMatch(/^req_/);
    }
  });
});

describe('failed authentication throttling', () => {
  it('slows one address after repeated failures without locking out valid keys or other clients', async () => {
    const h = harness({ failedAuth: new FailedAuthLimiter({ maxFailures: 5, windowMs: 60_000 }) });
    const from = (remoteAddress: string, headers: Record<string, string> = bearer('0'.repeat(40))) =>
      h.app.inject({ url: SERIES, headers, remoteAddress });
    for (let i = 0; i < 5; i += 1) expect((await from('203.0.113.9')).statusCode).toBe(401);
    const throttled = await from('203.0.113.9');
    expect(throttled.statusCode).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await from('203.0.113.9', bearer(KEYS.business))).statusCode).toBe(200);
    expect((await from('198.51.100.7')).statusCode).toBe(401);
    h.clock.now += 60_000;
    expect((await from('203.0.113.9')).statusCode).toBe(401);
  });

  it('counts an IPv6 client by its /64: rotating addresses inside it does not reset the count', async () => {
    const h = harness({ failedAuth: new FailedAuthLimiter({ maxFailures: 5, windowMs: 60_000 }) });
    const from = (remoteAddress: string) =>
      h.app.inject({ url: SERIES, headers: bearer('0'.repeat(40)), remoteAddress });
    for (let i = 1; i <= 5; i += 1) expect((await from(`2001:db8:0:1::${i}`)).statusCode).toBe(401);
    expect((await from('2001:db8:0:1:ffff::6')).statusCode).toBe(429);
    expect((await from('2001:db8:0:2::1')).statusCode).toBe(401);
  });
});

describe('documentation', () => {
  const REFERENCE_CSP =
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; " +
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  it('serves the OpenAPI document, the reference and an anchor for every error code', async () => {
    const h = harness();
    const openapi = await h.app.inject('/api/v1/openapi.json');
    expect(openapi.statusCode).toBe(200);
    expect(openapi.json()).toEqual(JSON.parse(JSON.stringify(doc)));
    // The reference reads the served document, which has every path and the sections the old page had.
    expect(Object.keys(openapi.json().paths)).toContain('/commodities/{slug}/series');
    const info = openapi.json().info.description as string;
    for (const section of ['## Authentication', '## Rate limits', '## Errors']) expect(info).toContain(section);
    expect(info).toContain('[error codes page](/docs/errors)');
    const reference = await h.app.inject('/docs');
    expect(reference.statusCode).toBe(200);
    expect(reference.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(reference.body).toContain('/api/v1/openapi.json');
    const errors = await h.app.inject('/docs/errors');
    expect(errors.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
    for (const code of ERROR_CODE_LIST) expect(errors.body).toContain(`id="${code}"`);
    expect((await h.app.inject('/healthz')).statusCode).toBe(200);
    expect((await h.app.inject('/readyz')).statusCode).toBe(200);
  });

  it('serves Scalar at /docs with its script from the same origin, no inline script, and an exact CSP', async () => {
    const h = harness();
    const page = await h.app.inject('/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toBe(REFERENCE_CSP);
    expect(page.headers['cache-control']).toBe('public, max-age=3600');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    // Every script is the one at /docs/js/scalar.js; the configuration is a data block, never run.
    const scripts = [...page.body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map(([, attrs, body]) => ({
      src: /src="([^"]+)"/.exec(attrs!)?.[1],
      type: /type="([^"]+)"/.exec(attrs!)?.[1],
      body,
    }));
    expect(scripts).toEqual([
      { src: undefined, type: 'application/json', body: '' },
      { src: '/docs/js/scalar.js', type: undefined, body: '' },
    ]);
    expect(page.body).not.toMatch(/https?:\/\//);
    const config = JSON.parse(
      /data-configuration="([^"]+)"/
        .exec(page.body)![1]!
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    );
    expect(config).toMatchObject({
      url: '/api/v1/openapi.json',
      withDefaultFonts: false,
      telemetry: false,
      persistAuth: false,
      agent: { disabled: true },
      showDeveloperTools: 'never',
      hideClientButton: true,
      authentication: { preferredSecurityScheme: 'bearerAuth' },
    });
    expect(config).not.toHaveProperty('proxyUrl');
    // The same page at /docs/ (the plugin's own address), not the plugin's page with an inline script.
    const slash = await h.app.inject('/docs/');
    expect(slash.statusCode).toBe(200);
    expect(slash.body).toBe(page.body);
    expect(slash.headers['content-security-policy']).toBe(REFERENCE_CSP);

    const script = await h.app.inject('/docs/js/scalar.js');
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=3600');
    expect(script.body).toContain('createApiReference');
    // Nothing of Scalar's own pages or document copies is served besides.
    for (const url of ['/docs/openapi.json', '/docs/openapi.yaml', '/docs/js/other.js']) {
      expect((await h.app.inject(url)).statusCode, url).toBe(404);
    }
    for (const url of ['/docs', '/docs/', '/docs/js/scalar.js']) {
      const head = await h.app.inject({ method: 'HEAD', url });
      expect(head.statusCode, url).toBe(200);
      const post = await h.app.inject({ method: 'POST', url });
      expect(post.statusCode, url).toBe(405);
      expect(post.headers.allow).toBe('GET, HEAD, OPTIONS');
    }
  });

  it('serves the reference without a key and counts it against no rate window, even with a key', async () => {
    const h = harness();
    for (let i = 0; i < 12; i += 1) {
      for (const url of ['/docs', '/docs/js/scalar.js', '/api/v1/openapi.json', '/docs/errors']) {
        const res = await h.app.inject({ url, headers: i % 2 === 0 ? {} : bearer(KEYS.free) });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['x-ratelimit-limit'], url).toBeUndefined();
      }
    }
    expect(h.lookups).toEqual([]);
    // Free is 10 a minute: 48 docs answers later, the first API request still has 9 left.
    const api = await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) });
    expect(api.headers['x-ratelimit-remaining']).toBe('9');
    // 12 copies of the 5 MB Scalar bundle: seconds on a loaded 2-core machine.
  }, 30_000);
});

describe('response cache', () => {
  const newCache = () => createResponseCache({ maxEntries: 100, maxBytes: 1 << 20, ttlMs: 60_000 });

  it('answers a kept answer whose precondition matches 304, checking the windows once without counting', async () => {
    const rateCalls: string[] = [];
    const h = harness({ cache: newCache(), rateCalls });
    await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) });
    const hit = await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) });
    const etag = hit.headers.etag as string;
    const kept = await h.app.inject({ url: SERIES, headers: { ...bearer(KEYS.free), 'if-none-match': etag } });
    expect(kept.statusCode).toBe(304);
    expect(kept.body).toBe('');
    expect(kept.headers['x-ratelimit-remaining']).toBe('8');
    expect(kept.headers.etag).toBe(etag);
    expect(rateCalls).toEqual(['take', 'take', 'check']);
    expect(h.calls).toHaveLength(1);
    const after = await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) });
    expect(after.headers['x-ratelimit-remaining']).toBe('7');
    // Exhausted: a 429 even with a matching precondition, never a 304 past the limit.
    for (let i = 0; i < 7; i++) await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) });
    const refused = await h.app.inject({ url: SERIES, headers: { ...bearer(KEYS.free), 'if-none-match': etag } });
    expect(refused.statusCode).toBe(429);
  });

  it('fetches a conditional JSON miss whole, keeps it and answers its precondition itself', async () => {
    const rateCalls: string[] = [];
    const h = harness({ cache: newCache(), rateCalls });
    const conditional = { ...bearer(KEYS.free), 'if-none-match': '"query-etag"' };
    const miss = await h.app.inject({ url: SERIES, headers: conditional });
    expect(miss.statusCode).toBe(304);
    expect(miss.body).toBe('');
    expect(miss.headers['x-ratelimit-remaining']).toBe('10'); // given back
    expect(h.calls).toEqual([{ path: expect.any(String), requestId: expect.any(String) }]); // no precondition forwarded
    expect(rateCalls).toEqual(['take', 'giveBack']);
    // It was kept: the next request is answered from memory.
    const hit = await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) });
    expect(hit.statusCode).toBe(200);
    expect(h.calls).toHaveLength(1);
    // A CSV miss forwards its preconditions (a large CSV is not kept, so not fetched whole).
    await h.app.inject({ url: SERIES, headers: { ...conditional, accept: 'text/csv' } });
    expect(h.calls[1]!.preconditions).toBe(true);
  });

  it("keeps a CSV answer under its own key, with the query's ETag and file name", async () => {
    const h = harness({ cache: newCache() });
    const csv = { ...bearer(KEYS.business), accept: 'text/csv' };
    const first = await h.app.inject({ url: SERIES, headers: csv });
    const json = await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) });
    const second = await h.app.inject({ url: SERIES, headers: csv });
    expect(h.calls).toHaveLength(2); // the CSV once, the JSON once
    expect(second.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    for (const name of ['content-type', 'content-disposition', 'etag', 'content-length']) {
      expect(second.headers[name], name).toBe(first.headers[name]);
    }
    expect(second.headers['x-ratelimit-limit']).toBeDefined();
    const notModified = await h.app.inject({ url: SERIES, headers: { ...csv, 'if-none-match': '"query-csv-etag"' } });
    expect(notModified.statusCode).toBe(304);
    expect(h.calls).toHaveLength(2);
  });

  it('counts a request the plan refuses (403) after the windows, and answers 429 first when they are exhausted', async () => {
    const rateCalls: string[] = [];
    const h = harness({ cache: newCache(), rateCalls });
    const cot = await h.app.inject({
      url: '/api/v1/commodities/CORN/cot?format=disaggregated',
      headers: bearer(KEYS.free),
    });
    expect(cot.statusCode).toBe(403);
    expect(cot.headers['x-ratelimit-remaining']).toBe('9');
    expect(rateCalls).toEqual(['take']);
  });

  it('answers a repeat from memory with its own request id, after the key, rate and plan checks', async () => {
    const cache = newCache();
    const h = harness({ cache });
    const first = await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) });
    const second = await h.app.inject({
      url: `${SERIES}&api_key=${KEYS.professional}`,
      headers: bearer(KEYS.professional),
    });
    expect(first.statusCode).toBe(200);
    expect(second.statusCode).toBe(200);
    expect(h.calls).toHaveLength(1);
    expect(second.json().meta.request_id).toBe(second.headers['x-request-id']);
    expect(second.json().meta.request_id).not.toBe(first.json().meta.request_id);
    expect({ ...second.json(), meta: { ...second.json().meta, request_id: '' } }).toEqual({
      ...first.json(),
      meta: { ...first.json().meta, request_id: '' },
    });
    expect(second.headers['x-ratelimit-remaining']).toBe('99');
    // A hit writes its headers itself: the same security, API and type headers as the first answer.
    for (const name of [
      'x-content-type-options',
      'x-frame-options',
      'access-control-allow-origin',
      'cache-control',
      'content-type',
    ]) {
      expect(second.headers[name], name).toBe(first.headers[name]);
    }
    expect(Number(second.headers['content-length'])).toBe(second.rawPayload.length);
    validate('/commodities/{slug}/series', second);

    // A hit is still counted against the window and still subject to the plan rules.
    const free = await h.app.inject({ url: `${SERIES}&start_date=2020-01-01`, headers: bearer(KEYS.free) });
    expect(free.statusCode).toBe(403);
    const revoked = await h.app.inject({ url: SERIES, headers: bearer(KEYS.revoked) });
    expect(revoked.statusCode).toBe(401);
  });

  it("drops a commodity's answers on invalidation, and never keeps an answer fetched across one", async () => {
    const cache = newCache();
    let invalidateDuringFetch = false;
    const h = harness({
      cache,
      onQuery: () => {
        if (invalidateDuringFetch) cache.invalidate('GOLD');
      },
    });
    await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) });
    cache.invalidate('GOLD');
    await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) });
    expect(h.calls).toHaveLength(2);

    cache.invalidate('GOLD');
    invalidateDuringFetch = true;
    await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) });
    invalidateDuringFetch = false;
    await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) });
    expect(h.calls).toHaveLength(4);
    await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) });
    expect(h.calls).toHaveLength(4);
  });

  it('keeps only successful answers', async () => {
    const cache = newCache();
    const h = harness({ cache });
    h.queryDown.value = true;
    expect((await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) })).statusCode).toBe(503);
    h.queryDown.value = false;
    expect((await h.app.inject({ url: SERIES, headers: bearer(KEYS.business) })).statusCode).toBe(200);
    expect(h.calls).toHaveLength(2);
  });
});

describe('header bounds', () => {
  const BOUNDED = {
    accept: 'Accept',
    'if-none-match': 'If-None-Match',
    'if-modified-since': 'If-Modified-Since',
    'if-range': 'If-Range',
    range: 'Range',
  } as const;

  it('refuses Accept, the preconditions and Range over 1 KiB with a 400 naming the header, before the key is looked up', async () => {
    const h = harness({ cache: createResponseCache({ maxEntries: 100, maxBytes: 1 << 20, ttlMs: 60_000 }) });
    for (const [name, param] of Object.entries(BOUNDED)) {
      for (const value of [
        `x${' '.repeat(1100)}y`,
        Array.from({ length: 30 }, () => `"${'A'.repeat(43)}"`).join(', '),
      ]) {
        const res = await h.app.inject({ url: SERIES, headers: { ...bearer(KEYS.free), [name]: value } });
        expect(res.statusCode, name).toBe(400);
        const body = ErrorBody.parse(res.json());
        expect(body.error).toMatchObject({ code: 'invalid_parameter', param });
        expect(body.error.message).toContain('1024');
        expect(res.headers['x-request-id']).toBe(body.error.request_id);
        expect(res.headers['x-ratelimit-limit']).toBeUndefined(); // refused before the windows
      }
    }
    // Without a key too: the bound comes first.
    const anonymous = await h.app.inject({ url: SERIES, headers: { accept: 'a'.repeat(2000) } });
    expect(anonymous.statusCode).toBe(400);
    expect(h.lookups).toEqual([]);
    expect(h.calls).toEqual([]);
  });

  it('serves headers within the bound, however much whitespace they hold', async () => {
    const h = harness({ cache: createResponseCache({ maxEntries: 100, maxBytes: 1 << 20, ttlMs: 60_000 }) });
    const accept = `x${' '.repeat(900)}y, text/csv;q=0.1, application/json`;
    expect(accept.length).toBeLessThanOrEqual(1024);
    await h.app.inject({ url: SERIES, headers: { ...bearer(KEYS.free), accept } }); // a miss, kept
    const res = await h.app.inject({ url: SERIES, headers: { ...bearer(KEYS.free), accept } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const etag = res.headers.etag as string;
    const tags = [...Array.from({ length: 20 }, (_, i) => `"other-${i}"`), etag].join(`,${' '.repeat(10)}`);
    const again = await h.app.inject({ url: SERIES, headers: { ...bearer(KEYS.free), 'if-none-match': tags } });
    expect(again.statusCode).toBe(304);
  });
});

describe('304s count at a tenth', () => {
  it('refuses a key looping If-None-Match 429 with Retry-After, asking the windows about once per ten 304s', async () => {
    const rateCalls: string[] = [];
    const h = harness({ cache: createResponseCache({ maxEntries: 100, maxBytes: 1 << 20, ttlMs: 60_000 }), rateCalls });
    await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) }); // a miss, kept
    const first = await h.app.inject({ url: SERIES, headers: bearer(KEYS.free) });
    const conditional = { ...bearer(KEYS.free), 'if-none-match': first.headers.etag as string };
    rateCalls.length = 0;
    const statuses: number[] = [];
    let refused;
    while (refused === undefined && statuses.length < 1_000) {
      const res = await h.app.inject({ url: SERIES, headers: conditional });
      statuses.push(res.statusCode);
      if (res.statusCode !== 304) refused = res;
    }
    if (refused === undefined) throw new Error(`no refusal after ${statuses.length} requests`);
    // Eight requests were left in the free minute: eighty 304s fill it (every tenth counts).
    expect(statuses.filter((s) => s === 304)).toHaveLength(80);
    expect(refused.statusCode).toBe(429);
    expect(ErrorBody.parse(refused.json()).error.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['x-request-id']).toBeDefined();
    // One check to start the streak, eight takes, and the refusing check.
    expect(rateCalls).toEqual(['check', ...Array(8).fill('take'), 'check']);
    expect(h.calls).toHaveLength(1);
  });
});
