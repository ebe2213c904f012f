import { isWellFormedApiKey, KEYS_STREAM, KeyEvent, PLANS } from '@cds/contracts';
import { connectMessaging, streamSpec, type Messaging } from '@cds/messaging';
import { createMetrics } from '@cds/telemetry';
import { startNats, type NatsHandle } from '@cds/testkit';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import { createKeyCommands } from '../commands/index.ts';
import { startKeyLog, type KeyLog } from '../keys/key-log.ts';
import { createAdminMetrics } from '../metrics.ts';
import { startRevokedKeyRetention } from '../keys/revoked-retention.ts';
import { startSessionKeyExpiry } from '../keys/session-expiry.ts';

// A private NATS server: the keys stream has fixed subjects (cds.keys.>), so it cannot share one.
const TOKEN = 'admin-token-for-tests-0123456789';
let nats: NatsHandle;
let messaging: Messaging;
const logs: KeyLog[] = [];
/** The revocation notices the apps sent (main.ts sends them on core NATS). */
const announced: KeyEvent[] = [];
const silent = { warn: () => undefined, error: () => undefined };

async function makeApp(opts: { maxActiveFreeKeys?: number; maxActiveFreeSessionKeys?: number } = {}) {
  const log = await startKeyLog({ nc: messaging.nc, js: messaging.js, jsm: messaging.jsm, logger: silent });
  logs.push(log);
  // As main.ts wires them.
  const metrics = createMetrics('accounts');
  const maxActiveFreeKeys = opts.maxActiveFreeKeys ?? 500_000;
  const adminMetrics = createAdminMetrics(metrics, { model: log.model, maxActiveFreeKeys });
  const commands = createKeyCommands({
    js: messaging.js,
    log,
    maxActiveFreeKeys,
    ...(opts.maxActiveFreeSessionKeys !== undefined ? { maxActiveFreeSessionKeys: opts.maxActiveFreeSessionKeys } : {}),
    onRefused: adminMetrics.keyCreationRefused,
    announceRevocation: (event) => announced.push(event),
  });
  const app = buildApp({
    commands,
    adminToken: TOKEN,
    publicBaseUrl: 'https://api.example.test',
    isReady: () => log.ready,
    metrics,
  });
  await app.ready();
  return { app, log, commands };
}

const auth = { authorization: `Bearer ${TOKEN}` };
let app: Awaited<ReturnType<typeof makeApp>>['app'];

/** The events the keys stream holds now (compacted: the latest per subject). */
async function keyEvents(): Promise<KeyEvent[]> {
  const out: KeyEvent[] = [];
  const info = await messaging.jsm.streams.info(KEYS_STREAM);
  for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
    const m = await messaging.jsm.streams.getMessage(KEYS_STREAM, { seq }).catch(() => null);
    if (m !== null) out.push(KeyEvent.parse(m.json()));
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
  for (const name of ['data', 'keys'] as const) {
    await messaging.ensureStream(streamSpec(name, { replicas: 1, duplicateWindowMs: 120_000 }));
  }
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
    // cds_ + base62 with a checksum (docs/decisions.md "Keys"): what secret scanners look for.
    expect(body.key).toMatch(/^cds_[0-9A-Za-z]{36}$/);
    expect(isWellFormedApiKey(body.key)).toBe(true);
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
    // It carries the account's name and creation time: it replaces account.created on the subject.
    expect(changed.map((e) => e.data)).toEqual([
      { account_id: accountId, plan: 'business', previous_plan: 'free', name: 'Acme', created_at: expect.any(String) },
    ]);
  });

  it('revokes a key once; a second revoke is refused', async () => {
    const first = await app.inject({ method: 'POST', url: `/admin/v1/keys/${keyId}/revoke`, headers: auth });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ key_id: keyId, status: 'revoked' });
    const second = await app.inject({ method: 'POST', url: `/admin/v1/keys/${keyId}/revoke`, headers: auth });
    expectError(second, 400, 'invalid_parameter', 'key_id');
    const revoked = (await keyEvents()).filter((e) => e.type === 'key.revoked');
    expect(revoked).toHaveLength(1);
    // The gateways were told first (a notice), with the very event the stream stored.
    expect(announced.filter((e) => e.type === 'key.revoked' && e.data.key_id === keyId)).toEqual(revoked);
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

