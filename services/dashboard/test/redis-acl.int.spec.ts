// Least privilege between services (issue #22, security review #2), Redis side: the dashboard
// connects as its own ACL user (libs/testkit identities.ts, the chart's files/redis-users.acl). Its
// sessions, throttles and usage page work under it with the default prefixes; the gateway's rate
// windows and usage counts are read-only to it, and the server's administration is refused.
import { createRedis, type Redis } from '@cds/redis';
import { startRedis, type RedisHandle } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThrottle } from '../src/security/throttle.ts';
import { createSessionStore } from '../src/sessions/session-store.ts';
import { createUsageReader } from '../src/usage/usage-reader.ts';

let server: RedisHandle;
let dashboard: Redis;
let system: Redis;
const now = Date.now();

beforeAll(async () => {
  server = await startRedis();
  dashboard = createRedis({ url: server.identities.dashboard, name: 'dashboard-acl-spec' });
  system = createRedis({ url: server.url, name: 'dashboard-acl-spec-system' });
  // What the gateway keeps for an account: its rate windows and daily usage.
  const minute = Math.floor(Number((await system.time())[0]) / 60);
  await system.hset('cds:rl:{acc_acl}', 'm', minute, 'mc', 3);
  await system.hset('cds:usage:{acc_acl}', 'k:key_1', 1);
});

afterAll(async () => {
  dashboard?.disconnect();
  system?.disconnect();
  await server?.stop();
});

describe("the dashboard's Redis user", () => {
  it('keeps sessions (create, touch, log out, log out everywhere) under cds:dash:', async () => {
    const sessions = createSessionStore({
      redis: dashboard,
      prefix: 'cds:dash:',
      secret: 'dashboard-acl-spec-secret-0123456789abcdef',
      clock: () => now,
      policy: { idleMs: 30 * 60_000, absoluteMs: 12 * 3600_000 },
    });
    const a = await sessions.create('usr_acl');
    const b = await sessions.create('usr_acl');
    expect(await sessions.get(a.id)).toMatchObject({ user_id: 'usr_acl' });
    await sessions.destroy(a.id);
    expect(await sessions.get(a.id)).toBeUndefined();
    await sessions.destroyAllForUser('usr_acl');
    expect(await sessions.get(b.id)).toBeUndefined();
  });

  it('counts and refunds throttle hits under cds:dash:', async () => {
    const throttle = createThrottle({
      redis: dashboard,
      prefix: 'cds:dash:',
      secret: 's'.repeat(32),
      clock: () => now,
    });
    const rule = { limit: 1, windowSeconds: 60 };
    const first = await throttle.hit('login-addr', '203.0.113.7', rule);
    expect(first.allowed).toBe(true);
    expect((await throttle.hit('login-addr', '203.0.113.7', rule)).allowed).toBe(false);
    await first.refund();
  });

  it("reads the gateway's windows and usage for the usage page, but cannot change them", async () => {
    const usage = await createUsageReader({ redis: dashboard, ratePrefix: 'cds:rl:', usagePrefix: 'cds:usage:' }).read(
      'acc_acl',
    );
    expect(usage).toMatchObject({ minute: 3 });
    await expect(dashboard.hset('cds:rl:{acc_acl}', 'mc', 0)).rejects.toThrow(/NOPERM/);
    await expect(dashboard.del('cds:usage:{acc_acl}')).rejects.toThrow(/NOPERM/);
    expect(await system.hget('cds:rl:{acc_acl}', 'mc')).toBe('3');
  });

  it('cannot touch other keys, flush, list keys, run scripts or change users', async () => {
    await expect(dashboard.get('cds:sse:{acc_acl}')).rejects.toThrow(/NOPERM/);
    await expect(dashboard.flushall()).rejects.toThrow(/NOPERM/);
    await expect(dashboard.keys('cds:dash:*')).rejects.toThrow(/NOPERM/);
    await expect(dashboard.eval('return 1', 0)).rejects.toThrow(/NOPERM/);
    await expect(dashboard.call('ACL', 'SETUSER', 'dashboard', '+@all')).rejects.toThrow(/NOPERM/);
  });
});
