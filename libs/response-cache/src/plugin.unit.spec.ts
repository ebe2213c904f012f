import { registerErrorHandling } from '@cds/http';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { cachedBodyFromUpstream } from './cached-body.ts';
import { cacheKey, cacheRule, CSV_KEEP_MAX_BYTES, registerResponseCache } from './plugin.ts';
import { createResponseCache, forwardedKey } from './response-cache.ts';
import { writeCachedBody } from './send.ts';

function build() {
  const cache = createResponseCache({ maxEntries: 10, maxBytes: 1 << 20, ttlMs: 60_000 });
  const app = Fastify({
    genReqId: (() => {
      let n = 0;
      return () => `req_${++n}`;
    })(),
  });
  registerResponseCache(app, cache);
  const calls = { computed: 0 };
  let gate: Promise<void> = Promise.resolve();
  app.get(
    '/things/:id',
    {
      config: {
        cache: cacheRule(({ params, query }: { params: { id: string }; query: { n?: string } }) => {
          if (params.id === 'bad') throw Object.assign(new Error('bad id'), { statusCode: 400 });
          return { key: cacheKey('thing', { id: params.id, n: query.n ?? '1' }), tags: [params.id] };
        }),
      },
    },
    async (request) => {
      calls.computed++;
      await gate;
      const { id } = request.params as { id: string };
      return { data: { id, version: calls.computed }, meta: { last_updated: '2026-11-20T21:00:00Z' } };
    },
  );
  return {
    app,
    cache,
    calls,
    hold: () => {
      let release!: () => void;
      gate = new Promise<void>((r) => (release = r));
      return () => release();
    },
  };
}

describe('registerResponseCache', () => {
  it('computes a body once per key and sends it with each request id, in the body and the header', async () => {
    const { app, calls } = build();
    const first = await app.inject('/things/A');
    const second = await app.inject('/things/A?n=1'); // same effective parameters
    expect(calls.computed).toBe(1);
    expect(first.json()).toEqual({
      data: { id: 'A', version: 1 },
      meta: { last_updated: '2026-11-20T21:00:00Z', request_id: 'req_1' },
    });
    expect(second.json().meta.request_id).toBe('req_2');
    expect(second.headers['x-request-id']).toBe('req_2');
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(second.headers['content-length'])).toBe(second.rawPayload.length);
    await app.inject('/things/A?n=2');
    expect(calls.computed).toBe(2);
  });

  it('shares one computation between concurrent misses and keeps none computed across an invalidation', async () => {
    const { app, cache, calls, hold } = build();
    let release = hold();
    const both = Promise.all([app.inject('/things/B'), app.inject('/things/B')]);
    await new Promise((r) => setTimeout(r, 20));
    release();
    const [a, b] = await both;
    expect(calls.computed).toBe(1);
    expect(a.json().data).toEqual(b.json().data);

    release = hold();
    const pending = app.inject('/things/C');
    await new Promise((r) => setTimeout(r, 20));
    cache.invalidate('C');
    release();
    expect((await pending).statusCode).toBe(200);
    await app.inject('/things/C');
    expect(calls.computed).toBe(3); // C was computed again: the first answer was not kept
  });

  it('lets a rule refuse a request before any lookup, and HEAD gets the headers only', async () => {
    const { app, calls } = build();
    expect((await app.inject('/things/bad')).statusCode).toBe(400);
    expect(calls.computed).toBe(0);
    const got = await app.inject('/things/D');
    const head = await app.inject({ method: 'HEAD', url: '/things/D' });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(Number(head.headers['content-length'])).toBe(got.rawPayload.length);
  });
});