describe('bounded keys (security review #1)', () => {
  const createKeys = (account: string, n: number) =>
    Promise.all(
      Array.from({ length: n }, () =>
        app.inject({ method: 'POST', url: `/admin/v1/accounts/${account}/keys`, headers: auth }),
      ),
    );
  const newAccount = async (plan: string) =>
    (
      await app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: auth, payload: { name: 'Capped', plan } })
    ).json().account_id as string;

  it('caps active keys per account by plan, even for racing creates; a revocation frees a place', async () => {
    const free = await newAccount('free');
    // 15 creates at once on a free account (3 places): exactly 3 keys, the rest a clear 403.
    expect(PLANS.free.maxActiveKeys).toBe(3);
    const results = await createKeys(free, 15);
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    const refused = results.filter((r) => r.statusCode !== 201);
    expect(refused).toHaveLength(12);
    for (const r of refused) {
      expectError(r, 403, 'forbidden');
      expect(r.json().error.message).toContain('3 active keys');
    }
    const keys = (await app.inject({ method: 'GET', url: `/admin/v1/accounts/${free}/keys`, headers: auth })).json()
      .keys as { key_id: string }[];
    expect(keys).toHaveLength(3);
    await app.inject({ method: 'POST', url: `/admin/v1/keys/${keys[0]!.key_id}/revoke`, headers: auth });
    const [again, past] = await createKeys(free, 2);
    expect([again!.statusCode, past!.statusCode].sort()).toEqual([201, 403]);

    // A paid plan holds 50.
    const paid = await newAccount('professional');
    const paidResults = await createKeys(paid, 52);
    expect(paidResults.filter((r) => r.statusCode === 201)).toHaveLength(50);
  });

  it('refuses a Free key above the ceiling on all Free keys (409 free_key_ceiling), counts it, and lets paid keys through', async () => {
    // A replica whose ceiling is 4 more Free keys than the stream holds now.
    const probe = await makeApp();
    await probe.log.catchUp();
    const ceiling = probe.log.model.activeFreeKeys + 4;
    await probe.app.close();
    const { app: capped, log } = await makeApp({ maxActiveFreeKeys: ceiling });
    await log.catchUp();
    const create = (account: string) =>
      capped.inject({ method: 'POST', url: `/admin/v1/accounts/${account}/keys`, headers: auth });
    // Accounts are created through the first replica: this one catches up before using them.
    const account = async (plan: string) => {
      const id = await newAccount(plan);
      await log.catchUp();
      return id;
    };
    const [a, b] = [await account('free'), await account('free')];
    const made = [await create(a), await create(a), await create(a), await create(b)];
    expect(made.map((r) => r.statusCode)).toEqual([201, 201, 201, 201]);
    expect(log.model.activeFreeKeys).toBe(ceiling);
    // b has room under its plan's cap, but the service has none: a clear error the dashboard shows.
    const refused = await create(b);
    expectError(refused, 409, 'free_key_ceiling');
    expect(refused.json().error.message).toBe(
      'New Free API keys are paused: the service holds as many active Free keys as it can accept right now. ' +
        'Your existing keys keep working. Try again later, or choose a paid plan.',
    );
    expect(refused.json().error.doc_url).toBe('https://api.example.test/docs/errors#free_key_ceiling');
    // A paid account is not bounded by it; a Free revocation gives a place back; an upgrade moves keys out.
    expect((await create(await account('business'))).statusCode).toBe(201);
    await capped.inject({ method: 'POST', url: `/admin/v1/keys/${made[3]!.json().key_id}/revoke`, headers: auth });
    expect((await create(b)).statusCode).toBe(201);
    expectError(await create(b), 409, 'free_key_ceiling');
    await capped.inject({
      method: 'PUT',
      url: `/admin/v1/accounts/${a}/plan`,
      headers: auth,
      payload: { plan: 'professional' },
    });
    expect(log.model.activeFreeKeys).toBe(ceiling - 3);
    expect((await create(b)).statusCode).toBe(201);
    const metrics = await capped.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    // Each series carries the meter's scope label (libs/telemetry).
    const value = (name: string, labels = '') =>
      Number(new RegExp(`^${name}\\{${labels}[^}]*\\} (\\d+)$`, 'm').exec(metrics.body)?.[1]);
    expect(value('cds_admin_active_free_keys')).toBe(ceiling - 2);
    expect(value('cds_admin_free_key_ceiling')).toBe(ceiling);
    expect(value('cds_admin_key_creations_refused_total', 'reason="free_key_ceiling",')).toBe(2);
    expect(value('cds_admin_active_keys')).toBeGreaterThanOrEqual(ceiling - 2);
    await capped.close();
  });

  it('keeps one message per account and per key: a revocation replaces its key, a plan change its account', async () => {
    const account = await newAccount('free');
    const created = await createKeys(account, 3);
    const ids = created.map((r) => r.json().key_id as string);
    await app.inject({
      method: 'POST',
      url: `/admin/v1/keys/${ids[0]!}/revoke`,
      headers: auth,
    });
    await app.inject({
      method: 'PUT',
      url: `/admin/v1/accounts/${account}/plan`,
      headers: auth,
      payload: { plan: 'business' },
    });
    const mine = (await keyEvents()).filter(
      (e) => ('account_id' in e.data ? e.data.account_id : undefined) === account,
    );
    expect(mine.map((e) => e.type).sort()).toEqual([
      'account.plan_changed',
      'key.created',
      'key.created',
      'key.revoked',
    ]);
    const revoked = mine.find((e) => e.type === 'key.revoked')!;
    expect(revoked.data).toMatchObject({ key_id: ids[0], created_at: expect.any(String) });
    expect(mine.find((e) => e.type === 'account.plan_changed')!.data).toMatchObject({ name: 'Capped' });

    // A replica replaying the compacted stream knows everything it knew before.
    const { app: other, log } = await makeApp();
    await log.catchUp();
    const res = (await other.inject({ method: 'GET', url: `/admin/v1/accounts/${account}`, headers: auth })).json();
    const before = (await app.inject({ method: 'GET', url: `/admin/v1/accounts/${account}`, headers: auth })).json();
    expect(res).toEqual(before);
    expect(res).toMatchObject({ name: 'Capped', plan: 'business' });
    expect(res.keys.map((k: { status: string }) => k.status)).toEqual(['revoked', 'active', 'active']);
    await other.close();
  });

  it('purges revocations past their retention; active keys and recent revocations stay', async () => {
    const account = await newAccount('free');
    const ids = (await createKeys(account, 3)).map((r) => r.json().key_id as string);
    for (const id of ids.slice(0, 2)) {
      await app.inject({ method: 'POST', url: `/admin/v1/keys/${id}/revoke`, headers: auth });
    }
    const { log } = await makeApp();
    await log.catchUp();
    const revokedAt = Date.parse(log.model.keys.get(ids[1]!)!.revoked_at!);
    const retention = startRevokedKeyRetention({
      jsm: messaging.jsm,
      model: log.model,
      logger: { info: () => undefined, error: () => undefined },
      ready: () => log.ready,
      retentionMs: 60_000,
      // An hour after the revocations: both are past the minute's retention.
      now: () => revokedAt + 3_600_000,
    });
    try {
      const purged = await retention.sweep();
      expect(purged).toBeGreaterThanOrEqual(2);
    } finally {
      retention.stop();
    }
    const left = (await keyEvents()).filter((e) => 'key_id' in e.data && ids.includes(e.data.key_id));
    expect(left.map((e) => [e.type, 'key_id' in e.data ? e.data.key_id : ''])).toEqual([['key.created', ids[2]]]);
    expect([...log.model.keys.keys()].filter((id) => ids.includes(id))).toEqual([ids[2]]);
  });
});

