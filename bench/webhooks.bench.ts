// Webhook delivery benchmark (issue 14): how fast the notifier's delivery loop drains a queue of
// deliveries into a real HTTPS receiver on 127.0.0.1, with one loop and with two competing loops
// (two notifier replicas on one store): deliveries/s, enqueue-to-receipt latency (p50/p99), and
// the duplicates the receiver saw (a lease guarantees none while every attempt succeeds). Servers:
// the MongoDB API server the testkit provides (mongod if installed, else FerretDB 1.24 on SQLite).
// Run: npm run bench:webhooks (BENCH_DELIVERIES, default 600; BENCH_CONCURRENCY, default 16).
import { createNotifierMetrics, startDeliveryLoop } from '@cds/notifier';
import { startMongo } from '@cds/testkit';
import { createOutboundClient, createWebhookStores, type WebhookEndpoint } from '@cds/webhooks';
import { createSelfSignedCertificate, startHttpsReceiver } from '@cds/webhooks/testing';
import { MongoClient } from 'mongodb';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 600);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const ENDPOINTS = 10;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function main(): Promise<void> {
  console.log(
    `webhooks bench: ${DELIVERIES} deliveries, concurrency ${CONCURRENCY} per loop, ${cpus().length} cpus, load ${loadavg()[0]!.toFixed(2)}`,
  );
  const mongoServer = await startMongo();
  const mongo = await new MongoClient(mongoServer.url, { retryWrites: false }).connect();
  const cert = await createSelfSignedCertificate();
  const enqueuedAt = new Map<string, number>();
  const latencies: number[] = [];
  const seen = new Map<string, number>();
  const receiver = await startHttpsReceiver(cert, (req, res) => {
    const key = `${req.url}|${String(req.headers['cds-event-id'])}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
    const t0 = enqueuedAt.get(String(req.headers['cds-event-id']));
    if (t0 !== undefined && seen.get(key) === 1) latencies.push(Date.now() - t0);
    res.writeHead(204).end();
  });
  const client = createOutboundClient({
    timeoutMs: 10_000,
    maxResponseBytes: 65_536,
    allowPrivate: [`127.0.0.1:${receiver.port}`],
    ca: cert.cert,
  });
  const logger = pino({ level: 'warn' });
  try {
    for (const loops of [1, 2]) {
      const db = mongo.db(`bench_webhooks_${loops}_${Date.now()}`);
      const options = {
        retry: { baseMs: 1_000, maxMs: 60_000 },
        retryForMs: 86_400_000,
        disableAfterMs: 3 * 86_400_000,
      };
      const stores = await Promise.all(
        Array.from({ length: loops }, (_, i) => createWebhookStores(db, { ...options, owner: `bench-${i}` })),
      );
      const endpoints: WebhookEndpoint[] = [];
      for (let i = 0; i < ENDPOINTS; i += 1) {
        // One account per endpoint: deliveries are shared fairly between accounts, at most
        // WEBHOOK_ACCOUNT_CONCURRENCY (4) in flight each, so one account would measure that cap.
        const r = await stores[0]!.createEndpoint(`acc_bench${i}`, 'bench@example.com', {
          url: `${receiver.origin}/hook/${i}`,
          commodities: null,
          types: null,
          enabled: true,
        });
        if (r === 'limit_reached') throw new Error('limit');
        endpoints.push(r.endpoint);
      }
      enqueuedAt.clear();
      latencies.length = 0;
      seen.clear();
      const started = Date.now();
      const running = stores.map((queue) =>
        startDeliveryLoop({
          queue,
          client,
          mailer: { send: () => Promise.resolve() },
          logger,
          metrics: createNotifierMetrics(),
          clock: Date.now,
          dashboardUrl: 'http://localhost/dashboard',
          concurrency: CONCURRENCY,
          pollMs: 100,
        }),
      );
      for (let i = 0; i < DELIVERIES / ENDPOINTS; i += 1) {
        const id = `evt_${(loops * 1_000_000 + i).toString(16).padStart(32, '0')}`;
        enqueuedAt.set(id, Date.now());
        await stores[0]!.enqueue(endpoints, {
          id,
          type: 'series.updated',
          data: {
            commodity: 'GOLD',
            topic: 'price',
            series_type: 'price',
            first_date: '2026-11-02',
            newest_date: '2026-11-02',
            landed_at: new Date().toISOString(),
            url: 'https://api.example.com/api/v1/commodities/GOLD/series?type=price',
          },
        });
        for (const loop of running) loop.wake();
      }
      const enqueueMs = Date.now() - started;
      while (seen.size < DELIVERIES) {
        if (Date.now() - started > 300_000) throw new Error(`only ${seen.size}/${DELIVERIES} delivered in 5 min`);
        await sleep(20);
      }
      const elapsedMs = Date.now() - started;
      await Promise.all(running.map((l) => l.stop()));
      const delivered = await db.collection('deliveries').countDocuments({ status: 'delivered' });
      const duplicates = [...seen.values()].reduce((sum, n) => sum + n - 1, 0);
      latencies.sort((a, b) => a - b);
      console.log(
        `${loops} loop(s): ${DELIVERIES} deliveries in ${elapsedMs} ms (enqueued in ${enqueueMs} ms) = ` +
          `${Math.round((DELIVERIES / elapsedMs) * 1000)}/s; enqueue-to-receipt p50 ${percentile(latencies, 0.5)} ms, ` +
          `p99 ${percentile(latencies, 0.99)} ms; recorded delivered ${delivered}; duplicates at the receiver ${duplicates}`,
      );
    }
  } finally {
    await client.close();
    await receiver.stop();
    await cert.remove();
    await mongo.close();
    await mongoServer.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