describe("a route's serializer (serializerOf, from its 200 response schema)", () => {
  it('is made once per route from schema.response[200] and writes every body the route keeps', async () => {
    const schema = { title: 'Thing' };
    const made: unknown[] = [];
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 1 << 20, ttlMs: 60_000 });
    const app = Fastify({ genReqId: () => 'req_x' });
    app.setSerializerCompiler(() => JSON.stringify);
    registerResponseCache(app, cache, {
      serializerOf: (s) => {
        made.push(s);
        // Members in another order than built: the bytes are the serializer's, meta still last.
        return (body) => JSON.stringify({ data: { through: 'schema' }, meta: body.meta });
      },
    });
    const rule = cacheRule(({ params }: { params: { id: string } }) => ({ key: params.id, tags: [] }));
    const plainRule = cacheRule(({ params }: { params: { id: string } }) => ({ key: `plain ${params.id}`, tags: [] }));
    app.get('/typed/:id', { schema: { response: { 200: schema } }, config: { cache: rule } }, () =>
      Promise.resolve({ data: { id: 'A' }, meta: {} }),
    );
    app.get('/plain/:id', { config: { cache: plainRule } }, () => Promise.resolve({ data: { id: 'B' }, meta: {} }));
    for (const url of ['/typed/1', '/typed/2', '/typed/1']) {
      expect((await app.inject(url)).body).toBe('{"data":{"through":"schema"},"meta":{"request_id":"req_x"}}');
    }
    expect((await app.inject('/plain/1')).body).toBe('{"data":{"id":"B"},"meta":{"request_id":"req_x"}}');
    // Once for the GET route and once for the HEAD route fastify adds beside it; never per request.
    expect(made).toEqual([schema, schema]);
  });
});

describe('the URL memo in front of the cache (the one memo)', () => {
  function buildMemo() {
    let today = '2026-11-27';
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 1 << 20, ttlMs: 60_000 });
    const app = Fastify();
    registerResponseCache(app, cache, { today: () => today });
    const calls = { entries: 0, validated: 0, computed: 0 };
    app.addHook('preValidation', (_request, _reply, done) => {
      calls.validated++;
      done();
    });
    app.get(
      '/dated/:id',
      {
        config: {
          cache: cacheRule(
            ({ params }: { params: { id: string } }) => {
              calls.entries++;
              return { key: cacheKey('dated', { id: params.id, day: today }), tags: [params.id] };
            },
            { varies: true },
          ),
        },
      },
      () => {
        calls.computed++;
        return Promise.resolve({ data: { day: today }, meta: {} });
      },
    );
    app.post('/dated/:id', () => ({ posted: true }));
    return { app, cache, calls, setDay: (d: string) => (today = d) };
  }

  it('answers a remembered URL from the cache before the query string is parsed or validated', async () => {
    const { app, calls } = buildMemo();
    await app.inject('/dated/A?x=1');
    const again = await app.inject('/dated/A?x=1');
    expect(again.json().data).toEqual({ day: '2026-11-27' });
    expect(calls).toEqual({ entries: 1, validated: 1, computed: 1 });
    // A HEAD of the same URL too; another method is never answered from the memo.
    expect((await app.inject({ method: 'HEAD', url: '/dated/A?x=1' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/dated/A?x=1' })).json()).toEqual({ posted: true });
    expect(calls.entries).toBe(1);
  });

  it('forgets an entry of a route that varies by day on the next day, and after an invalidation', async () => {
    const { app, cache, calls, setDay } = buildMemo();
    await app.inject('/dated/B');
    setDay('2026-11-28');
    expect((await app.inject('/dated/B')).json().data).toEqual({ day: '2026-11-28' });
    expect(calls.entries).toBe(2);
    cache.invalidate('B');
    await app.inject('/dated/B');
    expect([calls.entries, calls.computed]).toEqual([3, 3]);
  });

  it('never remembers a URL that may hold a key', async () => {
    const { app, calls } = buildMemo();
    for (const url of ['/dated/C?api_key=k', '/dated/C?api_key=k', '/dated/C?x=%41', '/dated/C?x=%41']) {
      await app.inject(url);
    }
    // Each went through validation and made its entry; the body itself was computed once.
    expect(calls).toEqual({ entries: 4, validated: 4, computed: 1 });
  });
});

describe('writeCachedBody (the gateway way: an upstream answer under a forwarded key)', () => {
  it('sends a stored upstream body with another request id and the extra headers', async () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 1 << 20, ttlMs: 60_000 });
    const upstream = Buffer.from('{"data":[1],"meta":{"count":1,"request_id":"up_1"}}');
    const key = forwardedKey('/api/v1/commodities/GOLD', '2026-11-24');
    expect(cache.put(key, cachedBodyFromUpstream(upstream, 'up_1')!, ['GOLD'], cache.epoch())).toBe(true);
    const app = Fastify({ genReqId: () => 'req_gw' });
    app.get('/x', (_request, reply) => writeCachedBody(reply, cache.get(key)!, { 'x-ratelimit-limit': '100' }));
    const res = await app.inject('/x');
    expect(res.body).toBe('{"data":[1],"meta":{"count":1,"request_id":"req_gw"}}');
    expect(res.headers['x-ratelimit-limit']).toBe('100');
    expect(res.headers['x-request-id']).toBe('req_gw');
  });
});

