// The delivery loop against the test database and a real HTTPS receiver: the one "endpoint
// disabled" mail after 3 days of failures (injected clock, file mailer), a shutdown that gives
// back a delivery still in flight, a redirect never followed, both secrets signing for 24 h after a
// rotation, and one account's tarpit endpoint not holding up another account's delivery.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Notification } from '@cds/contracts';
import { createFileMailer } from '@cds/mail';
import { connectStore, type Store } from '@cds/store';
import { createLogger } from '@cds/telemetry';
import { getTestInfra, uniqueName, waitUntil } from '@cds/testkit';
import {
  createOutboundClient,
  createWebhookStores,
  PREVIOUS_SECRET_VALID_MS,
  verifySignature,
  type OutboundClient,
  type WebhookStores,
} from '@cds/webhooks';
import {
  createSelfSignedCertificate,
  startHttpsReceiver,
  type HttpsReceiver,
  type SelfSignedCertificate,
} from '@cds/webhooks/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotifierMetrics } from '../metrics.ts';
import { startDeliveryLoop, type DeliveryLoopDeps } from './delivery-loop.ts';

const DAY = 86_400_000;
let mongo: Store;
let cert: SelfSignedCertificate;
let receiver: HttpsReceiver;
let client: OutboundClient;
let mailDir: string;
const held: ServerResponse[] = [];
/** Requests to /tarpit: never answered until the test that made them ends. */
const tarpit: ServerResponse[] = [];
let now = Date.parse('2026-11-02T12:00:00Z');
const clock = () => now;
const logger = createLogger({ name: 'notifier-int', level: 'silent' });

/** Polls `probe` until it is true (waitUntil of the testkit). */
const until = (label: string, probe: () => Promise<boolean>, timeoutMs = 10_000) =>
  waitUntil(
    label,
    async () => {
      if (!(await probe())) throw new Error(`${label}: not yet`);
    },
    timeoutMs,
  );

let n = 0;
const notification = (): Notification => ({
  id: `evt_${(++n).toString(16).padStart(32, 'a')}`,
  type: 'cot.updated',
  data: {
    commodity: 'GOLD',
    topic: 'cot_legacy',
    format: 'legacy',
    first_date: '2026-10-27',
    newest_date: '2026-10-27',
    landed_at: new Date(now).toISOString(),
    url: 'https://api.example.com/api/v1/commodities/GOLD/cot?format=legacy',
  },
});

async function storeFor(name: string, accountConcurrency = 4): Promise<WebhookStores> {
  return createWebhookStores(mongo.db(uniqueName(name)), {
    clock,
    retry: { baseMs: 1_000, maxMs: 60_000 },
    retryForMs: DAY,
    disableAfterMs: 3 * DAY,
    leaseMs: 60_000,
    accountConcurrency,
  });
}

async function endpointOf(store: WebhookStores, account: string, path: string) {
  const created = await store.createEndpoint(account, `${account}@example.com`, {
    url: `${receiver.origin}${path}`,
    commodities: null,
    types: null,
    enabled: true,
  });
  if (created === 'limit_reached') throw new Error('limit');
  return created;
}

function loopDeps(store: WebhookStores, extra: Partial<DeliveryLoopDeps> = {}): DeliveryLoopDeps {
  return {
    queue: store,
    client,
    mailer: createFileMailer({ dir: mailDir, from: 'cds@example.com', timeoutMs: 5_000, clock }),
    logger,
    metrics: createNotifierMetrics(),
    clock,
    dashboardUrl: 'https://dash.example.com/dashboard',
    concurrency: 4,
    pollMs: 50,
    ...extra,
  };
}

beforeAll(async () => {
  mongo = await connectStore({ url: getTestInfra().mongoUrl, appName: 'notifier-int' });
  cert = await createSelfSignedCertificate();
  receiver = await startHttpsReceiver(cert, (req, res) => {
    if (req.url === '/down') return void res.writeHead(503).end();
    if (req.url === '/hold') return void held.push(res);
    if (req.url === '/tarpit') return void tarpit.push(res);
    if (req.url === '/moved') return void res.writeHead(302, { location: `${receiver.origin}/elsewhere` }).end();
    res.writeHead(204).end();
  });
  client = createOutboundClient({
    timeoutMs: 5_000,
    maxResponseBytes: 1024,
    allowPrivate: [`127.0.0.1:${receiver.port}`],
    ca: cert.cert,
  });
  mailDir = await mkdtemp(join(tmpdir(), 'notifier-mail-'));
}, 60_000);

