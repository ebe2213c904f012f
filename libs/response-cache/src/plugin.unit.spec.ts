import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { cachedBodyFromUpstream } from './cached-body.ts';
import { cacheKey, cacheRule, registerResponseCache } from './plugin.ts';
import { createResponseCache, forwardedKey } from './response-cache.ts';
import { sendCachedBody } from './send.ts';

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

describe('sendCachedBody (the gateway way: an upstream answer under a forwarded key)', () => {
  it('sends a stored upstream body with another request id and the extra headers', async () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 1 << 20, ttlMs: 60_000 });
    const upstream = Buffer.from('{"data":[1],"meta":{"count":1,"request_id":"up_1"}}');
    const key = forwardedKey('/api/v1/commodities/GOLD', '2026-11-24');
    expect(cache.put(key, cachedBodyFromUpstream(upstream, 'up_1')!, ['GOLD'], cache.epoch())).toBe(true);
    const app = Fastify({ genReqId: () => 'req_gw' });
    app.get('/x', (_request, reply) => sendCachedBody(reply, cache.get(key)!, { 'x-ratelimit-limit': '100' }));
    const res = await app.inject('/x');
    expect(res.body).toBe('{"data":[1],"meta":{"count":1,"request_id":"req_gw"}}');
    expect(res.headers['x-ratelimit-limit']).toBe('100');
    expect(res.headers['x-request-id']).toBe('req_gw');
  });
});
