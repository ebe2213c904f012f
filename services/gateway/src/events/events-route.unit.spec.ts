import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { ErrorBody, buildOpenApiDocument, type KeyEvent } from '@cds/contracts';
import { createLogger } from '@cds/telemetry';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { KeyTable, hashKey } from '../keys/key-table.ts';
import type { QueryClient } from '../proxy/query-client.ts';
import { createMemoryRateLimiter } from '../rate/memory-limiter.ts';
import { EventHub } from './hub.ts';
import { ChangeRing } from './ring.ts';
import { createStreamSlots, type StreamSlots } from './stream-slots.ts';

const logger = createLogger({ name: 'events-route-spec', level: 'silent' });
const KEYS = { free: 'f'.repeat(40), business: 'b'.repeat(40) } as const;

const ev = <T extends KeyEvent['type']>(type: T, data: Extract<KeyEvent, { type: T }>['data']) =>
  ({
    id: `${type}:${Math.random()}`,
    type,
    version: 1,
    occurred_at: '2026-11-01T00:00:00Z',
    source: 'test',
    data,
  }) as KeyEvent;

function harness(
  opts: {
    catalog?: 'ok' | 'down';
    ready?: boolean;
    caps?: { maxStreams: number; maxStreamsPerClient: number };
    slots?: (slots: StreamSlots, table: KeyTable) => StreamSlots;
  } = {},
) {
  const table = new KeyTable();
  for (const plan of ['free', 'business'] as const) {
    table.apply(ev('account.created', { account_id: `acc_${plan.padEnd(8, '0')}`, name: plan, plan }));
    table.apply(
      ev('key.created', {
        key_id: `key_${plan.padEnd(8, '0')}`,
        account_id: `acc_${plan.padEnd(8, '0')}`,
        key_hash: hashKey(KEYS[plan]),
        plan,
      }),
    );
  }
  const catalogCalls: string[] = [];
  const query: QueryClient = {
    get(path) {
      catalogCalls.push(path);
      if (opts.catalog === 'down') return Promise.reject(new Error('connect ECONNREFUSED'));
      const body = JSON.stringify({ data: [{ id: 'CORN' }, { id: 'GOLD' }], meta: { total_pages: 1 } });
      return Promise.resolve({ statusCode: 200, headers: {}, body: Readable.from([Buffer.from(body)]) });
    },
    close: () => Promise.resolve(),
  };
  const local = createStreamSlots({ logger });
  const slots = opts.slots === undefined ? local : opts.slots(local, table);
  const hub = new EventHub({
    ring: new ChangeRing(10),
    publicBaseUrl: 'https://api.example.com',
    maxUnsentBytes: 64 * 1024,
    slowGraceMs: 10_000,
    heartbeatMs: 15_000,
    slots,
    logger,
    ...(opts.caps ?? {}),
  });
  const app = buildApp({
    keys: { lookup: (k) => table.lookup(k), isReady: () => true },
    rateLimiter: createMemoryRateLimiter({ nowMs: () => Date.now() }),
    query,
    logger,
    nowMs: () => Date.now(),
    publicBaseUrl: 'https://api.example.com',
    openapiDocument: buildOpenApiDocument(),
    events: { hub, slots, isReady: () => opts.ready ?? true, replicaId: 'r1' },
  });
  const get = async (url: string, key: string | undefined, headers: Record<string, string> = {}) => {
    const res = await app.inject({
      method: 'GET',
      url,
      headers: { ...headers, ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) },
    });
    return { res, error: ErrorBody.parse(res.json()).error };
  };
  return { app, get, slots, catalogCalls, hub };
}

