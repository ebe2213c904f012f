import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cachedBodyFromUpstream, serializeBody, withRequestId } from './cached-body.ts';
import { createResponseCache, forwardedKey, LIST_TAG } from './response-cache.ts';

const body = (n: number) => serializeBody({ data: [n], meta: {} });
const text = (b: ReturnType<typeof body>, id = 'req_1') => withRequestId(b, id).toString();

describe('cached bodies', () => {
  it('add the request id as the last member of meta', () => {
    const b = serializeBody({ data: [{ x: 'é' }], meta: { count: 1 } });
    expect(JSON.parse(text(b, 'req_abc'))).toEqual({ data: [{ x: 'é' }], meta: { count: 1, request_id: 'req_abc' } });
    expect(text(serializeBody({ data: {}, meta: {} }), 'r')).toBe('{"data":{},"meta":{"request_id":"r"}}');
  });
  it('carry a strong hash of the body without its id, and meta.last_updated', () => {
    const b = serializeBody({ data: [1], meta: { last_updated: '2026-11-20T21:00:00Z' } });
    const expected = createHash('sha256').update(withRequestId(b, '')).digest('base64url');
    expect(b.hash).toBe(expected);
    expect(b.lastModified).toBe('2026-11-20T21:00:00Z');
    expect(serializeBody({ data: [2], meta: { last_updated: '2026-11-20T21:00:00Z' } }).hash).not.toBe(b.hash);
    expect(body(1).lastModified).toBeUndefined();
  });
  it("take their max-age from the sources' at send time, or a fixed one the answer gives (a past as_of)", () => {
    const bySources = (sources: readonly (string | undefined)[], nowMs: number) =>
      (sources.length * 1000 - nowMs) / 1000;
    const current = serializeBody({ data: [], meta: {}, freshness: { sources: ['a', 'b'] } }, bySources);
    expect(current.cacheControl(0)).toBe('private, max-age=2');
    expect(current.cacheControl(1000)).toBe('private, max-age=1');
    const settled = serializeBody({ data: [], meta: {}, freshness: { sources: ['a'], maxAge: 604800 } }, bySources);
    expect(settled.cacheControl(0)).toBe('private, max-age=604800');
    expect(settled.cacheControl(5000)).toBe('private, max-age=604800');
    // without a max-age function (no freshness policy) an answer is never kept by clients
    expect(serializeBody({ data: [], meta: {}, freshness: { maxAge: 60 } }).cacheControl(0)).toBe('no-store');
  });
});

describe('response cache', () => {
  it('computes once per key, concurrent misses included', async () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 10_000, ttlMs: 60_000 });
    let computed = 0;
    const compute = () => Promise.resolve(body(++computed));
    const [a, b] = await Promise.all([
      cache.getOrCompute('k', ['GOLD'], compute),
      cache.getOrCompute('k', ['GOLD'], compute),
    ]);
    expect(computed).toBe(1);
    expect(a).toBe(b);
    expect(cache.get('k')).toBe(a);
    expect(cache.get('other')).toBeUndefined();
    expect(cache.stats()).toMatchObject({ entries: 1, misses: 1, hits: 1 });
  });
  it('invalidation drops the commodity and every list entry, not others', async () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 10_000, ttlMs: 60_000 });
    await cache.getOrCompute('gold', ['GOLD'], () => Promise.resolve(body(1)));
    await cache.getOrCompute('oil', ['OIL'], () => Promise.resolve(body(2)));
    await cache.getOrCompute('list', [LIST_TAG], () => Promise.resolve(body(3)));
    expect(cache.invalidate('GOLD')).toBe(2);
    expect(cache.get('gold')).toBeUndefined();
    expect(cache.get('list')).toBeUndefined();
    expect(cache.get('oil')).toBeDefined();
  });
  it('does not store a result computed across an invalidation', async () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 10_000, ttlMs: 60_000 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const pending = cache.getOrCompute('k', ['GOLD'], async () => {
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
    const put = (k: string) => cache.getOrCompute(k, [], () => Promise.resolve(body(1)));
    await put('a');
    await put('b');
    await put('a'); // a is now the most recent
    await put('c'); // evicts b
    let computed = 0;
    await cache.getOrCompute('a', [], () => Promise.resolve(body(++computed)));
    await cache.getOrCompute('b', [], () => Promise.resolve(body(++computed)));
    expect(computed).toBe(1);
    t = 5000;
    await cache.getOrCompute('a', [], () => Promise.resolve(body(++computed)));
    expect(computed).toBe(2);

    const small = createResponseCache({ maxEntries: 100, maxBytes: 120, ttlMs: 1000 });
    for (const k of ['x', 'y', 'z']) await small.getOrCompute(k, [], () => Promise.resolve(body(1)));
    expect(small.stats().bytes).toBeLessThanOrEqual(120);
    expect(small.stats().entries).toBeLessThan(3);
  });
  it('does not cache a failed computation', async () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 10_000, ttlMs: 60_000 });
    await expect(cache.getOrCompute('k', [], () => Promise.reject(new Error('db down')))).rejects.toThrow('db down');
    const ok = await cache.getOrCompute('k', [], () => Promise.resolve(body(7)));
    expect(text(ok)).toContain('[7]');
  });
});

