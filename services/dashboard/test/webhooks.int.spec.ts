import { createServer } from 'node:net';
import { createLogger } from '@cds/telemetry';
import { createRedis, type Redis } from '@cds/redis';
import { connectStore, type Store } from '@cds/store';
import {
  getTestInfra,
  startNats,
  startServiceProcess,
  uniqueName,
  waitForReady,
  type NatsHandle,
  type ServiceProcess,
} from '@cds/testkit';
import { createWebhookStores, type Resolver, type WebhookStores } from '@cds/webhooks';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminClient, type AdminClient } from '../src/admin/admin-client.ts';
import { buildApp, type DashboardDeps } from '../src/app.ts';
import { createChallenges } from '../src/security/challenge.ts';
import { createPasswordHasher } from '../src/security/password.ts';
import { createThrottle } from '../src/security/throttle.ts';
import { createSessionStore } from '../src/sessions/session-store.ts';
import { InjectBrowser, pageText } from '../src/testing/inject-browser.ts';
import { createUsageReader } from '../src/usage/usage-reader.ts';
import { createUserStore, type UserStore } from '../src/users/user-store.ts';
import { createCommodityCatalog, createWebhookUrlCheck } from '../src/webhooks/index.ts';

// The webhook pages against real Redis (sessions, throttles), the real webhook store on the run's
// MongoDB API server, the accounts admin API (plans) and the query service (the catalog, empty here:
// every listed commodity is unknown to it). Host names resolve through a table (the URL check's
// resolver option) so that public and private names need no network.
const ADMIN_TOKEN = 'webhooks-int-admin-token-0123456789';
const SECRET = 'webhooks-int-session-secret-0123456789abcdef';
const PASSWORD = 'correct horse battery staple';
const RECEIVER = '127.0.0.1:9443';

const NAMES: Record<string, string[]> = {
  'hooks.example.test': ['93.184.215.14'],
  'intranet.example.test': ['10.20.30.40'],
  'sneaky.example.test': ['93.184.215.14', '::1'],
  'metadata.example.test': ['169.254.169.254'],
};
const resolver: Resolver = (host) => {
  const addresses = NAMES[host];
  if (addresses === undefined) return Promise.reject(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }));
  return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
};