describe('GET /api/v1/events refusals', () => {
  it('are the API error body with the rate headers, naming the parameter', async () => {
    const { get } = harness();
    const cases: [string, Record<string, string>, number, string, string | undefined][] = [
      ['/api/v1/events?commodities=WHEATISH', {}, 400, 'invalid_parameter', 'commodities'],
      ['/api/v1/events?types=cot_legacy', {}, 403, 'forbidden', 'types'],
      ['/api/v1/events?types=nope', {}, 400, 'invalid_parameter', 'types'],
      ['/api/v1/events?page=2', {}, 400, 'invalid_parameter', 'page'],
      ['/api/v1/events', { 'last-event-id': '01' }, 400, 'invalid_parameter', 'Last-Event-ID'],
      ['/api/v1/events?last_event_id=x', {}, 400, 'invalid_parameter', 'last_event_id'],
    ];
    for (const [url, headers, status, code, param] of cases) {
      const { res, error } = await get(url, KEYS.free, headers);
      expect(res.statusCode, url).toBe(status);
      expect(error, url).toMatchObject({ code, ...(param === undefined ? {} : { param }) });
      expect(res.headers['x-ratelimit-limit'], url).toBe('10');
      expect(res.headers['cache-control']).toBe('no-store');
    }
    // The CIT supplement is a legacy layout: refused to Free, naming the plan it needs.
    const cit = await get('/api/v1/events?types=price,cot_cit', KEYS.free);
    expect(cit.res.statusCode).toBe(403);
    expect(cit.error).toMatchObject({
      code: 'forbidden',
      param: 'types',
      message: expect.stringContaining('Professional'),
    });
    expect(cit.error.message).toContain('cot_cit');
    const { res, error } = await get('/api/v1/events', undefined);
    expect(res.statusCode).toBe(401);
    expect(error.code).toBe('unauthorized');
  });

  it('checks commodities against the catalog once per cache period, and is 503 when it cannot be read', async () => {
    const ok = harness();
    const head = await ok.app.inject({
      method: 'HEAD',
      url: '/api/v1/events?commodities=GOLD,CORN',
      headers: { authorization: `Bearer ${KEYS.business}` },
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(head.headers['x-accel-buffering']).toBe('no');
    const unknown = await ok.get('/api/v1/events?commodities=GOLD,SILVERISH', KEYS.business);
    expect(unknown.error.message).toContain('SILVERISH');
    expect(ok.catalogCalls).toEqual(['/api/v1/commodities?per_page=100&page=1']);
    // HEAD takes no stream slot.
    expect(await ok.slots.members('acc_business')).toEqual([]);

    const down = harness({ catalog: 'down' });
    const res = await down.get('/api/v1/events?commodities=GOLD', KEYS.business);
    expect(res.res.statusCode).toBe(503);
    expect(res.error.code).toBe('service_unavailable');
  });

  it('is 503 until the change follower has caught up, and 429 past the plan limit', async () => {
    const starting = harness({ ready: false });
    expect((await starting.get('/api/v1/events', KEYS.business)).res.statusCode).toBe(503);
    const { get, slots } = harness();
    await slots.acquire('acc_free0000', 'held', 1);
    const { res, error } = await get('/api/v1/events', KEYS.free);
    expect(res.statusCode).toBe(429);
    expect(error.message).toMatch(/allows 1 concurrent event stream/);
    expect(res.headers['retry-after']).toBe('3');
  });
});

/** A GET of the events path over a real socket: a 200 stays open (until `close`), an error is read whole. */
function openStream(port: number, key: string) {
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: string; close: () => void }>(
    (resolve, reject) => {
      const req = httpGet(
        { host: '127.0.0.1', port, path: '/api/v1/events', headers: { authorization: `Bearer ${key}` } },
        (res) => {
          const close = () => req.destroy();
          if (res.statusCode === 200) {
            resolve({ status: 200, headers: res.headers, body: '', close });
            return;
          }
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, close }));
        },
      );
      req.on('error', reject);
    },
  );
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check(), what).toBe(true);
}

