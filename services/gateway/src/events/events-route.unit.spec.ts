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
import { createStreamSlots } from './stream-slots.ts';

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

function harness(opts: { catalog?: 'ok' | 'down'; ready?: boolean } = {}) {
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
  const slots = createStreamSlots({ logger });
  const hub = new EventHub({
    ring: new ChangeRing(10),
    publicBaseUrl: 'https://api.example.com',
    maxUnsentBytes: 64 * 1024,
    slowGraceMs: 10_000,
    heartbeatMs: 15_000,
    slots,
    logger,
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
  return { app, get, slots, catalogCalls };
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