afterAll(async () => {
  for (const res of [...held, ...tarpit]) res.destroy();
  await client?.close();
  await receiver?.stop();
  await cert?.remove();
  await mongo?.close();
  if (mailDir !== undefined) await rm(mailDir, { recursive: true, force: true });
});

describe('delivery loop', () => {
  it('signs each attempt, and mails the owner once when a failing endpoint is disabled after 3 days', async () => {
    const store = await storeFor('loop_disable');
    const created = await store.createEndpoint('acc_1', 'owner@example.com', {
      url: `${receiver.origin}/down`,
      commodities: null,
      types: null,
      enabled: true,
    });
    if (created === 'limit_reached') throw new Error('limit');
    const loop = startDeliveryLoop(loopDeps(store));
    try {
      await store.enqueue([created.endpoint], notification());
      loop.wake();
      await until(
        'endpoint failing',
        async () => (await store.getEndpoint('acc_1', created.endpoint.id))?.failing_since !== null,
      );
      const [first] = receiver.requests.filter((r) => r.url === '/down');
      expect(
        verifySignature(created.secret, first!.headers['cds-signature'] as string, first!.body, now / 1000).ok,
      ).toBe(true);
      expect(await readdir(mailDir)).toEqual([]);
      // Three days later its failures go on: the next one disables it and its owner hears once.
      now += 3 * DAY + 1_000;
      await store.enqueue([created.endpoint], notification());
      await store.enqueue([created.endpoint], notification());
      loop.wake();
      await until(
        'endpoint disabled',
        async () => (await store.getEndpoint('acc_1', created.endpoint.id))?.enabled === false,
      );
      await until('mail written', async () => (await readdir(mailDir)).length > 0);
      // Whatever was still queued for it is not sent while it is disabled.
      await until(
        'nothing left in flight',
        async () =>
          loop.inFlight() === 0 &&
          (await store.listDeliveries('acc_1', created.endpoint.id)).every((d) => d.status !== 'delivering'),
      );
      const mails = await readdir(mailDir);
      expect(mails).toHaveLength(1);
      const mail = await readFile(join(mailDir, mails[0]!), 'utf8');
      expect(mail).toContain('To: owner@example.com');
      expect(mail).toContain(`${receiver.origin}/down`);
      expect(mail).toContain(`https://dash.example.com/dashboard/webhooks/${created.endpoint.id}`);
      expect((await store.getEndpoint('acc_1', created.endpoint.id))?.disabled_reason).toBe('failing');
    } finally {
      await loop.stop();
    }
  });

  it('on shutdown, gives back a delivery still in flight after the grace period (due at once for the next notifier)', async () => {
    const store = await storeFor('loop_shutdown');
    const created = await store.createEndpoint('acc_2', 'o@example.com', {
      url: `${receiver.origin}/hold`,
      commodities: null,
      types: null,
      enabled: true,
    });
    if (created === 'limit_reached') throw new Error('limit');
    const loop = startDeliveryLoop(loopDeps(store));
    await store.enqueue([created.endpoint], notification());
    loop.wake();
    await receiver.waitFor(1, (r) => r.url === '/hold', 10_000);
    expect((await store.listDeliveries('acc_2', created.endpoint.id))[0]?.status).toBe('delivering');
    const started = Date.now();
    await loop.stop({ graceMs: 300 });
    expect(Date.now() - started).toBeLessThan(3_000);
    const [released] = await store.listDeliveries('acc_2', created.endpoint.id);
    expect(released).toMatchObject({ status: 'pending', attempts: 0 });
    // Due now: another notifier claims it straight away.
    expect((await store.claimDue(1)).map((c) => c.delivery.id)).toEqual([released!.id]);
  });

  it('never follows a redirect: a receiver answering 302 gets one POST, recorded as a failed attempt and retried later', async () => {
    const store = await storeFor('loop_redirect');
    const created = await endpointOf(store, 'acc_3', '/moved');
    const loop = startDeliveryLoop(loopDeps(store));
    try {
      await store.enqueue([created.endpoint], notification());
      loop.wake();
      // The attempt is two writes: the delivery's outcome, then the endpoint's failing run.
      await until(
        'attempt recorded',
        async () =>
          ((await store.listDeliveries('acc_3', created.endpoint.id))[0]?.last_attempt ?? null) !== null &&
          ((await store.getEndpoint('acc_3', created.endpoint.id))?.failing_since ?? null) !== null,
      );
      const [delivery] = await store.listDeliveries('acc_3', created.endpoint.id);
      expect(delivery).toMatchObject({
        status: 'pending',
        attempts: 1,
        last_attempt: {
          outcome: 'http_error',
          status_code: 302,
          error: 'HTTP 302: redirects are not followed (register the final URL)',
        },
      });
      // On the normal schedule: the first retry about 1 s (the base) later, plus at most a quarter.
      const wait = delivery!.next_attempt_at!.getTime() - now;
      expect(wait).toBeGreaterThanOrEqual(1_000);
      expect(wait).toBeLessThanOrEqual(1_250);
      expect(receiver.requests.filter((r) => r.url === '/moved')).toHaveLength(1);
      expect(receiver.requests.filter((r) => r.url === '/elsewhere')).toEqual([]);
      expect((await store.getEndpoint('acc_3', created.endpoint.id))?.failing_since).toEqual(new Date(now));
    } finally {
      await loop.stop();
    }
  });

  it('signs with the new and the replaced secret for 24 h after a rotation, then with the new one only', async () => {
    const store = await storeFor('loop_rotate');
    const created = await endpointOf(store, 'acc_4', '/rotated');
    const loop = startDeliveryLoop(loopDeps(store));
    /** The signature header of the next delivery, sent at `now`. */
    const nextSignature = async () => {
      const event = notification();
      await store.enqueue([created.endpoint], event);
      loop.wake();
      const [request] = await receiver.waitFor(1, (r) => r.headers['cds-event-id'] === event.id, 10_000);
      return { header: request!.headers['cds-signature'] as string, body: request!.body };
    };
    const check = (secret: string, signed: { header: string; body: string }) =>
      verifySignature(secret, signed.header, signed.body, now / 1000);
    try {
      const rotatedAt = now;
      const fresh = (await store.rotateSecret('acc_4', created.endpoint.id))!;
      const during = await nextSignature();
      expect(during.header).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
      expect(check(fresh, during).ok).toBe(true);
      expect(check(created.secret, during).ok).toBe(true);
      now = rotatedAt + PREVIOUS_SECRET_VALID_MS - 1_000;
      expect(check(created.secret, await nextSignature()).ok).toBe(true);
      now = rotatedAt + PREVIOUS_SECRET_VALID_MS;
      const after = await nextSignature();
      expect(after.header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(check(fresh, after).ok).toBe(true);
      expect(check(created.secret, after)).toMatchObject({ ok: false, reason: 'mismatch' });
    } finally {
      await loop.stop();
    }
  });

  it("does not let one account's tarpit endpoint hold up another account's delivery", async () => {
    // Two slots per account, four in the loop: the tarpit takes two, the other account's goes at once.
    const store = await storeFor('loop_fair', 2);
    const slow = await endpointOf(store, 'acc_slow', '/tarpit');
    const fast = await endpointOf(store, 'acc_fast', '/fast');
    for (let i = 0; i < 12; i += 1) await store.enqueue([slow.endpoint], notification());
    now += 1_000;
    const event = notification();
    await store.enqueue([fast.endpoint], event);
    const before = tarpit.length;
    const loop = startDeliveryLoop(loopDeps(store, { concurrency: 4 }));
    try {
      loop.wake();
      await receiver.waitFor(1, (r) => r.headers['cds-event-id'] === event.id, 3_000);
      await until(
        'recorded delivered',
        async () => (await store.listDeliveries('acc_fast', fast.endpoint.id))[0]?.status === 'delivered',
      );
      // The tarpit holds two requests, no more, however many of its deliveries are due.
      expect(tarpit.length - before).toBeLessThanOrEqual(2);
      const slowStates = (await store.listDeliveries('acc_slow', slow.endpoint.id, 50)).map((d) => d.status);
      expect(slowStates.filter((s) => s === 'delivering')).toHaveLength(2);
    } finally {
      await loop.stop({ graceMs: 300 });
      for (const res of tarpit.splice(before)) res.destroy();
    }
  });
});