describe('GET /api/v1/events stream caps (per replica, per client address)', () => {
  async function listening(caps: { maxStreams: number; maxStreamsPerClient: number }) {
    const h = harness({ caps });
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    return { ...h, port: (h.app.server.address() as AddressInfo).port };
  }

  it('answers the stream past the replica cap 503 service_unavailable in the error shape, with Retry-After; a closed stream frees its place', async () => {
    const h = await listening({ maxStreams: 2, maxStreamsPerClient: 10 });
    try {
      const open = [await openStream(h.port, KEYS.business), await openStream(h.port, KEYS.business)];
      expect(open.map((s) => s.status)).toEqual([200, 200]);
      const refused = await openStream(h.port, KEYS.business);
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.headers['content-type']).toMatch(/^application\/json/);
      const { error } = ErrorBody.parse(JSON.parse(refused.body));
      expect(error.code).toBe('service_unavailable');
      expect(error.request_id).toBe(refused.headers['x-request-id']);
      // The refusal held no place; the account's slots were not touched either.
      expect(h.hub.caps.size).toBe(2);
      expect(await h.slots.members('acc_business')).toHaveLength(2);
      open[0]!.close();
      await until(() => h.hub.caps.size === 1 && h.hub.size === 1, 'the closed stream freed its place');
      const again = await openStream(h.port, KEYS.business);
      expect(again.status).toBe(200);
      again.close();
      open[1]!.close();
      await until(() => h.hub.caps.size === 0 && h.hub.size === 0, 'every place freed');
    } finally {
      await h.app.close();
    }
  });

  it('answers the stream past the per-address cap 429 rate_limited in the error shape, with Retry-After', async () => {
    const h = await listening({ maxStreams: 10, maxStreamsPerClient: 2 });
    try {
      const open = [await openStream(h.port, KEYS.business), await openStream(h.port, KEYS.business)];
      expect(open.map((s) => s.status)).toEqual([200, 200]);
      const refused = await openStream(h.port, KEYS.business);
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('3');
      const { error } = ErrorBody.parse(JSON.parse(refused.body));
      expect(error.code).toBe('rate_limited');
      expect(error.message).toMatch(/from your address/);
      expect(h.hub.caps.heldBy('127.0.0.1')).toBe(2);
      for (const s of open) s.close();
      await until(() => h.hub.caps.size === 0, 'every place freed');
    } finally {
      await h.app.close();
    }
  });

  it('frees the place of every refusal after it was taken: plan limit, slot store failure, key revoked during the checks', async () => {
    // Plan limit (the account's slot is held elsewhere).
    const limited = harness({ caps: { maxStreams: 1, maxStreamsPerClient: 1 } });
    await limited.slots.acquire('acc_free0000', 'held', 1);
    for (let i = 0; i < 3; i++) {
      const { res, error } = await limited.get('/api/v1/events', KEYS.free);
      expect(res.statusCode).toBe(429);
      // The plan's refusal each time, never the address cap (1) of a place left behind.
      expect(error.message).toMatch(/allows 1 concurrent event stream/);
    }
    expect(limited.hub.caps.size).toBe(0);
    // The slot store fails (an internal error).
    const failing = harness({
      caps: { maxStreams: 1, maxStreamsPerClient: 1 },
      slots: (local) => ({ ...local, acquire: () => Promise.reject(new Error('slot store exploded')) }),
    });
    for (let i = 0; i < 3; i++) expect((await failing.get('/api/v1/events', KEYS.business)).res.statusCode).toBe(500);
    expect(failing.hub.caps.size).toBe(0);
    // The key is revoked while the slot is being taken: the stream is refused as it opens.
    const revoked = harness({
      caps: { maxStreams: 1, maxStreamsPerClient: 1 },
      slots: (local, table) => ({
        ...local,
        acquire: async (accountId, member, limit) => {
          table.apply(
            ev('key.revoked', { key_id: 'key_business', account_id: 'acc_business', key_hash: hashKey(KEYS.business) }),
          );
          return local.acquire(accountId, member, limit);
        },
      }),
    });
    const { res, error } = await revoked.get('/api/v1/events', KEYS.business);
    expect(res.statusCode).toBe(401);
    expect(error.code).toBe('unauthorized');
    expect(revoked.hub.caps.size).toBe(0);
    expect(await revoked.slots.members('acc_business')).toEqual([]);
    // Refusals before the caps (bad parameters, no key) never take a place; HEAD takes none.
    const h = harness({ caps: { maxStreams: 1, maxStreamsPerClient: 1 } });
    expect((await h.get('/api/v1/events?types=nope', KEYS.business)).res.statusCode).toBe(400);
    expect((await h.get('/api/v1/events', undefined)).res.statusCode).toBe(401);
    const head = await h.app.inject({
      method: 'HEAD',
      url: '/api/v1/events',
      headers: { authorization: `Bearer ${KEYS.business}` },
    });
    expect(head.statusCode).toBe(200);
    expect(h.hub.caps.size).toBe(0);
  });
});
