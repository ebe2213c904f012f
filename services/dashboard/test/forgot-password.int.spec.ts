import { createServer } from 'node:net';
import { createLogger } from '@cds/telemetry';
import { createRedis, type Redis } from '@cds/redis';
import { connectStore, type Store } from '@cds/store';
import { getTestInfra, uniqueName } from '@cds/testkit';
import { createWebhookStores } from '@cds/webhooks';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient } from '../src/admin/admin-client.ts';
import { buildApp } from '../src/app.ts';
import { createSmtpMailer, type Mailer } from '@cds/mail';
import { createChallenges } from '../src/security/challenge.ts';
import { createPasswordHasher } from '../src/security/password.ts';
import { createThrottle } from '../src/security/throttle.ts';
import { createSessionStore } from '../src/sessions/session-store.ts';
import { createUsageReader } from '../src/usage/usage-reader.ts';
import { createUserStore, type UserStore } from '../src/users/user-store.ts';
import { createWebhookUrlCheck } from '../src/webhooks/index.ts';

// The forgot-password form must not tell known addresses from unknown ones, even when the mail
// server is down: here SMTP points at a port nobody listens on (a real refused connection).
const SECRET = 'forgot-int-session-secret-0123456789abcdef';

let store: Store;
let redis: Redis;
let users: UserStore;
let mailer: Mailer;
let app: FastifyInstance;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  const infra = getTestInfra();
  store = await connectStore({ url: infra.mongoUrl, appName: 'forgot-int' });
  redis = createRedis({ url: infra.redisUrl, name: 'forgot-int' });
  users = await createUserStore({ db: store.db(uniqueName('forgot')), clock: () => Date.now() });
  mailer = createSmtpMailer({
    url: `smtp://127.0.0.1:${await closedPort()}`,
    from: 'CDS <x@example.test>',
    timeoutMs: 2_000,
  });
  const prefix = `${uniqueName('forgot')}:`;
  const clock = () => Date.now();
  app = await buildApp({
    logger: createLogger({ name: 'forgot-int', level: 'silent' }),
    clock,
    users,
    sessions: createSessionStore({
      redis,
      prefix,
      secret: SECRET,
      clock,
      policy: { idleMs: 60_000, absoluteMs: 3_600_000 },
    }),
    throttle: createThrottle({ redis, prefix, secret: SECRET, clock }),
    mailer,
    // Never called by these pages.
    admin: createAdminClient({
      url: `http://127.0.0.1:${await closedPort()}`,
      token: 'unused-admin-token-0123',
      timeoutMs: 1_000,
    }),
    usage: createUsageReader({ redis, ratePrefix: `${prefix}rl:`, usagePrefix: `${prefix}usage:` }),
    passwords: createPasswordHasher({ N: 2 ** 10, r: 8, p: 1 }),
    challenges: createChallenges({ redis, prefix, secret: SECRET, clock }),
    // Not used by these pages either.
    webhooks: await createWebhookStores(store.db(uniqueName('forgot-webhooks')), {
      retry: { baseMs: 30_000, maxMs: 3_600_000 },
      retryForMs: 86_400_000,
      disableAfterMs: 259_200_000,
    }),
    checkWebhookUrl: createWebhookUrlCheck({ allowPrivate: [], timeoutMs: 1_000 }),
    sessionSecret: SECRET,
    sessionMaxAgeSeconds: 3600,
    cookieSecure: true,
    publicApiUrl: 'https://api.example.test/api/v1',
    publicBaseUrl: 'https://dash.example.test/dashboard',
  });
  await app.ready();
}, 60_000);

afterAll(async () => {
  await app?.close();
  mailer?.close();
  await redis?.quit();
  await store?.close();
});

async function forgot(email: string) {
  const page = await app.inject({ method: 'GET', url: '/dashboard/forgot', remoteAddress: '10.1.0.1' });
  const cookie = page.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
  return app.inject({
    method: 'POST',
    url: '/dashboard/forgot',
    payload: new URLSearchParams({ email, _csrf: csrf }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    remoteAddress: '10.1.0.1',
  });
}

describe('forgot password with the mail server down', () => {
  it('answers a known address exactly like an unknown one', async () => {
    const created = await users.create({ email: 'known@example.test', passwordHash: 'x', verified: true });
    expect(created).not.toBe('duplicate');
    const unknown = await forgot('nobody@example.test');
    const known = await forgot('known@example.test');
    expect(unknown.statusCode).toBe(200);
    expect(known.statusCode).toBe(unknown.statusCode);
    expect(known.body.replace(/name="_csrf" value="[^"]+"/, '')).toBe(
      unknown.body.replace(/name="_csrf" value="[^"]+"/, ''),
    );
  });
});