describe('dashboard session keys (issue #37)', () => {
  const newAccount = async (plan: string, on = app) =>
    (
      await on.inject({ method: 'POST', url: '/admin/v1/accounts', headers: auth, payload: { name: 'Sessions', plan } })
    ).json().account_id as string;
  const createSessionKey = (account: string, ttl: unknown = 600, on = app) =>
    on.inject({
      method: 'POST',
      url: `/admin/v1/accounts/${account}/session-keys`,
      headers: auth,
      payload: { ttl_seconds: ttl },
    });
  const keysOf = async (account: string, on = app) =>
    (await on.inject({ method: 'GET', url: `/admin/v1/accounts/${account}/keys`, headers: auth })).json().keys as {
      key_id: string;
      status: string;
      session_expires_at?: string;
    }[];

  it('take none of the plan slots: a Free account at its cap of 3 still gets one, and its own cap is unchanged', async () => {
    const free = await newAccount('free');
    for (let i = 0; i < 3; i++) {
      const own = await app.inject({ method: 'POST', url: `/admin/v1/accounts/${free}/keys`, headers: auth });
      expect(own.statusCode).toBe(201);
    }
    const before = Date.now();
    const res = await createSessionKey(free, 600);
    expect(res.statusCode).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(isWellFormedApiKey(body.key)).toBe(true);
    expect(body).toMatchObject({ account_id: free, status: 'active', label: 'Dashboard session' });
    const ends = Date.parse(body.session_expires_at);
    expect(ends).toBeGreaterThanOrEqual(before + 600_000 - 1_000);
    expect(ends).toBeLessThanOrEqual(Date.now() + 600_000);
    // The event carries the end (and the key's hash, never the key).
    const created = (await keyEvents()).find((e) => e.type === 'key.created' && e.data.key_id === body.key_id);
    expect(created?.data).toMatchObject({ session_expires_at: body.session_expires_at });
    expect(JSON.stringify(created)).not.toContain(body.key);
    // The own cap still counts own keys only: a 4th is refused, the session key stays.
    const fourth = await app.inject({ method: 'POST', url: `/admin/v1/accounts/${free}/keys`, headers: auth });
    expectError(fourth, 403, 'forbidden');
    const keys = await keysOf(free);
    expect(keys.filter((k) => k.status === 'active')).toHaveLength(4);
    expect(keys.filter((k) => k.session_expires_at !== undefined).map((k) => k.key_id)).toEqual([body.key_id]);
  });

  it('are bounded per account: the 4th replaces the oldest, so many sessions never pile up keys', async () => {
    const account = await newAccount('free');
    const made: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await createSessionKey(account);
      expect(res.statusCode).toBe(201);
      made.push(res.json().key_id);
    }
    const keys = await keysOf(account);
    expect(keys.filter((k) => k.status === 'active').map((k) => k.key_id)).toEqual(made.slice(4));
    expect(keys.filter((k) => k.status === 'revoked').map((k) => k.key_id)).toEqual(made.slice(0, 4));
    // Each replaced one was revoked on the stream, carrying its end too.
    const revoked = (await keyEvents()).filter((e) => e.type === 'key.revoked' && made.includes(e.data.key_id));
    expect(revoked).toHaveLength(4);
    for (const e of revoked) expect(e.data).toHaveProperty('session_expires_at');
    // Racing creations on one replica still leave three.
    await Promise.all(Array.from({ length: 6 }, () => createSessionKey(account)));
    expect((await keysOf(account)).filter((k) => k.status === 'active')).toHaveLength(3);
  });

  it('have a Free ceiling of their own: past it a session key is refused 409, own keys are still created', async () => {
    const probe = await makeApp();
    await probe.log.catchUp();
    const ceiling = probe.log.model.activeFreeSessionKeys + 2;
    await probe.app.close();
    const capped = await makeApp({ maxActiveFreeSessionKeys: ceiling, maxActiveFreeKeys: 500_000 });
    const a = await newAccount('free', capped.app);
    const b = await newAccount('free', capped.app);
    expect((await createSessionKey(a, 600, capped.app)).statusCode).toBe(201);
    expect((await createSessionKey(a, 600, capped.app)).statusCode).toBe(201);
    const refused = await createSessionKey(b, 600, capped.app);
    expectError(refused, 409, 'free_key_ceiling');
    expect(refused.json().error.message).toContain('Paste one of your own keys into the explorer');
    // The user's own keys are not blocked by sessions, and a paid account's session keys are not bounded.
    const own = await capped.app.inject({ method: 'POST', url: `/admin/v1/accounts/${b}/keys`, headers: auth });
    expect(own.statusCode).toBe(201);
    expect((await createSessionKey(await newAccount('business', capped.app), 600, capped.app)).statusCode).toBe(201);
    const metrics = (await capped.app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(new RegExp(`^cds_admin_active_free_session_keys\\{[^}]*\\} ${ceiling}$`, 'm'));
    expect(metrics).toMatch(/^cds_admin_key_creations_refused_total\{reason="session_key_ceiling",[^}]*\} 1$/m);
    await capped.app.close();
  });

  it('expire: the sweep revokes a session key past its end with a key.revoked, and leaves the others', async () => {
    const { app: replica, log, commands } = await makeApp();
    const account = await newAccount('free', replica);
    const short = (await createSessionKey(account, 1, replica)).json();
    const long = (await createSessionKey(account, 3_600, replica)).json();
    const own = (
      await replica.inject({ method: 'POST', url: `/admin/v1/accounts/${account}/keys`, headers: auth })
    ).json();
    const infos: object[] = [];
    const expiry = startSessionKeyExpiry({
      model: log.model,
      revoke: (keyId) => commands.revokeIfActive(keyId),
      logger: { info: (o) => infos.push(o), error: () => undefined },
      ready: () => log.ready,
      everyMs: 3_600_000,
      now: () => Date.now() + 2_000,
    });
    try {
      // At most one sweep at a time: two calls share the run.
      const [n, m] = await Promise.all([expiry.sweep(), expiry.sweep()]);
      expect([n, m]).toEqual([1, 1]);
      expect(await expiry.sweep()).toBe(0);
    } finally {
      expiry.stop();
    }
    const status = Object.fromEntries((await keysOf(account, replica)).map((k) => [k.key_id, k.status]));
    expect(status).toEqual({ [short.key_id]: 'revoked', [long.key_id]: 'active', [own.key_id]: 'active' });
    const revoked = (await keyEvents()).find((e) => e.type === 'key.revoked' && e.data.key_id === short.key_id);
    expect(revoked?.data).toMatchObject({ session_expires_at: short.session_expires_at });
    await replica.close();
  });

  it('refuse a closed account, and a ttl_seconds out of 1 to 86,400 (400 naming it)', async () => {
    const account = await newAccount('free');
    for (const ttl of [0, 86_401, 1.5, '60', null]) {
      expectError(await createSessionKey(account, ttl), 400, 'invalid_parameter', 'ttl_seconds');
    }
    const empty = await app.inject({
      method: 'POST',
      url: `/admin/v1/accounts/${account}/session-keys`,
      headers: auth,
      payload: {},
    });
    expectError(empty, 400, 'invalid_parameter', 'ttl_seconds');
    await app.inject({ method: 'POST', url: `/admin/v1/accounts/${account}/close`, headers: auth });
    expectError(await createSessionKey(account), 403, 'forbidden');
  });
});

