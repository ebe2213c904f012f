import { keepTrying, loadConfig } from '@cds/config';
import { createMailer } from '@cds/mail';
import { connectMessaging, type RunningConsumer } from '@cds/messaging';
import { createStore } from '@cds/store';
import { runService } from '@cds/telemetry';
import { createOutboundClient, createWebhookStores } from '@cds/webhooks';
import { buildApp } from './app.ts';
import { NotifierConfig } from './config.ts';
import { startDeliveryLoop, type DeliveryLoop } from './delivery/delivery-loop.ts';
import { followAccountPlans } from './intake/account-plans.ts';
import { startChangeIntake } from './intake/change-intake.ts';
import { createNotifierMetrics } from './metrics.ts';

await runService({
  name: 'notifier',
  config: () => loadConfig(NotifierConfig, process.env),
  async start({ config, logger, signal, onClose, fail }) {
    const metrics = createNotifierMetrics();
    onClose('metrics', () => metrics.shutdown());
    const clock = () => Date.now();
    const messaging = await connectMessaging({ servers: config.NATS_URL, name: 'notifier' });
    const mongo = createStore({
      url: config.MONGODB_URL,
      appName: 'notifier',
      queryTimeMs: config.MONGODB_OPERATION_TIMEOUT_MS,
      socketTimeoutMs: config.MONGODB_OPERATION_TIMEOUT_MS + 1_000,
    });
    onClose('mongodb', () => mongo.close());
    onClose('nats', () => messaging.close());
    const mailer = createMailer(config, clock);
    onClose('mailer', () => mailer.close());
    const client = createOutboundClient({
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      maxResponseBytes: config.WEBHOOK_MAX_RESPONSE_BYTES,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    });
    /** Set once the store is reachable (the probes read it before). */
    const running: { delivery?: DeliveryLoop; intake?: RunningConsumer } = {};
    const app = buildApp({
      logger,
      metrics,
      natsConnected: () => !messaging.nc.isClosed(),
      mongoPing: () => mongo.ping().then(() => true),
      intakeRunning: () => running.intake !== undefined,
      deliveryHealthy: () => running.delivery?.healthy() === true,
      intakeStall: () => running.intake?.stall(),
    });
    onClose('http server', () => app.close());
    onClose('outbound client', () => client.close().catch(() => undefined));
    await app.listen({ host: config.HOST, port: config.PORT });

    // The store needs its database (indexes), the plans and the changes their streams: wait for them
    // rather than fail the start.
    const retrying = { signal, logger };
    const store = await keepTrying(
      'webhook store not reachable yet',
      () =>
        createWebhookStores(mongo.db(config.WEBHOOKS_DB), {
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
    // At shutdown: stop taking changes first (the batch in hand is enqueued and acked), then let the
    // deliveries in flight finish (each within WEBHOOK_TIMEOUT_MS) and give back any that do not.
    onClose('delivery loop', () => loop.stop({ graceMs: config.WEBHOOK_TIMEOUT_MS + 2_000 }));
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
    onClose('account plans', () => accounts.stop());
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
    onClose('change intake', () => intake.stop());
    // A consumer that dies for good (deleted, retries exhausted) takes the process down so the
    // orchestrator restarts it.
    intake.done.catch((err: unknown) => fail(err, 'change intake failed'));
    logger.info({ port: config.PORT, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE }, 'notifier running');
  },
});
