import { keepTrying } from '@cds/config';
import { createMailer } from '@cds/mail';
import { connectMessaging, type RunningConsumer } from '@cds/messaging';
import { createStore } from '@cds/store';
import { createLogger } from '@cds/telemetry';
import { createOutboundClient, createWebhookStore } from '@cds/webhooks';
import { buildApp } from './app.ts';
import { loadNotifierConfig } from './config.ts';
import { startDeliveryLoop, type DeliveryLoop } from './delivery/delivery-loop.ts';
import { followAccountPlans, type AccountPlans } from './intake/account-plans.ts';
import { startChangeIntake } from './intake/change-intake.ts';
import { createNotifierMetrics } from './metrics.ts';

async function main(): Promise<void> {
  const config = loadNotifierConfig(process.env);
  const logger = createLogger({ name: 'notifier', level: config.LOG_LEVEL });
  const metrics = createNotifierMetrics();
  const clock = () => Date.now();
  const messaging = await connectMessaging({ servers: config.NATS_URL, name: 'notifier' });
  const mongo = createStore({
    url: config.MONGODB_URL,
    appName: 'notifier',
    queryTimeMs: config.MONGODB_OPERATION_TIMEOUT_MS,
    socketTimeoutMs: config.MONGODB_OPERATION_TIMEOUT_MS + 1_000,
  });
  const mailer = createMailer(config, clock);
  const client = createOutboundClient({
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    maxResponseBytes: config.WEBHOOK_MAX_RESPONSE_BYTES,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
  });
  /** Set once the store is reachable (the probes read it before). */
  const running: { delivery?: DeliveryLoop; plans?: AccountPlans; intake?: RunningConsumer } = {};
  const app = buildApp({
    logger,
    metrics,
    natsConnected: () => !messaging.nc.isClosed(),
    mongoPing: () => mongo.ping().then(() => true),
    intakeRunning: () => running.intake !== undefined,
    deliveryHealthy: () => running.delivery?.healthy() === true,
    intakeStall: () => running.intake?.stall(),
  });
  const stopping = new AbortController();
  const shutdown = async (signal: string) => {
    if (stopping.signal.aborted) return;
    stopping.abort();
    logger.info({ signal }, 'shutting down');
    // Stop taking changes first (the batch in hand is enqueued and acked), then let the deliveries
    // in flight finish (each within WEBHOOK_TIMEOUT_MS) and give back any that do not.
    await running.intake?.stop();
    await running.plans?.stop();
    await running.delivery?.stop({ graceMs: config.WEBHOOK_TIMEOUT_MS + 2_000 });
    await client.close().catch(() => undefined);
    await app.close();
    mailer.close();
    await messaging.close();
    await mongo.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ host: config.HOST, port: config.PORT });

  // The store needs its database (indexes), the plans and the changes their streams: wait for them
  // rather than fail the start.
  const retrying = { signal: stopping.signal, logger };
  const store = await keepTrying(
    'webhook store not reachable yet',
    () =>
      createWebhookStore({
        db: mongo.db(config.WEBHOOKS_DB),
        clock,
        operationTimeoutMs: config.MONGODB_OPERATION_TIMEOUT_MS,
        retry: { baseMs: config.WEBHOOK_RETRY_BASE_MS, maxMs: config.WEBHOOK_RETRY_MAX_MS },
        retryForMs: config.WEBHOOK_RETRY_FOR_MS,
        disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
        // A lease outlives the longest attempt with room to record it.
        leaseMs: config.WEBHOOK_TIMEOUT_MS * 2 + config.MONGODB_OPERATION_TIMEOUT_MS * 4,
        accountConcurrency: config.WEBHOOK_ACCOUNT_CONCURRENCY,
        publicOrigin: config.PUBLIC_API_ORIGIN,
      }),
    retrying,
  );
  if (store === undefined) return;
  const loop = startDeliveryLoop({
    queue: store,
    client,
    mailer,
    logger,
    metrics,
    clock,
    dashboardUrl: config.DASHBOARD_URL,
    concurrency: config.WEBHOOK_CONCURRENCY,
    pollMs: config.WEBHOOK_POLL_MS,
  });
  running.delivery = loop;
  // The plans first: a change must not reach an endpoint whose plan is not known yet.
  const accounts = await keepTrying(
    'cannot follow CDS_KEYS yet',
    async () => {
      const followed = await followAccountPlans({ messaging, logger });
      await followed.caughtUp;
      return followed;
    },
    retrying,
  );
  if (accounts === undefined) return;
  running.plans = accounts;
  const intake = await keepTrying(
    'cannot consume CDS_CHANGES yet',
    () =>
      startChangeIntake({
        messaging,
        queue: store,
        logger,
        metrics,
        publicOrigin: config.PUBLIC_API_ORIGIN,
        planOf: (accountId) => accounts.planOf(accountId),
        replicas: config.JETSTREAM_REPLICAS,
        onEnqueued: () => loop.wake(),
      }),
    retrying,
  );
  if (intake === undefined) return;
  running.intake = intake;
  // A consumer that dies for good (deleted, retries exhausted) takes the process down so the
  // orchestrator restarts it.
  intake.done.catch((err: unknown) => {
    logger.fatal({ err }, 'change intake failed');
    process.exit(1);
  });
  logger.info({ port: config.PORT, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }, 'notifier running');
}

main().catch((err: unknown) => {
  console.error('notifier failed to start:', err);
  process.exit(1);
});