describe('closing an account: a key never outlives it (issue #22)', () => {
  const newAccount = async (plan = 'free') =>
    (
      await app.inject({ method: 'POST', url: '/admin/v1/accounts', headers: auth, payload: { name: 'Closing', plan } })
    ).json().account_id as string;
  const createKey = (target: typeof app, account: string) =>
    target.inject({ method: 'POST', url: `/admin/v1/accounts/${account}/keys`, headers: auth, payload: {} });
  // With a JSON body as the dashboard sends it, so it takes the same way through Fastify as a creation.
  const close = (target: typeof app, account: string) =>
    target.inject({ method: 'POST', url: `/admin/v1/accounts/${account}/close`, headers: auth, payload: {} });
  const keysOf = async (target: typeof app, account: string) =>
    (await target.inject({ method: 'GET', url: `/admin/v1/accounts/${account}/keys`, headers: auth })).json().keys as {
      key_id: string;
      status: string;
    }[];

  it('closes the account, revokes every key, refuses new keys and plan changes; closing again answers the same', async () => {
    const account = await newAccount();
    const ids = (await Promise.all([1, 2, 3].map(() => createKey(app, account)))).map((r) => r.json().key_id as string);
    await app.inject({ method: 'POST', url: `/admin/v1/keys/${ids[0]!}/revoke`, headers: auth });
    const first = await close(app, account);
    expect(first.statusCode).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({ account_id: account, name: 'Closing', plan: 'free', closed_at: expect.any(String) });
    expect(body.keys.map((k: { key_id: string }) => k.key_id).sort()).toEqual([...ids].sort());
    expect(body.keys.every((k: { status: string }) => k.status === 'revoked')).toBe(true);
    // The stream holds the closure (with what a replay needs) and a revocation per key.
    const mine = (await keyEvents()).filter((e) => e.data.account_id === account);
    expect(mine.map((e) => e.type).sort()).toEqual(['account.closed', 'key.revoked', 'key.revoked', 'key.revoked']);
    expect(mine.find((e) => e.type === 'account.closed')!.data).toEqual({
      account_id: account,
      name: 'Closing',
      plan: 'free',
      created_at: expect.any(String),
      closed_at: body.closed_at,
    });
    // getAccount shows the closure.
    const shown = await app.inject({ method: 'GET', url: `/admin/v1/accounts/${account}`, headers: auth });
    expect(shown.json()).toMatchObject({ account_id: account, closed_at: body.closed_at });
    // Refused from now on: a key (403, like the plan's cap) and a plan change.
    const refused = await createKey(app, account);
    expectError(refused, 403, 'forbidden');
    expect(refused.json().error.message).toContain('closed');
    expectError(
      await app.inject({
        method: 'PUT',
        url: `/admin/v1/accounts/${account}/plan`,
        headers: auth,
        payload: { plan: 'business' },
      }),
      403,
      'forbidden',
    );
    // Idempotent: the same answer, and nothing more stored.
    const seq = (await messaging.jsm.streams.info(KEYS_STREAM)).state.last_seq;
    const again = await close(app, account);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(body);
    expect((await messaging.jsm.streams.info(KEYS_STREAM)).state.last_seq).toBe(seq);
    expectError(await close(app, 'acc_00000000000000000000'), 404, 'not_found', 'account_id');
  });

  it('20 concurrent key creations racing one closure leave no active key', async () => {
    const account = await newAccount('professional');
    await createKey(app, account);
    const [closed, ...creations] = await Promise.all([
      // The closure is sent among the creations: some are queued before it, the rest after.
      ...Array.from({ length: 10 }, () => createKey(app, account)),
      close(app, account),
      ...Array.from({ length: 10 }, () => createKey(app, account)),
    ]).then((all) => [all[10]!, ...all.slice(0, 10), ...all.slice(11)]);
    expect(closed!.statusCode).toBe(200);
    for (const r of creations) {
      if (r.statusCode !== 201) expectError(r, 403, 'forbidden');
    }
    const made = creations.filter((r) => r.statusCode === 201).map((r) => r.json().key_id as string);
    const keys = await keysOf(app, account);
    expect(keys.filter((k) => k.status === 'active')).toEqual([]);
    expect(keys.map((k) => k.key_id)).toEqual(expect.arrayContaining(made));
    expect(keys).toHaveLength(1 + made.length);
    // Creations queued before the closure made keys (which it revoked); every one after it was refused.
    expect(made.length).toBeGreaterThan(0);
    expect(creations.slice(10).every((r) => r.statusCode === 403)).toBe(true);
  });

  it('a key created on another replica after the closure is revoked by that replica and refused', async () => {
    const account = await newAccount();
    const { app: other, log } = await makeApp();
    await log.catchUp();
    // The other replica checked the account before the closure reached it: stage it by closing
    // here and creating there at once, 10 times over; whatever the interleaving, no key stays active.
    const results = await Promise.all([
      close(app, account),
      ...Array.from({ length: 10 }, () => createKey(other, account)),
    ]);
    expect(results[0].statusCode).toBe(200);
    for (const r of results.slice(1)) expect([201, 403]).toContain(r.statusCode);
    await log.catchUp();
    expect((await keysOf(app, account)).filter((k) => k.status === 'active')).toEqual([]);
    expect((await keysOf(other, account)).filter((k) => k.status === 'active')).toEqual([]);
    await other.close();
  });

  it('finishes a revocation that failed halfway when close is called again', async () => {
    const account = await newAccount();
    await Promise.all([1, 2, 3].map(() => createKey(app, account)));
    // A closure whose revocations cannot be stored: the closure is, the revocations are not.
    const log = await startKeyLog({ nc: messaging.nc, js: messaging.js, jsm: messaging.jsm, logger: silent });
    logs.push(log);
    await log.catchUp();
    let publishes = 0;
    // The commands publish through `js.publish` only: the first (the closure) goes through, the rest fail.
    const flaky = {
      publish: (...args: Parameters<typeof messaging.js.publish>) => {
        publishes++;
        if (publishes > 1) return Promise.reject(new Error('NATS unreachable'));
        return messaging.js.publish(...args);
      },
    } as unknown as typeof messaging.js;
    const broken = buildApp({
      commands: createKeyCommands({ js: flaky, log }),
      adminToken: TOKEN,
      publicBaseUrl: 'https://api.example.test',
      isReady: () => log.ready,
    });
    await broken.ready();
    expectError(await close(broken, account), 503, 'service_unavailable');
    await broken.close();
    await logs[0]!.catchUp();
    const shown = (await app.inject({ method: 'GET', url: `/admin/v1/accounts/${account}`, headers: auth })).json();
    expect(shown.closed_at).toEqual(expect.any(String));
    expect(shown.keys.filter((k: { status: string }) => k.status === 'active')).toHaveLength(3);
    // Already closed: no key either, even before the retry.
    expectError(await createKey(app, account), 403, 'forbidden');
    const retried = await close(app, account);
    expect(retried.statusCode).toBe(200);
    expect(retried.json().closed_at).toBe(shown.closed_at);
    expect((await keysOf(app, account)).map((k) => k.status)).toEqual(['revoked', 'revoked', 'revoked']);
  });

  it('a restarted admin API (a new model replayed from the stream) still refuses keys for the closed account', async () => {
    const account = await newAccount();
    await createKey(app, account);
    expect((await close(app, account)).statusCode).toBe(200);
    const before = (await app.inject({ method: 'GET', url: `/admin/v1/accounts/${account}`, headers: auth })).json();
    const { app: restarted, log } = await makeApp();
    await log.catchUp();
    expect(log.model.accounts.get(account)?.closed_at).toBe(before.closed_at);
    // Rebuilt from the closure alone (it replaced the account's creation on its subject).
    const shown = await restarted.inject({ method: 'GET', url: `/admin/v1/accounts/${account}`, headers: auth });
    expect(shown.json()).toEqual(before);
    expectError(await createKey(restarted, account), 403, 'forbidden');
    expectError(
      await restarted.inject({
        method: 'PUT',
        url: `/admin/v1/accounts/${account}/plan`,
        headers: auth,
        payload: { plan: 'business' },
      }),
      403,
      'forbidden',
    );
    expect((await close(restarted, account)).json()).toEqual((await close(app, account)).json());
    await restarted.close();
  });
});

