import { createRedis, type Redis } from '@cds/redis';
import { startRedis, type ServerHandle } from '@cds/testkit';
import { createLogger } from '@cds/telemetry';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slotMember } from './filter.ts';
import { createRedisStreamSlots, createStreamSlots, slotKey } from './stream-slots.ts';

// Its own Redis server, so stopping it disturbs no other spec.
let server: ServerHandle;
const clients: Redis[] = [];
const logger = createLogger({ name: 'stream-slots-spec', level: 'silent' });
const connect = () => {
  const r = createRedis({
    url: server.url,
    name: 'stream-slots-spec',
    commandTimeoutMs: 300,
    maxRetriesPerRequest: 0,
    offlineQueue: false,
  });
  clients.push(r);
  return r;
};
const ready = (r: Redis) =>
  new Promise<void>((resolve) => (r.status === 'ready' ? resolve() : r.once('ready', () => resolve())));

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const c of clients) c.disconnect();
  await server.stop();
});

describe('SSE stream slots in Redis', () => {
  it('admit exactly the limit under concurrent opens from three replicas', async () => {
    const replicas = [connect(), connect(), connect()];
    await Promise.all(replicas.map(ready));
    const slots = replicas.map((r) => createRedisStreamSlots(r, { keyPrefix: 'exact:', ttlMs: 45_000 }));
    const decisions = await Promise.all(
      Array.from({ length: 60 }, (_, i) => slots[i % 3]!.acquire('acc', slotMember(i, `r${i % 3}`, i, undefined), 5)),
    );
    expect(decisions.filter((d) => d.admitted)).toHaveLength(5);
    expect(await replicas[0]!.zcard(slotKey('exact:', 'acc'))).toBe(5);
    // Another account has its own count.
    expect((await slots[0]!.acquire('other', 'm', 1)).admitted).toBe(true);
  });

  it('frees a slot on release, and re-acquiring a held slot does not count it twice', async () => {
    const r = connect();
    await ready(r);
    const slots = createRedisStreamSlots(r, { keyPrefix: 'rel:', ttlMs: 45_000 });
    expect(await slots.acquire('acc', 'a', 1)).toEqual({ admitted: true, count: 1 });
    expect(await slots.acquire('acc', 'a', 1)).toEqual({ admitted: true, count: 1 });
    expect(await slots.acquire('acc', 'b', 1)).toEqual({ admitted: false, count: 1 });
    await slots.release('acc', 'a');
    expect(await slots.acquire('acc', 'b', 1)).toEqual({ admitted: true, count: 1 });
    expect(await slots.members('acc')).toEqual(['b']);
  });

  it('drops slots not refreshed within their lifetime (a replica that died), keeps refreshed ones', async () => {
    const r = connect();
    await ready(r);
    // Refreshed every 250 ms, 'alive' survives a stall of over a second; 'dead' has certainly
    // expired once the refreshes have taken longer than its lifetime (sleeps only ever run long).
    const ttlMs = 1_500;
    const refreshEveryMs = 250;
    const slots = createRedisStreamSlots(r, { keyPrefix: 'ttl:', ttlMs });
    expect((await slots.acquire('acc', 'dead', 2)).admitted).toBe(true);
    expect((await slots.acquire('acc', 'alive', 2)).admitted).toBe(true);
    expect((await slots.acquire('acc', 'third', 2)).admitted).toBe(false);
    for (let i = 0; i * refreshEveryMs <= ttlMs + refreshEveryMs; i += 1) {
      await sleep(refreshEveryMs);
      await slots.refresh([{ accountId: 'acc', member: 'alive' }]);
    }
    expect(await slots.members('acc')).toEqual(['alive']);
    expect((await slots.acquire('acc', 'third', 2)).admitted).toBe(true);
    // The set itself expires with its last slot.
    await sleep(ttlMs + 500);
    expect(await r.exists(slotKey('ttl:', 'acc'))).toBe(0);
  });

  it('counts per replica while Redis is down, and puts the replica slots back on the first refresh after', async () => {
    const r = connect();
    await ready(r);
    let fallbacks = 0;
    const slots = createStreamSlots({
      redis: createRedisStreamSlots(r, { keyPrefix: 'down:', ttlMs: 45_000 }),
      logger,
      onFallback: () => (fallbacks += 1),
    });
    expect((await slots.acquire('acc', 'before', 2)).admitted).toBe(true);
    await server.kill();
    await sleep(100);
    // The slot taken through Redis still counts locally: one more fits, then the limit binds.
    expect(await slots.acquire('acc', 'during', 2)).toEqual({ admitted: true, count: 2 });
    expect((await slots.acquire('acc', 'over', 2)).admitted).toBe(false);
    expect(fallbacks).toBe(2);
    expect((await slots.members('acc')).sort()).toEqual(['before', 'during']);
    await slots.release('acc', 'before');
    // Restarted empty (no persistence): what the replica holds open comes back with its refresh.
    await server.restart();
    await ready(r);
    await slots.refresh([{ accountId: 'acc', member: 'during' }]);
    expect(await r.zrange(slotKey('down:', 'acc'), '0', '-1')).toEqual(['during']);
    expect((await slots.acquire('acc', 'after', 2)).admitted).toBe(true);
    expect((await slots.acquire('acc', 'over', 2)).admitted).toBe(false);
  });
});
