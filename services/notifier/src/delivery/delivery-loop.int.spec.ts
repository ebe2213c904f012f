// The delivery loop against the test database and a real HTTPS receiver: the one "endpoint
// disabled" mail after 3 days of failures (injected clock, file mailer), and a shutdown that gives
// back a delivery still in flight.
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
  createWebhookStore,
  verifySignature,
  type OutboundClient,
  type WebhookStore,
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

async function storeFor(name: string): Promise<WebhookStore> {
  return createWebhookStore({
    db: mongo.db(uniqueName(name)),
    clock,
    retry: { baseMs: 1_000, maxMs: 60_000 },
    retryForMs: DAY,
    disableAfterMs: 3 * DAY,
    leaseMs: 60_000,
  });
}

function loopDeps(store: WebhookStore, extra: Partial<DeliveryLoopDeps> = {}): DeliveryLoopDeps {
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
  for (const res of held) res.destroy();
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
});
