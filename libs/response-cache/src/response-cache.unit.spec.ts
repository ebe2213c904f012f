import { describe, expect, it } from 'vitest';
import { fromServedBody, toCachedBody, withRequestId } from './cached-body.ts';
import { createResponseCache, LIST_TAG } from './response-cache.ts';

const body = (n: number) => toCachedBody({ data: [n], meta: { request_id: '' } });
const text = (b: ReturnType<typeof body>, id = 'req_1') => withRequestId(b, id).toString();

describe('cached bodies', () => {
  it('splice the request id into the serialized body', () => {
    const b = toCachedBody({ data: [{ x: 'é' }], meta: { count: 1, request_id: '' } });
    expect(JSON.parse(text(b, 'req_abc'))).toEqual({ data: [{ x: 'é' }], meta: { count: 1, request_id: 'req_abc' } });
  });
  it('refuse a body whose last member is not meta.request_id', () => {
    expect(() => toCachedBody({ meta: { request_id: '' }, data: [] } as never)).toThrow(/request_id/);
  });
});

describe('response cache', () => {
  it('computes once per key and answers by alias afterwards', async () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 10_000, ttlMs: 60_000 });
    let computed = 0;
    const compute = () => Promise.resolve(body(++computed));
    const opts = { tags: ['GOLD'], day: '2025-01-01', alias: '/x?a=1' };
    const [a, b] = await Promise.all([cache.getOrCompute('k', opts, compute), cache.getOrCompute('k', opts, compute)]);
    expect(computed).toBe(1);
    expect(a).toBe(b);
    expect(cache.lookupAlias('/x?a=1', '2025-01-01')).toBe(a);
    expect(cache.lookupAlias('/x?a=1', '2025-01-02')).toBeUndefined(); // defaults change with the day
    expect(cache.stats()).toMatchObject({ entries: 1, misses: 1 });
  });
  it('invalidation drops the commodity and every list entry, not others', async () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 10_000, ttlMs: 60_000 });
    const day = '2025-01-01';
    await cache.getOrCompute('gold', { tags: ['GOLD'], day, alias: '/g' }, () => Promise.resolve(body(1)));
    await cache.getOrCompute('oil', { tags: ['OIL'], day, alias: '/o' }, () => Promise.resolve(body(2)));
    await cache.getOrCompute('list', { tags: [LIST_TAG], day, alias: '/l' }, () => Promise.resolve(body(3)));
    expect(cache.invalidate('GOLD')).toBe(2);
    expect(cache.lookupAlias('/g', day)).toBeUndefined();
    expect(cache.lookupAlias('/l', day)).toBeUndefined();
    expect(cache.lookupAlias('/o', day)).toBeDefined();
  });
  it('does not store a result computed across an invalidation', async () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 10_000, ttlMs: 60_000 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const pending = cache.getOrCompute('k', { tags: ['GOLD'], day: 'd' }, async () => {
      await gate;
      return body(1);
    });
    cache.invalidate('GOLD');
    release();
    await pending;
    expect(cache.stats().entries).toBe(0);
  });
  it('evicts the least recently used entries beyond the entry and byte bounds, and expires by TTL', async () => {
    let t = 0;
    const cache = createResponseCache({ maxEntries: 2, maxBytes: 10_000, ttlMs: 1000, now: () => t });
    const put = (k: string) => cache.getOrCompute(k, { tags: [], day: 'd' }, () => Promise.resolve(body(1)));
    await put('a');
    await put('b');
    await put('a'); // a is now the most recent
    await put('c'); // evicts b
    let computed = 0;
    await cache.getOrCompute('a', { tags: [], day: 'd' }, () => Promise.resolve(body(++computed)));
    await cache.getOrCompute('b', { tags: [], day: 'd' }, () => Promise.resolve(body(++computed)));
    expect(computed).toBe(1);
    t = 5000;
    await cache.getOrCompute('a', { tags: [], day: 'd' }, () => Promise.resolve(body(++computed)));
    expect(computed).toBe(2);

    const small = createResponseCache({ maxEntries: 100, maxBytes: 120, ttlMs: 1000 });
    for (const k of ['x', 'y', 'z'])
      await small.getOrCompute(k, { tags: [], day: 'd' }, () => Promise.resolve(body(1)));
    expect(small.stats().bytes).toBeLessThanOrEqual(120);
    expect(small.stats().entries).toBeLessThan(3);
  });
  it('does not cache a failed computation', async () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 10_000, ttlMs: 60_000 });
    await expect(
      cache.getOrCompute('k', { tags: [], day: 'd' }, () => Promise.reject(new Error('db down'))),
    ).rejects.toThrow('db down');
    const ok = await cache.getOrCompute('k', { tags: [], day: 'd' }, () => Promise.resolve(body(7)));
    expect(text(ok)).toContain('[7]');
  });
});

describe('bodies fetched elsewhere (the gateway)', () => {
  const served = (id: string) => Buffer.from(`{"data":[1,2],"meta":{"count":2,"request_id":"${id}"}}`);

  it('fromServedBody keeps the bytes around the request id, so another id can be spliced in', () => {
    const cached = fromServedBody(served('req_aaa'), 'req_aaa');
    expect(cached).toBeDefined();
    expect(withRequestId(cached!, 'req_bbbbbb').toString()).toBe(served('req_bbbbbb').toString());
  });

  it('fromServedBody refuses a body that does not end with that request id', () => {
    expect(fromServedBody(served('req_aaa'), 'req_zzz')).toBeUndefined();
    expect(fromServedBody(Buffer.from('{"meta":{"request_id":"req_aaa","count":2}}'), 'req_aaa')).toBeUndefined();
    expect(fromServedBody(Buffer.from('"}}'), '')).toBeUndefined();
  });

  it('put stores only when no invalidation happened since the epoch was taken', () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 1 << 20, ttlMs: 60_000 });
    const body = fromServedBody(served('r1'), 'r1')!;
    const opts = { tags: ['GOLD'], day: '2026-11-21', alias: '/x' };
    const before = cache.epoch();
    expect(cache.put('/x', body, opts, before)).toBe(true);
    expect(cache.lookupAlias('/x', '2026-11-21')).toBe(body);

    const stale = cache.epoch();
    cache.invalidate('GOLD');
    expect(cache.lookupAlias('/x', '2026-11-21')).toBeUndefined();
    expect(cache.put('/x', body, opts, stale)).toBe(false);
    expect(cache.lookupAlias('/x', '2026-11-21')).toBeUndefined();
    expect(cache.lookupAlias('/x', '2026-11-22')).toBeUndefined();
  });
});
