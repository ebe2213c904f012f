import { KEYS_STREAM, KeyEvent } from '@cds/contracts';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { startNats, type NatsHandle } from '@cds/testkit';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import { ensureEventStreams } from '../publish/streams.ts';
import { createKeyCommands } from './commands.ts';
import { startKeyLog, type KeyLog } from './key-log.ts';

// A private NATS server: the keys stream has fixed subjects (cds.keys.>), so it cannot share one.
const TOKEN = 'admin-token-for-tests-0123456789';
let nats: NatsHandle;
let messaging: Messaging;
const logs: KeyLog[] = [];
const silent = { warn: () => undefined, error: () => undefined };

async function makeApp() {
  const log = await startKeyLog({ nc: messaging.nc, js: messaging.js, jsm: messaging.jsm, logger: silent });
  logs.push(log);
  const app = buildApp({
    commands: createKeyCommands({ js: messaging.js, log }),
    adminToken: TOKEN,
    publicBaseUrl: 'https://api.example.test',
    isReady: () => log.ready,
  });
  await app.ready();
  return { app, log };
}

const auth = { authorization: `Bearer ${TOKEN}` };
let app: Awaited<ReturnType<typeof makeApp>>['app'];

async function keyEvents(): Promise<KeyEvent[]> {
  const out: KeyEvent[] = [];
  const info = await messaging.jsm.streams.info(KEYS_STREAM);
  for (let seq = 1; seq <= info.state.last_seq; seq++) {
    const m = await messaging.jsm.streams.getMessage(KEYS_STREAM, { seq });
    out.push(KeyEvent.parse(m!.json()));
  }
  return out;
}

function expectError(res: { statusCode: number; json: () => unknown }, status: number, code: string, param?: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json() as { error: { code: string; message: string; request_id: string; param?: string } };
  expect(body.error.code).toBe(code);
  expect(body.error.message).toEqual(expect.any(String));
  expect(body.error.request_id).toMatch(/^req_/);
  if (param !== undefined) expect(body.error.param).toBe(param);
}

beforeAll(async () => {
  nats = await startNats();
  messaging = await connectMessaging({ servers: nats.url, name: 'admin-int-spec' });
  await ensureEventStreams(messaging, { replicas: 1, duplicateWindowMs: 120_000 });
  app = (await makeApp()).app;
});

afterAll(async () => {
  await app?.close();
  for (const l of logs) await l.stop();
  await messaging?.close();
  await nats?.stop();
});

describe('admin API', () => {
  let accountId: string;
  let keyId: string;
  let plainKey: string;

  it('creates an account', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: auth,
      payload: { name: 'Acme', plan: 'free' },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({ name: 'Acme', plan: 'free' });
    expect(body.account_id).toMatch(/^acc_[0-9a-f]{20}$/);
    accountId = body.account_id;
  });

  it('creates a key, shown once; the event carries its hash, never the key', async () => {
    const res = await app.inject({
      method: 'POST',
      url: `/admin/v1/accounts/${accountId}/keys`,
      headers: auth,
      payload: { label: 'ci' },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body.key).toMatch(/^[0-9a-f]{40}$/);
    expect(body.key_id).toMatch(/^key_[0-9a-f]{20}$/);
    expect(body).toMatchObject({ account_id: accountId, label: 'ci', status: 'active' });
    expect(body).not.toHaveProperty('key_hash');
    keyId = body.key_id;
    plainKey = body.key;

    const events = await keyEvents();
    const created = events.find((e) => e.type === 'key.created');
    expect(created?.data).toMatchObject({
      key_id: keyId,
      account_id: accountId,
      plan: 'free',
      key_hash: createHash('sha256').update(plainKey).digest('hex'),
    });
    const raw = JSON.stringify(events);
    expect(raw).not.toContain(plainKey);
  });

  it('lists keys with metadata only, and shows the account', async () => {
    const list = await app.inject({ method: 'GET', url: `/admin/v1/accounts/${accountId}/keys`, headers: auth });
    expect(list.statusCode).toBe(200);
    expect(list.json().keys).toEqual([expect.objectContaining({ key_id: keyId, status: 'active' })]);
    expect(list.body).not.toContain(plainKey);
    expect(list.body).not.toContain('key_hash');
    const account = await app.inject({ method: 'GET', url: `/admin/v1/accounts/${accountId}`, headers: auth });
    expect(account.json()).toMatchObject({
      account_id: accountId,
      name: 'Acme',
      plan: 'free',
      keys: [{ key_id: keyId }],
    });
  });

  it('changes the plan and publishes the change', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: `/admin/v1/accounts/${accountId}/plan`,
      headers: auth,
      payload: { plan: 'business' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ account_id: accountId, plan: 'business', previous_plan: 'free' });
    const changed = (await keyEvents()).filter((e) => e.type === 'account.plan_changed');
    expect(changed.map((e) => e.data)).toEqual([{ account_id: accountId, plan: 'business', previous_plan: 'free' }]);
  });

  it('revokes a key once; a second revoke is refused', async () => {
    const first = await app.inject({ method: 'POST', url: `/admin/v1/keys/${keyId}/revoke`, headers: auth });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ key_id: keyId, status: 'revoked' });
    const second = await app.inject({ method: 'POST', url: `/admin/v1/keys/${keyId}/revoke`, headers: auth });
    expectError(second, 400, 'invalid_parameter', 'key_id');
    const revoked = (await keyEvents()).filter((e) => e.type === 'key.revoked');
    expect(revoked).toHaveLength(1);
  });

  it('a second admin instance started later replays the same accounts and keys', async () => {
    const { app: other, log } = await makeApp();
    await log.catchUp();
    expect(log.ready).toBe(true);
    const res = await other.inject({ method: 'GET', url: `/admin/v1/accounts/${accountId}`, headers: auth });
    expect(res.json()).toMatchObject({ plan: 'business', keys: [{ key_id: keyId, status: 'revoked' }] });
    // It sees the revocation, so it refuses to revoke again as well.
    const again = await other.inject({ method: 'POST', url: `/admin/v1/keys/${keyId}/revoke`, headers: auth });
    expectError(again, 400, 'invalid_parameter', 'key_id');
    await other.close();
  });

  it('two replicas racing to revoke the same key store one revocation', async () => {
    const created = await app.inject({ method: 'POST', url: `/admin/v1/accounts/${accountId}/keys`, headers: auth });
    const id = created.json().key_id as string;
    const { app: other, log } = await makeApp();
    await log.catchUp();
    const results = await Promise.all([
      app.inject({ method: 'POST', url: `/admin/v1/keys/${id}/revoke`, headers: auth }),
      other.inject({ method: 'POST', url: `/admin/v1/keys/${id}/revoke`, headers: auth }),
    ]);
    expect(results.map((r) => r.statusCode).filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of results) expect([200, 400]).toContain(r.statusCode);
    const revocations = (await keyEvents()).filter((e) => e.type === 'key.revoked' && e.data.key_id === id);
    expect(revocations).toHaveLength(1);
    await other.close();
  });
});