describe('validators, conditional requests and the CSV form (one cached body)', () => {
  const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);
  const columns = [
    { name: 'date', path: ['date'] },
    { name: 'value', path: ['value'] },
  ];

  function buildRows() {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 1 << 20, ttlMs: 60_000 });
    const app = Fastify();
    registerErrorHandling(app, { publicBaseUrl: 'https://api.example.com' });
    registerResponseCache(app, cache, {
      nowMs: () => NOW,
      maxAgeOf: (sources) => (sources.includes('eia') ? 120 : 60),
    });
    const calls = { computed: 0 };
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ date: `d${i}`, value: i / 3 }));
    app.get(
      '/rows/:n',
      {
        config: {
          cache: cacheRule(({ params }: { params: { n: string } }) => ({ key: `rows ${params.n}`, tags: ['R'] }), {
            csv: ({ params }) => ({ columns, contentDisposition: `attachment; filename="rows-${params.n}.csv"` }),
          }),
        },
      },
      (request) => {
        calls.computed++;
        const n = Number((request.params as { n: string }).n);
        return Promise.resolve({
          data: rows(n),
          meta: { count: n },
          freshness: { lastModified: '2026-11-20T21:00:00.900Z', sources: ['eia'] },
        });
      },
    );
    app.get('/one', { config: { cache: cacheRule(() => ({ key: 'one', tags: ['R'] })) } }, () =>
      Promise.resolve({
        data: { id: 'X' },
        meta: {},
      }),
    );
    return { app, calls };
  }

  it('sends a strong ETag, Last-Modified, Cache-Control and Vary, and answers a matching precondition 304', async () => {
    const { app, calls } = buildRows();
    const first = await app.inject('/rows/3');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(first.headers['last-modified']).toBe('Fri, 20 Nov 2026 21:00:00 GMT');
    expect(first.headers['cache-control']).toBe('private, max-age=120');
    expect(first.headers.vary).toBe('Accept');
    // Another request id, the same tag: the tag is of the body without its request id.
    expect((await app.inject('/rows/3')).headers.etag).toBe(etag);
    for (const inm of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const res = await app.inject({ url: '/rows/3', headers: { 'if-none-match': inm } });
      expect(res.statusCode, inm).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['cache-control']).toBe('private, max-age=120');
      expect(res.headers.vary).toBe('Accept');
      expect(res.headers['x-request-id']).toBeDefined();
    }
    for (const inm of ['"other"', 'garbage', `${etag.slice(1, -1)}`]) {
      expect((await app.inject({ url: '/rows/3', headers: { 'if-none-match': inm } })).statusCode, inm).toBe(200);
    }
    const ims = (value: string, inm?: string) =>
      app.inject({ url: '/rows/3', headers: { 'if-modified-since': value, ...(inm ? { 'if-none-match': inm } : {}) } });
    expect((await ims('Fri, 20 Nov 2026 21:00:00 GMT')).statusCode).toBe(304);
    expect((await ims('Fri, 20 Nov 2026 20:59:59 GMT')).statusCode).toBe(200);
    expect((await ims('yesterday')).statusCode).toBe(200);
    expect((await ims('Sat, 24 Nov 2046 12:00:00 GMT')).statusCode).toBe(200); // in the future: ignored
    expect((await ims('Fri, 20 Nov 2026 21:00:00 GMT', '"other"')).statusCode).toBe(200); // If-None-Match wins
    const head = await app.inject({ method: 'HEAD', url: '/rows/3', headers: { 'if-none-match': etag } });
    expect(head.statusCode).toBe(304);
    expect(calls.computed).toBe(1);
  });

  it('serves the CSV form made once from the same cached body, kept whole, with its own ETag and a file name', async () => {
    const { app, calls } = buildRows();
    const json = await app.inject('/rows/1000');
    const csv = await app.inject({ url: '/rows/1000', headers: { accept: 'text/csv' } });
    expect(calls.computed).toBe(1);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="rows-1000.csv"');
    // Kept whole (the JSON is under CSV_KEEP_MAX_BYTES): sent with its length, the same bytes again.
    expect(csv.headers['content-length']).toBe(String(Buffer.byteLength(csv.body)));
    const second = await app.inject({ url: '/rows/1000', headers: { accept: 'text/csv' } });
    expect([second.body, second.headers.etag, calls.computed]).toEqual([csv.body, csv.headers.etag, 1]);
    expect(csv.headers.etag).not.toBe(json.headers.etag);
    expect(csv.headers['last-modified']).toBe(json.headers['last-modified']);
    expect(csv.headers.vary).toBe('Accept');
    const lines = csv.body.split('\r\n');
    expect(lines[0]).toBe('date,value');
    expect(lines[2]).toBe(`d1,${JSON.stringify(1 / 3)}`);
    expect(lines).toHaveLength(1002); // header, 1000 rows, the empty string after the last CRLF
    const again = await app.inject({
      url: '/rows/1000',
      headers: { accept: 'text/csv', 'if-none-match': csv.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    // The JSON tag does not match the CSV form, nor the CSV tag the JSON form.
    const cross = await app.inject({
      url: '/rows/1000',
      headers: { accept: 'text/csv', 'if-none-match': json.headers.etag as string },
    });
    expect(cross.statusCode).toBe(200);
    const head = await app.inject({ method: 'HEAD', url: '/rows/1000', headers: { accept: 'text/csv' } });
    expect([head.statusCode, head.body, head.headers.etag]).toEqual([200, '', csv.headers.etag]);
  });

  it('streams the CSV form of an answer past CSV_KEEP_MAX_BYTES in chunks, never kept whole', async () => {
    const { app } = buildRows();
    const json = await app.inject('/rows/10000');
    expect(Buffer.byteLength(json.body)).toBeGreaterThan(CSV_KEEP_MAX_BYTES);
    const csv = await app.inject({ url: '/rows/10000', headers: { accept: 'text/csv' } });
    expect(csv.headers['content-length']).toBeUndefined();
    expect(csv.headers['transfer-encoding']).toBe('chunked');
    expect(csv.body.split('\r\n')).toHaveLength(10_002);
    const again = await app.inject({
      url: '/rows/10000',
      headers: { accept: 'text/csv', 'if-none-match': csv.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
  });

  it('answers 406 in the error shape when Accept allows no format the route serves', async () => {
    const { app, calls } = buildRows();
    const png = await app.inject({ url: '/rows/2', headers: { accept: 'image/png' } });
    expect(png.statusCode).toBe(406);
    expect(png.headers['content-type']).toMatch(/^application\/json/);
    expect(png.json().error.code).toBe('not_acceptable');
    const csvOnly = await app.inject({ url: '/one', headers: { accept: 'text/csv' } });
    expect(csvOnly.statusCode).toBe(406);
    expect(csvOnly.json().error.message).toMatch(/only format of this endpoint/);
    expect(
      (await app.inject({ url: '/one', headers: { accept: 'text/csv, application/json;q=0.1' } })).statusCode,
    ).toBe(200);
    expect(calls.computed).toBe(0);
  });
});