describe('upgrading a keys stream with history', () => {
  it('trims what the stream held before the per-subject limit at the first sweep; replicas see the same', async () => {
    const spec = streamSpec('keys', { replicas: 1, duplicateWindowMs: 120_000 });
    const { maxMsgsPerSubject: _limit, ...unlimited } = spec;
    // Before the upgrade: no limit, so a revoked key and a changed account keep their whole history.
    await messaging.ensureStream(unlimited);
    const created = await app.inject({
      method: 'POST',
      url: '/admin/v1/accounts',
      headers: auth,
      payload: { name: 'Old', plan: 'free' },
    });
    const account = created.json().account_id as string;
    const keys = await Promise.all(
      [1, 2].map(() => app.inject({ method: 'POST', url: `/admin/v1/accounts/${account}/keys`, headers: auth })),
    );
    const revokedId = keys[0]!.json().key_id as string;
    await app.inject({ method: 'POST', url: `/admin/v1/keys/${revokedId}/revoke`, headers: auth });
    await app.inject({
      method: 'PUT',
      url: `/admin/v1/accounts/${account}/plan`,
      headers: auth,
      payload: { plan: 'business' },
    });
    const mine = async () =>
      (await keyEvents())
        .filter((e) => e.data.account_id === account)
        .map((e) => e.type)
        .sort();
    expect(await mine()).toEqual([
      'account.created',
      'account.plan_changed',
      'key.created',
      'key.created',
      'key.revoked',
    ]);
    // The upgrade sets the limit; the admin API's first sweep trims the history.
    await messaging.ensureStream(spec);
    const { app: other, log } = await makeApp();
    await log.catchUp();
    const before = (await other.inject({ method: 'GET', url: `/admin/v1/accounts/${account}`, headers: auth })).json();
    const upkeep = startRevokedKeyRetention({
      jsm: messaging.jsm,
      model: log.model,
      logger: { info: () => undefined, error: () => undefined },
      ready: () => log.ready,
    });
    try {
      await upkeep.sweep();
    } finally {
      upkeep.stop();
    }
    expect(await mine()).toEqual(['account.plan_changed', 'key.created', 'key.revoked']);
    // A replica replaying the trimmed stream answers as the one that saw the whole history.
    const { app: late, log: lateLog } = await makeApp();
    await lateLog.catchUp();
    expect((await late.inject({ method: 'GET', url: `/admin/v1/accounts/${account}`, headers: auth })).json()).toEqual(
      before,
    );
    await Promise.all([other.close(), late.close()]);
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

describe('idempotent account creation (POST /admin/v1/accounts with account_id)', () => {
  const create = (target: typeof app, payload: object) =>
    target.inject({ method: 'POST', url: '/admin/v1/accounts', headers: auth, payload });
  const lastSeq = async () => (await messaging.jsm.streams.info(KEYS_STREAM)).state.last_seq;

  it('10 parallel creates with one account_id, on two replicas: one account.created, one 201, every answer the same account', async () => {
    const { app: other, log } = await makeApp();
    await log.catchUp();
    const accountId = 'acc_dashboardusr0001';
    const before = await lastSeq();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        create(i % 2 === 0 ? app : other, { name: `User ${i}`, plan: 'free', account_id: accountId }),
      ),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    const bodies = results.map((r) => r.json());
    const winner = bodies[results.findIndex((r) => r.statusCode === 201)];
    expect(winner).toMatchObject({ account_id: accountId, plan: 'free', created_at: expect.any(String) });
    for (const b of bodies) expect(b).toEqual(winner);
    // One message stored for the ten calls, and it is the account's creation.
    expect((await lastSeq()) - before).toBe(1);
    const created = (await keyEvents()).filter((e) => e.type === 'account.created' && e.data.account_id === accountId);
    expect(created).toHaveLength(1);
    expect(created[0]!.data).toMatchObject({ name: winner.name });
    await other.close();
  });

  it('a later create with the same account_id answers the existing account 200, its name and plan unchanged', async () => {
    const accountId = 'acc_dashboardusr0002';
    const first = await create(app, { name: 'First', plan: 'professional', account_id: accountId });
    expect(first.statusCode).toBe(201);
    const before = await lastSeq();
    const again = await create(app, { name: 'Second', plan: 'free', account_id: accountId });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(again.json()).toMatchObject({ name: 'First', plan: 'professional' });
    expect(await lastSeq()).toBe(before);
    // After a plan change (which replaces account.created on the subject) too.
    await app.inject({
      method: 'PUT',
      url: `/admin/v1/accounts/${accountId}/plan`,
      headers: auth,
      payload: { plan: 'business' },
    });
    const later = await create(app, { name: 'Third', plan: 'free', account_id: accountId });
    expect(later.statusCode).toBe(200);
    expect(later.json()).toMatchObject({ account_id: accountId, name: 'First', plan: 'business' });
    // Without account_id every call creates a new account, as before.
    const [a, b] = await Promise.all([
      create(app, { name: 'x', plan: 'free' }),
      create(app, { name: 'x', plan: 'free' }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().account_id).not.toBe(b.json().account_id);
  });

  it('refuses a malformed account_id 400 naming it', async () => {
    for (const account_id of ['acc_', 'ACC_0123456789', 'acc_0123456789-x', 'key_0123456789', 42]) {
      expectError(await create(app, { name: 'x', plan: 'free', account_id }), 400, 'invalid_parameter', 'account_id');
    }
  });
});

describe('wrong admin tokens are throttled per client address (security review #3)', () => {
  it('answers 429 with Retry-After after 10 failures in a minute, even to the right token, only from that address', async () => {
    const log = await startKeyLog({ nc: messaging.nc, js: messaging.js, jsm: messaging.jsm, logger: silent });
    logs.push(log);
    let now = Date.parse('2026-11-27T12:00:00Z');
    const throttled = buildApp({
      commands: createKeyCommands({ js: messaging.js, log }),
      adminToken: TOKEN,
      publicBaseUrl: 'https://api.example.test',
      isReady: () => log.ready,
      nowMs: () => now,
    });
    await throttled.ready();
    await log.catchUp();
    const url = '/admin/v1/accounts/acc_00000000000000000000';
    const get = (remoteAddress: string, authorization?: string) =>
      throttled.inject({
        method: 'GET',
        url,
        remoteAddress,
        headers: authorization === undefined ? {} : { authorization },
      });
    try {
      // Ten failures, wrong or missing tokens, within the minute: each a 401.
      for (let i = 0; i < 10; i++) {
        now += 1_000;
        expectError(await get('10.1.0.7', i % 3 === 0 ? undefined : `Bearer guess-${i}`), 401, 'unauthorized');
      }
      now += 1_000;
      const blocked = await get('10.1.0.7', 'Bearer guess-10');
      expectError(blocked, 429, 'rate_limited');
      // The window started at the first failure (t+1 s) and ends a minute later (now t+11 s).
      expect(blocked.headers['retry-after']).toBe('50');
      // The right token does not pass from that address either: guessing cannot go on there.
      expectError(await get('10.1.0.7', `Bearer ${TOKEN}`), 429, 'rate_limited');
      // Other addresses are not affected.
      expectError(await get('10.1.0.8', `Bearer ${TOKEN}`), 404, 'not_found', 'account_id');
      // The minute over, the address may try again.
      now += 50_000;
      expectError(await get('10.1.0.7', `Bearer ${TOKEN}`), 404, 'not_found', 'account_id');
      expectError(await get('10.1.0.7', 'Bearer guess-11'), 401, 'unauthorized');
      // The probes stay open to all.
      expect((await throttled.inject({ method: 'GET', url: '/healthz', remoteAddress: '10.1.0.7' })).statusCode).toBe(
        200,
      );
    } finally {
      await throttled.close();
    }
  });
});