describe('admin API errors', () => {
  it('401 without a token or with a wrong one', async () => {
    expectError(await app.inject({ method: 'GET', url: '/admin/v1/accounts/acc_0123456789' }), 401, 'unauthorized');
    expectError(
      await app.inject({
        method: 'GET',
        url: '/admin/v1/accounts/acc_0123456789',
        headers: { authorization: 'Bearer nope' },
      }),
      401,
      'unauthorized',
    );
    expectError(
      await app.inject({
        method: 'POST',
        url: '/admin/v1/accounts',
        headers: { authorization: TOKEN },
        payload: { name: 'x', plan: 'free' },
      }),
      401,
      'unauthorized',
    );
  });

  it('404 for an unknown account or key', async () => {
    expectError(
      await app.inject({ method: 'GET', url: '/admin/v1/accounts/acc_00000000000000000000', headers: auth }),
      404,
      'not_found',
      'account_id',
    );
    expectError(
      await app.inject({
        method: 'POST',
        url: '/admin/v1/accounts/acc_00000000000000000000/keys',
        headers: auth,
        payload: {},
      }),
      404,
      'not_found',
      'account_id',
    );
    expectError(
      await app.inject({ method: 'GET', url: '/admin/v1/accounts/nonsense/keys', headers: auth }),
      404,
      'not_found',
      'account_id',
    );
    expectError(
      await app.inject({ method: 'POST', url: '/admin/v1/keys/key_00000000000000000000/revoke', headers: auth }),
      404,
      'not_found',
      'key_id',
    );
    expectError(
      await app.inject({
        method: 'PUT',
        url: '/admin/v1/accounts/acc_00000000000000000000/plan',
        headers: auth,
        payload: { plan: 'free' },
      }),
      404,
      'not_found',
      'account_id',
    );
  });

  it('400 with param for an unknown plan or a malformed body', async () => {
    const post = (payload: string | object, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: { ...auth, ...headers }, payload });
    expectError(await post({ name: 'x', plan: 'gold' }), 400, 'invalid_parameter', 'plan');
    expectError(await post({ plan: 'free' }), 400, 'invalid_parameter', 'name');
    expectError(await post({ name: 'x', plan: 'free', extra: 1 }), 400, 'invalid_parameter', 'extra');
    expectError(await post('{"name": "x", ', { 'content-type': 'application/json' }), 400, 'invalid_parameter', 'body');
    expectError(await post('name=x', { 'content-type': 'text/plain' }), 400, 'invalid_parameter', 'body');
    expectError(
      await app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: auth }),
      400,
      'invalid_parameter',
      'body',
    );
    const created = await post({ name: 'Plan test', plan: 'free' });
    const id = created.json().account_id as string;
    expectError(
      await app.inject({
        method: 'PUT',
        url: `/admin/v1/accounts/${id}/plan`,
        headers: auth,
        payload: { plan: 'platinum' },
      }),
      400,
      'invalid_parameter',
      'plan',
    );
  });

  it('answers /healthz and /readyz', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
  });
});
