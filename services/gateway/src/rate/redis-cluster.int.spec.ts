import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedis, type Redis } from '@cds/redis';
import { createManagedProcess, findFreePort, findOnPath, probeRedis, type ManagedProcess } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySlot } from './key-slot.ts';
import { createRedisRateLimiter } from './redis-limiter.ts';

// The slot rule checked by key-slot.unit.spec.ts, against a real Redis in cluster mode: one node
// that serves all 16,384 slots, so every key is local and only the same-slot rule can refuse a
// call (CROSSSLOT). A script call over several accounts' keys is refused; the limiter's one call
// per slot runs, and counts exactly.

const ACCOUNTS = ['acc_0123456789abcdef', 'acc_demo0001', 'acc_zzzzzzzz', 'acc_00000000', 'acc_k3y5l0t5'];
const LIMITS = { perMinute: 5, perDay: 100 };

let server: ManagedProcess;
let dir: string;
let redis: Redis;

beforeAll(async () => {
  const command = findOnPath('redis-server');
  if (command === undefined) throw new Error('redis-server is not on PATH: run `bash scripts/bootstrap.sh`');
  dir = await mkdtemp(join(tmpdir(), 'cds-redis-cluster-'));
  const port = await findFreePort('127.0.0.1');
  const url = `redis://127.0.0.1:${port}`;
  server = createManagedProcess({
    name: 'redis-server (cluster mode)',
    command,
    args: [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      join(dir, 'nodes.conf'),
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
    ],
    probe: () => probeRedis(url),
    readyTimeoutMs: 15_000,
  });
  await server.start();
  redis = createRedis({ url, name: 'redis-cluster-int-spec', commandTimeoutMs: 2_000 });
  await redis.call('CLUSTER', 'ADDSLOTSRANGE', '0', '16383');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const info = String(await redis.call('CLUSTER', 'INFO'));
    if (info.includes('cluster_state:ok')) break;
    if (Date.now() > deadline) throw new Error(`the one-node cluster did not come up: ${info}`);
    await sleep(100);
  }
}, 40_000);

afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Eight requests per account in one turn of the event loop: the limiter batches them. */
function burst(limiter: ReturnType<typeof createRedisRateLimiter>) {
  const all = [];
  for (let round = 0; round < 8; round++) {
    for (const id of ACCOUNTS) all.push(limiter.take(id, LIMITS, `key_${round}`).then((d) => ({ id, d })));
  }
  return Promise.allSettled(all);
}

describe('the rate scripts on Redis in cluster mode', () => {
  it('agrees with CLUSTER KEYSLOT on the keys the scripts are called with', async () => {
    for (const id of ACCOUNTS) {
      for (const key of [`cds:rl:{${id}}`, `cds:usage:{${id}}`]) {
        expect(await redis.call('CLUSTER', 'KEYSLOT', key), key).toBe(keySlot(key));
      }
    }
  });

  it('refuses one call over several accounts (CROSSSLOT), which is why a cluster takes one call per slot', async () => {
    const results = await burst(createRedisRateLimiter(redis, { keyPrefix: 'x:rl:', usageKeyPrefix: 'x:usage:' }));
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(results.length);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(/CROSSSLOT/);
  });

  it('runs one call per slot and admits exactly the limit of each account', async () => {
    const limiter = createRedisRateLimiter(redis, { oneSlotPerCall: true });
    const results = await burst(limiter);
    const admitted = new Map<string, number>();
    for (const r of results) {
      expect(r.status).toBe('fulfilled');
      if (r.status !== 'fulfilled') continue;
      expect(r.value.d.source).toBe('redis');
      if (r.value.d.admitted) admitted.set(r.value.id, (admitted.get(r.value.id) ?? 0) + 1);
    }
    for (const id of ACCOUNTS) expect(admitted.get(id), id).toBe(LIMITS.perMinute);
    // Both hashes of each account were written, in its slot.
    for (const id of ACCOUNTS) {
      expect(await redis.hget(`cds:rl:{${id}}`, 'mc')).toBe(String(LIMITS.perMinute));
      expect(Object.keys(await redis.hgetall(`cds:usage:{${id}}`))).toContain('k:key_0');
    }
  });
});