let nats: NatsHandle;
let adminProcess: ServiceProcess;
let queryProcess: ServiceProcess;
let admin: AdminClient;
let store: Store;
let redis: Redis;
let users: UserStore;
let webhooks: WebhookStores;
let app: FastifyInstance;
/** The same dashboard without a catalog: commodity ids checked for their shape only. */
let shapeOnlyApp: FastifyInstance;
const now = Date.now();
const prefix = `${uniqueName('wh')}:`;
const webhooksDb = uniqueName('webhooks');

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  const infra = getTestInfra();
  nats = await startNats();
  [adminProcess, queryProcess] = await Promise.all([
    startServiceProcess({
      service: 'accounts',
      name: 'webhooks-int-admin',
      env: { NATS_URL: nats.identities.admin, ADMIN_TOKEN, LOG_LEVEL: 'warn' },
    }),
    startServiceProcess({
      service: 'query',
      name: 'webhooks-int-query',
      env: {
        NATS_URL: nats.identities.query,
        MONGODB_URL: infra.mongoUrl,
        MONGODB_DB: uniqueName('whcat'),
        LOG_LEVEL: 'warn',
      },
    }),
  ]);
  store = await connectStore({ url: infra.mongoUrl, appName: 'webhooks-int' });
  redis = createRedis({ url: infra.redisUrl, name: 'webhooks-int' });
  users = await createUserStore({ db: store.db(uniqueName('whusers')), clock: () => now });
  admin = createAdminClient({ url: adminProcess.url, token: ADMIN_TOKEN, timeoutMs: 5_000 });
  webhooks = await createWebhookStores(store.db(webhooksDb), {
    retry: { baseMs: 30_000, maxMs: 3_600_000 },
    retryForMs: 86_400_000,
    disableAfterMs: 259_200_000,
    publicOrigin: 'https://api.example.test',
  });
  await Promise.all([
    waitForReady(`${adminProcess.url}/readyz`, { service: adminProcess, timeoutMs: 60_000 }),
    waitForReady(`${queryProcess.url}/readyz`, { service: queryProcess, timeoutMs: 60_000 }),
  ]);
  const deps: DashboardDeps = {
    logger: createLogger({ name: 'webhooks-int', level: 'silent' }),
    clock: () => Date.now(),
    users,
    sessions: createSessionStore({
      redis,
      prefix,
      secret: SECRET,
      clock: () => Date.now(),
      policy: { idleMs: 3_600_000, absoluteMs: 12 * 3_600_000 },
    }),
    throttle: createThrottle({ redis, prefix, secret: SECRET, clock: () => Date.now() }),
    // Sends are flooded on purpose below; saves are many in this spec.
    throttles: {
      webhookSendPerAccount: { limit: 6, windowSeconds: 600 },
      webhookSavePerAccount: { limit: 500, windowSeconds: 600 },
    },
    // No page here sends mail.
    mailer: { kind: 'file', send: () => Promise.reject(new Error('no mail in this spec')), close: () => undefined },
    admin,
    usage: createUsageReader({ redis, ratePrefix: `${prefix}rl:`, usagePrefix: `${prefix}usage:` }),
    passwords: createPasswordHasher({ N: 2 ** 10, r: 8, p: 1 }),
    challenges: createChallenges({ redis, prefix, secret: SECRET, clock: () => Date.now() }),
    webhooks,
    checkWebhookUrl: createWebhookUrlCheck({ allowPrivate: [RECEIVER], timeoutMs: 2_000, resolver }),
    catalog: createCommodityCatalog({ queryUrl: queryProcess.url, timeoutMs: 3_000, ttlMs: 60_000, clock: Date.now }),
    sessionSecret: SECRET,
    sessionMaxAgeSeconds: 12 * 3600,
    cookieSecure: true,
    publicApiUrl: 'https://api.example.test/api/v1',
    publicBaseUrl: 'https://dash.example.test/dashboard',
  };
  app = await buildApp(deps);
  const { catalog: _catalog, ...withoutCatalog } = deps;
  shapeOnlyApp = await buildApp(withoutCatalog);
  await Promise.all([app.ready(), shapeOnlyApp.ready()]);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await shapeOnlyApp?.close();
  await Promise.all([adminProcess?.stop(), queryProcess?.stop()]);
  await nats?.stop();
  await redis?.quit();
  await store?.close();
});

class Browser extends InjectBrowser {
  constructor(ip: string, target: () => FastifyInstance = () => app) {
    super(target, ip);
  }
}
const text = pageText;
/** The form's error message of a field. */
const fieldError = (res: LightMyRequestResponse, name: string) =>
  new RegExp(`id="f-${name}-error">([^<]*)<`)
    .exec(res.body)?.[1]
    ?.replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');

/** A verified user with an account of `plan`, logged in. */
async function member(email: string, plan: 'free' | 'business', ip: string) {
  const user = await users.create({
    email,
    passwordHash: await createPasswordHasher({ N: 2 ** 10, r: 8, p: 1 }).hash(PASSWORD, 'user'),
    verified: true,
  });
  if (user === 'duplicate') throw new Error('duplicate user');
  const account = await admin.createAccount(user._id, plan);
  await users.update(user._id, { account_id: account.account_id });
  const b = new Browser(ip);
  await b.get('/dashboard/login');
  expect((await b.post('/dashboard/login', { email, password: PASSWORD })).statusCode).toBe(303);
  return { b, accountId: account.account_id };
}

const form = (
  fields: Partial<Record<'url' | 'commodities' | 'types_mode' | 'enabled', string>> & { types?: string[] },
) => ({
  url: `https://${RECEIVER}/hooks`,
  commodities: 'all',
  types_mode: 'all',
  enabled: 'on',
  ...fields,
});