describe('bodies fetched elsewhere (the gateway)', () => {
  const served = (id: string, meta = '"count":2') =>
    Buffer.from(`{"data":[1,2],"meta":{${meta},"request_id":"${id}"}}`);

  it('cachedBodyFromUpstream keeps the bytes around the request id, so another id can be spliced in', () => {
    const cached = cachedBodyFromUpstream(served('req_aaa'), 'req_aaa');
    expect(cached).toBeDefined();
    expect(withRequestId(cached!, 'req_bbbbbb').toString()).toBe(served('req_bbbbbb').toString());
    // the same hash as the body the query service serialized
    expect(cached!.hash).toBe(serializeBody({ data: [1, 2], meta: { count: 2 } }).hash);
    const dated = cachedBodyFromUpstream(served('r', '"last_updated":"2026-11-20T21:00:00Z"'), 'r');
    expect(dated?.lastModified).toBe('2026-11-20T21:00:00Z');
  });

  it("cachedBodyFromUpstream keeps upstream's strong ETag; without one, or with a weak or malformed one, it hashes", () => {
    const hashed = serializeBody({ data: [1, 2], meta: { count: 2 } });
    const tagged = cachedBodyFromUpstream(served('r'), 'r', {}, '"named-not-hashed"');
    expect(tagged?.etag).toBe('"named-not-hashed"');
    expect(tagged?.etag).not.toBe(hashed.etag);
    expect(withRequestId(tagged!, 'r2').toString()).toBe(served('r2').toString());
    for (const etag of [undefined, 'W/"named-not-hashed"', 'named-not-hashed', '"a"b"', '']) {
      expect(cachedBodyFromUpstream(served('r'), 'r', {}, etag)?.etag).toBe(hashed.etag);
    }
  });

  it('cachedBodyFromUpstream refuses a body that does not end with that request id', () => {
    expect(cachedBodyFromUpstream(served('req_aaa'), 'req_zzz')).toBeUndefined();
    expect(
      cachedBodyFromUpstream(Buffer.from('{"meta":{"request_id":"req_aaa","count":2}}'), 'req_aaa'),
    ).toBeUndefined();
    expect(cachedBodyFromUpstream(Buffer.from('"}}'), '')).toBeUndefined();
  });

  it('put stores only when no invalidation happened since the epoch was taken', () => {
    const cache = createResponseCache({ maxEntries: 10, maxBytes: 1 << 20, ttlMs: 60_000 });
    const body = cachedBodyFromUpstream(served('r1'), 'r1')!;
    const key = forwardedKey('/x', '2026-11-21');
    const before = cache.epoch();
    expect(cache.put(key, body, ['GOLD'], before)).toBe(true);
    expect(cache.get(key)).toBe(body);

    const stale = cache.epoch();
    cache.invalidate('GOLD');
    expect(cache.get(key)).toBeUndefined();
    expect(cache.put(key, body, ['GOLD'], stale)).toBe(false);
    expect(cache.get(key)).toBeUndefined();
    expect(cache.get(forwardedKey('/x', '2026-11-22'))).toBeUndefined();
  });
});
