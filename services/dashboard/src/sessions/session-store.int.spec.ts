import { createRedis, type Redis } from '@cds/redis';
import { getTestInfra, uniqueName } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionStore, type SessionStore } from './session-store.ts';

let redis: Redis;
let sessions: SessionStore;
const now = Date.now();

beforeAll(() => {
  redis = createRedis({ url: getTestInfra().redisUrl, name: 'session-store-int' });
  sessions = createSessionStore({
    redis,
    prefix: `${uniqueName('sess')}:`,
    secret: 'session-store-int-secret-0123456789abcdef',
    clock: () => now,
    policy: { idleMs: 30 * 60_000, absoluteMs: 12 * 3600_000 },
  });
});

afterAll(async () => {
  await redis?.quit();
});

describe('session store against real Redis', () => {
  it('does not bring back a session destroyed while a request was touching it', async () => {
    const session = await sessions.create('usr_race');
    // The request's GET is answered before the log-out's DEL runs; its touch then comes after the DEL.
    await Promise.all([sessions.get(session.id), sessions.destroy(session.id)]);
    expect(await sessions.get(session.id)).toBeUndefined();
  });
});