describe('webhook pages against the real webhook store, admin API, query service and Redis', () => {
  let ada: Browser;
  let adaAccount = '';
  let endpointId = '';
  let secret = '';

  beforeAll(async () => {
    ({ b: ada, accountId: adaAccount } = await member('ada@example.test', 'free', '10.1.0.1'));
  });

  it('lists no endpoints at first, in the navigation beside keys, plan and usage', async () => {
    const res = await ada.get('/dashboard/webhooks');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/<a href="\/dashboard\/webhooks" aria-current="page">Webhooks<\/a>/);
    expect(text(res)).toContain('No endpoints yet.');
    expect(text(res)).toContain('0 of 10');
    expect((await new Browser('10.1.0.2').get('/dashboard/webhooks')).headers.location).toBe('/dashboard/login');
  });

  it('offers the COT formats the free plan lacks disabled, with why', async () => {
    const res = await ada.get('/dashboard/webhooks/new');
    expect(res.statusCode).toBe(200);
    expect(res.body).toMatch(/value="cot_legacy"\s+disabled/);
    expect(res.body).toMatch(/value="cot_disaggregated"\s+disabled/);
    // The combined datasets and the CIT supplement are topics too, under the same plan rules.
    for (const topic of ['cot_legacy_combined', 'cot_disaggregated_combined', 'cot_cit']) {
      expect(res.body).toMatch(new RegExp(`value="${topic}"\\s+disabled`));
    }
    expect(text(res)).toContain('COT supplement: index traders (CIT)');
    expect(text(res)).toContain('The free plan does not include the COT supplement (CIT) reports.');
    expect(res.body).not.toMatch(/value="price"\s+disabled/);
    expect(text(res)).toContain('The free plan does not include legacy COT reports.');
  });

  it('refuses each bad URL with a clear message on the page, never a 500, and stores nothing', async () => {
    await ada.get('/dashboard/webhooks/new');
    const cases: [string, RegExp][] = [
      ['', /Enter the URL of your receiver/],
      ['not a url', /This is not a valid URL/],
      ['http://hooks.example.test/cds', /must start with https:\/\/ \(not http:\/\/\)/],
      ['ftp://hooks.example.test/cds', /must start with https:\/\//],
      ['https://user:secret@hooks.example.test/cds', /Leave user names and passwords out of the URL/],
      ['https://hooks.example.test/cds#frag', /Leave the #fragment out/],
      [`https://hooks.example.test/${'a'.repeat(2100)}`, /at most 2000 characters/],
      ['https://127.0.0.1/cds', /127\.0\.0\.1 is a loopback address\. Webhooks are delivered only to public/],
      ['https://10.1.2.3/cds', /10\.1\.2\.3 is a private address/],
      ['https://[::1]/cds', /\[::1\] is a loopback address/],
      ['https://169.254.169.254/latest', /169\.254\.169\.254 is a link-local address/],
      ['https://localhost/cds', /localhost is a loopback name/],
      ['https://intranet.example.test/cds', /intranet\.example\.test resolves to 10\.20\.30\.40, a private address/],
      ['https://sneaky.example.test/cds', /sneaky\.example\.test resolves to ::1, a loopback address/],
      ['https://metadata.example.test/cds', /resolves to 169\.254\.169\.254, a link-local address/],
      [
        'https://nowhere.example.test/cds',
        /nowhere\.example\.test does not resolve \(ENOTFOUND\): check the host name/,
      ],
      // The exemption is for host:port exactly.
      ['https://127.0.0.1:9444/cds', /127\.0\.0\.1 is a loopback address/],
    ];
    for (const [url, message] of cases) {
      const res = await ada.post('/dashboard/webhooks', form({ url }));
      expect(res.statusCode, url).toBe(400);
      expect(fieldError(res, 'url'), url).toMatch(message);
      expect(res.body).toContain('aria-invalid="true"');
      expect(text(res)).toContain('Please correct the field below.');
    }
    expect(await webhooks.listEndpoints(adaAccount)).toEqual([]);
  });

  it('refuses bad commodities (shape, duplicates, unknown to the catalog) and bad types, keeping what was typed', async () => {
    const cases: [Record<string, string | string[]>, 'commodities' | 'types', RegExp][] = [
      [{ commodities: 'corn;drop' }, 'commodities', /“CORN;DROP” is not a commodity id/],
      [{ commodities: 'CORN,,GOLD' }, 'commodities', /Remove the empty entry/],
      [{ commodities: 'CORN, corn' }, 'commodities', /CORN is listed twice/],
      [{ commodities: 'GOLD, NOT_A_THING' }, 'commodities', /Unknown commodities: GOLD, NOT_A_THING\./],
      [{ commodities: Array.from({ length: 101 }, (_, i) => `C${i}`).join(',') }, 'commodities', /at most 100/],
      [{ types_mode: 'some' }, 'types', /Tick at least one type/],
      [{ types_mode: 'some', types: ['price', 'bogus'] }, 'types', /“bogus” is not a notification type/],
      // A forged form: the checkbox is disabled for this plan.
      [{ types_mode: 'some', types: ['price', 'cot_legacy'] }, 'types', /The free plan does not include legacy COT/],
    ];
    for (const [fields, name, message] of cases) {
      const res = await ada.post('/dashboard/webhooks', form(fields));
      expect(res.statusCode, JSON.stringify(fields).slice(0, 80)).toBe(400);
      expect(fieldError(res, name)).toMatch(message);
    }
    const kept = await ada.post(
      '/dashboard/webhooks',
      form({ url: 'http://x.example.test/a', commodities: 'corn, gold' }),
    );
    expect(kept.body).toContain('value="http://x.example.test/a"');
    expect(kept.body).toContain('value="corn, gold"');
    const two = await ada.post('/dashboard/webhooks', form({ url: 'http://x.example.test/a', types_mode: 'some' }));
    expect(text(two)).toContain('Please correct the 2 fields below.');
    expect(await webhooks.listEndpoints(adaAccount)).toEqual([]);
  });

  it('answers 403 to every webhook form without a valid CSRF token, changing nothing', async () => {
    const none = await ada.post('/dashboard/webhooks', form({}), { csrf: null });
    expect(none.statusCode).toBe(403);
    expect(text(none)).toContain('This form has expired');
    expect((await ada.post('/dashboard/webhooks', form({}), { csrf: 'A'.repeat(43) })).statusCode).toBe(403);
    expect(await webhooks.listEndpoints(adaAccount)).toEqual([]);
  });

  it('creates an endpoint, shows its secret once with a copy button and the verification pointer', async () => {
    await ada.get('/dashboard/webhooks/new');
    const res = await ada.post(
      '/dashboard/webhooks',
      form({ url: `https://${RECEIVER}/hooks?x="><script>alert(1)</script>` }),
    );
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('<script>alert');
    secret = /id="new-secret" type="text" readonly value="([^"]+)"/.exec(res.body)?.[1] ?? '';
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(res.body).toContain('data-copy="new-secret"');
    expect(text(res)).toContain('Copy it now: it is shown only this once.');
    expect(text(res)).toContain('docs/notifications.md');
    const [endpoint] = await webhooks.listEndpoints(adaAccount);
    endpointId = endpoint!.id;
    // Stored as the URL parser writes it (what the notifier will call).
    expect(endpoint!.url).toBe(`https://${RECEIVER}/hooks?x=%22%3E%3Cscript%3Ealert(1)%3C/script%3E`);
    expect(endpoint).toMatchObject({
      commodities: null,
      types: null,
      enabled: true,
      contact_email: 'ada@example.test',
    });
    expect(endpoint!.secret_hint).toBe(secret.slice(-4));
    const again = await ada.get(`/dashboard/webhooks/${endpointId}`);
    expect(again.body).not.toContain(secret);
    expect(text(again)).toContain(`whsec_…${secret.slice(-4)}`);
    const list = await ada.get('/dashboard/webhooks');
    expect(text(list)).toContain('1 of 10');
    expect(text(list)).toContain('Enabled');
    expect(text(list)).toContain('All commodities');
    expect(text(list)).toMatch(/Enabled — never/);
  });

  it("answers 403 to every form of an endpoint without its CSRF token or with another visitor's, changing nothing", async () => {
    const before = await webhooks.getEndpoint(adaAccount, endpointId);
    const deliveries = (await webhooks.listDeliveries(adaAccount, endpointId)).length;
    const other = new Browser('10.1.0.3');
    await other.get('/dashboard/login');
    const paths = [
      '',
      '/enable',
      '/disable',
      '/rotate',
      '/delete',
      '/test',
      `/deliveries/evt_${'a'.repeat(32)}/resend`,
    ];
    for (const path of paths) {
      for (const csrf of [null, other.csrf, 'A'.repeat(43)]) {
        const res = await ada.post(`/dashboard/webhooks/${endpointId}${path}`, form({ commodities: 'GOLD' }), { csrf });
        expect(res.statusCode, `${path} ${String(csrf)}`).toBe(403);
        expect(text(res)).toContain('This form has expired');
      }
    }
    expect(await webhooks.getEndpoint(adaAccount, endpointId)).toEqual(before);
    expect((await webhooks.listDeliveries(adaAccount, endpointId)).length).toBe(deliveries);
  });

  it('edits the filters; bad input on the edit form is refused like on the create form', async () => {
    const page = await ada.get(`/dashboard/webhooks/${endpointId}/edit`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`action="/dashboard/webhooks/${endpointId}"`);
    const bad = await ada.post(`/dashboard/webhooks/${endpointId}`, form({ url: 'https://10.0.0.8/x' }));
    expect(bad.statusCode).toBe(400);
    expect(fieldError(bad, 'url')).toMatch(/10\.0\.0\.8 is a private address/);
    const ok = await ada.post(
      `/dashboard/webhooks/${endpointId}`,
      form({ url: `https://${RECEIVER}/hooks/v2`, types_mode: 'some', types: ['stocks', 'price'] }),
    );
    expect(ok.statusCode).toBe(303);
    expect(ok.headers.location).toBe(`/dashboard/webhooks/${endpointId}?notice=saved`);
    const endpoint = await webhooks.getEndpoint(adaAccount, endpointId);
    expect(endpoint).toMatchObject({ url: `https://${RECEIVER}/hooks/v2`, types: ['price', 'stocks'] });
    expect(text(await ada.get(ok.headers.location as string))).toContain('Changes saved.');
  });

  it('checks commodity ids for their shape only when no catalog is configured, and says so', async () => {
    const b = new Browser('10.1.0.1', () => shapeOnlyApp);
    for (const [k, v] of ada.cookies) b.cookies.set(k, v);
    await b.get(`/dashboard/webhooks/${endpointId}/edit`);
    const res = await b.post(
      `/dashboard/webhooks/${endpointId}`,
      form({ url: `https://${RECEIVER}/hooks/v2`, commodities: 'gold, crude_oil_wti' }),
    );
    expect(res.statusCode).toBe(200);
    expect(text(res)).toContain('The commodity ids were checked for their form only');
    expect((await webhooks.getEndpoint(adaAccount, endpointId))?.commodities).toEqual(['GOLD', 'CRUDE_OIL_WTI']);
    const bad = await b.post(`/dashboard/webhooks/${endpointId}`, form({ commodities: 'gold!' }));
    expect(bad.statusCode).toBe(400);
  });

  it('sends a test event, shows it in the delivery log, and the attempts the notifier records', async () => {
    const sent = await ada.post(`/dashboard/webhooks/${endpointId}/test`, {});
    expect(sent.statusCode).toBe(303);
    const page = await ada.get(sent.headers.location as string);
    expect(text(page)).toContain('Test event queued');
    const [delivery] = await webhooks.listDeliveries(adaAccount, endpointId);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 0 });
    expect(delivery!.notification.test).toBe(true);
    expect(text(page)).toContain(delivery!.event_id);
    expect(text(page)).toContain('Pending');
    expect(text(page)).toContain('not tried yet');

    // The notifier's side of the same store: one failed attempt (HTTP 500), retried later.
    const [claim] = await webhooks.claimDue(10);
    expect(claim?.delivery.id).toBe(delivery!.id);
    const recorded = await webhooks.recordAttempt(claim!, {
      at: new Date(),
      outcome: 'http_error',
      status_code: 500,
      error: 'answered 500',
      duration_ms: 12,
    });
    expect(recorded).not.toBe('lease_lost');
    const failed = await ada.get(`/dashboard/webhooks/${endpointId}`);
    expect(text(failed)).toContain('Retrying');
    expect(text(failed)).toContain('HTTP 500 · answered 500');
    expect(text(failed)).toMatch(/Failing since \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(text(failed)).toContain('Enabled, failing');
    const next = (await webhooks.listDeliveries(adaAccount, endpointId))[0]!.next_attempt_at!;
    expect(next.getTime()).toBeGreaterThan(Date.now() + 20_000);

    // Re-send: due now again, same event id.
    const resent = await ada.post(`/dashboard/webhooks/${endpointId}/deliveries/${delivery!.event_id}/resend`, {});
    expect(resent.statusCode).toBe(303);
    expect(text(await ada.get(resent.headers.location as string))).toContain('Delivery queued again');
    const after = (await webhooks.listDeliveries(adaAccount, endpointId))[0]!;
    expect(after.event_id).toBe(delivery!.event_id);
    expect(after.status).toBe('pending');
    expect(after.next_attempt_at!.getTime()).toBeLessThanOrEqual(Date.now());

    const [again] = await webhooks.claimDue(10);
    await webhooks.recordAttempt(again!, {
      at: new Date(),
      outcome: 'delivered',
      status_code: 204,
      error: null,
      duration_ms: 8,
    });
    const done = await ada.get(`/dashboard/webhooks/${endpointId}`);
    expect(text(done)).toContain('Delivered');
    expect(text(done)).toContain('HTTP 204');
    const list = await ada.get('/dashboard/webhooks');
    // Last success now has a time, failing since none.
    expect(text(list)).toMatch(/Enabled — \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
  });

  it('answers 404 to unknown deliveries and malformed ids, and 429 once test events flood', async () => {
    for (const id of ['evt_0123', 'nope', `evt_${'0'.repeat(32)}`]) {
      const res = await ada.post(`/dashboard/webhooks/${endpointId}/deliveries/${id}/resend`, {});
      expect(res.statusCode).toBe(404);
      expect(text(res)).toContain('This endpoint has no such delivery.');
    }
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await ada.post(`/dashboard/webhooks/${endpointId}/test`, {})).statusCode);
    // The spec's limit is 6 sends in the window: a test, a re-send and the well-formed unknown re-send came before.
    expect(statuses).toEqual([303, 303, 303, 429, 429]);
    const limited = await ada.post(`/dashboard/webhooks/${endpointId}/test`, {});
    expect(text(limited)).toContain('Too many attempts');
    expect(limited.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('disables and enables; a disabled endpoint says why and sends nothing', async () => {
    const off = await ada.post(`/dashboard/webhooks/${endpointId}/disable`, {});
    expect(off.headers.location).toBe(`/dashboard/webhooks/${endpointId}?notice=disabled`);
    expect((await webhooks.getEndpoint(adaAccount, endpointId))?.enabled).toBe(false);
    expect(text(await ada.get('/dashboard/webhooks'))).toContain('Disabled by you');
    const page = await ada.get(`/dashboard/webhooks/${endpointId}`);
    expect(page.body).toMatch(/disabled aria-describedby="test-disabled"\s*>\s*Send test event/);
    expect(text(page)).toContain('Enable the endpoint to send a test event or re-send.');
    const before = (await webhooks.listDeliveries(adaAccount, endpointId)).length;
    const test = await ada.post(`/dashboard/webhooks/${endpointId}/test`, {});
    expect(test.statusCode).toBe(409);
    expect(text(test)).toContain('This endpoint is disabled: enable it first');
    const [delivery] = await webhooks.listDeliveries(adaAccount, endpointId);
    const resend = await ada.post(`/dashboard/webhooks/${endpointId}/deliveries/${delivery!.event_id}/resend`, {});
    expect(resend.statusCode).toBe(409);
    expect((await webhooks.listDeliveries(adaAccount, endpointId)).length).toBe(before);
    const on = await ada.post(`/dashboard/webhooks/${endpointId}/enable`, {});
    expect(on.statusCode).toBe(303);
    const endpoint = await webhooks.getEndpoint(adaAccount, endpointId);
    expect(endpoint).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it('rotates the secret behind a confirmation and shows the new one once', async () => {
    const confirm = await ada.get(`/dashboard/webhooks/${endpointId}/rotate`);
    expect(text(confirm)).toContain(`…${secret.slice(-4)}`);
    const res = await ada.post(`/dashboard/webhooks/${endpointId}/rotate`, {});
    expect(res.statusCode).toBe(200);
    const fresh = /id="new-secret" type="text" readonly value="([^"]+)"/.exec(res.body)?.[1] ?? '';
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    expect(text(res)).toContain(`The old secret (…${secret.slice(-4)}) stays valid until`);
    expect(text(res)).toContain('signed with this one (and, for 24 hours, with the old one too)');
    expect((await webhooks.getEndpoint(adaAccount, endpointId))?.secret_hint).toBe(fresh.slice(-4));
    expect((await ada.post(`/dashboard/webhooks/${endpointId}/rotate`, {}, { csrf: null })).statusCode).toBe(403);
  });

  let eve: Browser;
  let eveAccount = '';
  it("answers another account's endpoint like an unknown one (404) on every page and form", async () => {
    ({ b: eve, accountId: eveAccount } = await member('eve@example.test', 'business', '10.1.0.9'));
    await eve.get('/dashboard/webhooks');
    for (const path of ['', '/edit', '/rotate', '/delete']) {
      expect((await eve.get(`/dashboard/webhooks/${endpointId}${path}`)).statusCode).toBe(404);
    }
    for (const path of ['', '/enable', '/disable', '/rotate', '/delete', '/test']) {
      const res = await eve.post(`/dashboard/webhooks/${endpointId}${path}`, form({}));
      expect(res.statusCode, path).toBe(404);
      expect(text(res)).toContain('This account has no such webhook endpoint.');
    }
    expect((await eve.get('/dashboard/webhooks/whk_nothere')).statusCode).toBe(404);
    expect(await webhooks.getEndpoint(adaAccount, endpointId)).not.toBeNull();
    // The business plan may pick both COT formats.
    const page = await eve.get('/dashboard/webhooks/new');
    expect(page.body).not.toMatch(/value="cot_legacy"\s+disabled/);
    const created = await eve.post(
      '/dashboard/webhooks',
      form({ types_mode: 'some', types: ['cot_disaggregated', 'cot_legacy'] }),
    );
    expect(created.statusCode).toBe(200);
  });

  it('shows an endpoint the notifier disabled after 3 days of failures, and why', async () => {
    const [endpoint] = await webhooks.listEndpoints(eveAccount);
    const fail = (at: Date) => ({
      at,
      outcome: 'timeout' as const,
      status_code: null,
      error: 'no answer in 10 s',
      duration_ms: 10_000,
    });
    /** Claims the due deliveries as the notifier does and gives back those of other endpoints. */
    const claimOwn = async (queue: WebhookStores) => {
      const claims = await queue.claimDue(50);
      for (const c of claims) if (c.delivery.endpoint_id !== endpoint!.id) await queue.release(c);
      return claims.filter((c) => c.delivery.endpoint_id === endpoint!.id);
    };
    await webhooks.sendTestEvent(eveAccount, endpoint!.id);
    const [first] = await claimOwn(webhooks);
    await webhooks.recordAttempt(first!, fail(new Date()));
    // The same store 4 days later (the notifier's clock): the next failure disables the endpoint.
    const later = await createWebhookStores(store.db(webhooksDb), {
      clock: () => Date.now() + 4 * 86_400_000,
      retry: { baseMs: 30_000, maxMs: 3_600_000 },
      retryForMs: 86_400_000,
      disableAfterMs: 259_200_000,
    });
    await webhooks.sendTestEvent(eveAccount, endpoint!.id);
    const claims = await claimOwn(later);
    expect(claims.length).toBeGreaterThan(0);
    const outcome = await later.recordAttempt(claims[0]!, fail(new Date(Date.now() + 4 * 86_400_000)));
    expect(outcome).toMatchObject({ endpointDisabled: true });
    const list = await eve.get('/dashboard/webhooks');
    expect(text(list)).toContain('Disabled: failing for 3 days');
    const page = await eve.get(`/dashboard/webhooks/${endpoint!.id}`);
    expect(text(page)).toMatch(
      /The notifier disabled this endpoint after its deliveries failed for 3 days \(failing since \d{4}-/,
    );
    expect(text(page)).toContain('no answer in 10 s');
    // Enabling clears the failure.
    expect((await eve.post(`/dashboard/webhooks/${endpoint!.id}/enable`, {})).statusCode).toBe(303);
    expect(await webhooks.getEndpoint(eveAccount, endpoint!.id)).toMatchObject({
      enabled: true,
      disabled_reason: null,
      failing_since: null,
    });
  });

  it('stops at 10 endpoints with a clear message', async () => {
    for (let i = (await webhooks.listEndpoints(adaAccount)).length; i < 10; i++) {
      expect((await ada.post('/dashboard/webhooks', form({ url: `https://${RECEIVER}/n/${i}` }))).statusCode).toBe(200);
    }
    const list = await ada.get('/dashboard/webhooks');
    expect(text(list)).toContain('10 of 10');
    expect(text(list)).toContain('You have 10 endpoints, the most an account may have.');
    expect(list.body).toContain('aria-disabled="true"');
    const eleventh = await ada.post('/dashboard/webhooks', form({ url: `https://${RECEIVER}/n/11` }));
    expect(eleventh.statusCode).toBe(409);
    expect(text(eleventh)).toContain('You have 10 endpoints, the most an account may have. Delete one to add another.');
    expect(await webhooks.listEndpoints(adaAccount)).toHaveLength(10);
  });

  it('deletes behind a confirmation naming the URL', async () => {
    const confirm = await ada.get(`/dashboard/webhooks/${endpointId}/delete`);
    expect(confirm.statusCode).toBe(200);
    expect(text(confirm)).toContain(`Delete https://${RECEIVER}/hooks/v2`);
    expect((await ada.post(`/dashboard/webhooks/${endpointId}/delete`, {}, { csrf: null })).statusCode).toBe(403);
    const res = await ada.post(`/dashboard/webhooks/${endpointId}/delete`, {});
    expect(res.headers.location).toBe('/dashboard/webhooks?notice=deleted');
    expect(await webhooks.getEndpoint(adaAccount, endpointId)).toBeNull();
    expect(text(await ada.get(res.headers.location as string))).toContain('Endpoint deleted.');
    expect((await ada.post(`/dashboard/webhooks/${endpointId}/delete`, {})).statusCode).toBe(404);
  });
});

describe('the commodity catalog reader', () => {
  it('reads the query service list, and answers unavailable when it cannot be reached', async () => {
    const catalog = createCommodityCatalog({ queryUrl: queryProcess.url, timeoutMs: 3_000, ttlMs: 0, clock: Date.now });
    expect(await catalog.unknown(['GOLD'])).toEqual(['GOLD']);
    const errors: unknown[] = [];
    const away = createCommodityCatalog({
      queryUrl: `http://127.0.0.1:${await closedPort()}`,
      timeoutMs: 1_000,
      ttlMs: 60_000,
      clock: Date.now,
      onError: (err) => errors.push(err),
    });
    expect(await away.unknown(['GOLD'])).toBe('unavailable');
    expect(errors).toHaveLength(1);
  });
});
