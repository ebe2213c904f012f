import { loadConfig } from '@cds/config';
import { createRedis, topologyOptions } from '@cds/redis';
import { connectStore } from '@cds/store';
import { createMetrics, runService } from '@cds/telemetry';
import { createWebhookStores } from '@cds/webhooks';
import { createAdminClient } from './admin/admin-client.ts';
import { buildApp } from './app.ts';
import { DashboardConfig } from './config.ts';
import { loadExplorer } from './explorer-mount.ts';
import { createMailer } from '@cds/mail';
import { createChallenges } from './security/challenge.ts';
import { createPasswordHasher } from './security/password.ts';
import { createThrottle } from './security/throttle.ts';
import { createSessionKeys } from './sessions/session-keys.ts';
import { createSessionStore } from './sessions/session-store.ts';
import { createDatasetsReader } from './status-page/index.ts';
import { createUsageReader } from './usage/usage-reader.ts';
import { createUserStore } from './users/user-store.ts';
import { createCommodityCatalog, createWebhookUrlCheck } from './webhooks/index.ts';

await runService({
  name: 'dashboard',
  config: () => loadConfig(DashboardConfig, process.env),
  async start({ config, logger, onClose }) {
    const metrics = createMetrics('dashboard');
    onClose('metrics', () => metrics.shutdown());
    const clock = () => Date.now();
    const store = await connectStore({ url: config.MONGODB_URL, appName: 'dashboard' });
    onClose('mongodb', () => store.close());
    const redis = createRedis({
      url: config.REDIS_URL,
      name: 'dashboard',
      ...topologyOptions(config),
      onError: (err) => logger.debug({ err: err.message }, 'redis connection error'),
    });
    onClose('redis', () => redis.quit());
    const users = await createUserStore({ db: store.db(config.MONGODB_DB), clock });
    const mailer = createMailer(config, clock);
    onClose('mailer', () => mailer.close());
    const admin = createAdminClient({
      url: config.ADMIN_URL,
      token: config.ADMIN_TOKEN,
      timeoutMs: config.ADMIN_TIMEOUT_MS,
    });
    const explorer = loadExplorer();
    const policy = { idleMs: config.SESSION_IDLE_SECONDS * 1000, absoluteMs: config.SESSION_ABSOLUTE_SECONDS * 1000 };
    const sessionKeys = createSessionKeys({
      redis,
      prefix: config.DASHBOARD_KEY_PREFIX,
      secret: config.SESSION_SECRET,
      admin,
      policy,
      clock,
      onError: (err, what) => logger.warn({ err: err instanceof Error ? err.name : String(err) }, what),
    });
    // The dashboard manages endpoints and reads deliveries; the notifier delivers. The retry
    // settings are the notifier's defaults: a re-send here gives a delivery a fresh run of them.
    const webhooks = await createWebhookStores(store.db(config.WEBHOOKS_DB), {
      clock,
      retry: { baseMs: config.WEBHOOK_RETRY_BASE_MS, maxMs: config.WEBHOOK_RETRY_MAX_MS },
      retryForMs: config.WEBHOOK_RETRY_FOR_MS,
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
      publicOrigin: new URL(config.PUBLIC_API_URL).origin,
    });
    const catalog =
      config.QUERY_URL === undefined
        ? undefined
        : createCommodityCatalog({
            queryUrl: config.QUERY_URL,
            timeoutMs: config.CATALOG_TIMEOUT_MS,
            ttlMs: 60_000,
            clock,
            onError: (err) =>
              logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'catalog read failed'),
          });

    const app = await buildApp({
      logger,
      clock,
      users,
      sessions: createSessionStore({
        redis,
        prefix: config.DASHBOARD_KEY_PREFIX,
        secret: config.SESSION_SECRET,
        clock,
        policy,
        onEnd: (ref) => sessionKeys.end(ref),
      }),
      sessionKeys,
      throttle: createThrottle({ redis, prefix: config.DASHBOARD_KEY_PREFIX, secret: config.SESSION_SECRET, clock }),
      mailer,
      admin,
      usage: createUsageReader({ redis, ratePrefix: config.RATE_KEY_PREFIX, usagePrefix: config.USAGE_KEY_PREFIX }),
      passwords: createPasswordHasher(),
      challenges: createChallenges({
        redis,
        prefix: config.DASHBOARD_KEY_PREFIX,
        secret: config.SESSION_SECRET,
        clock,
      }),
      webhooks,
      checkWebhookUrl: createWebhookUrlCheck({
        allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
        timeoutMs: config.CATALOG_TIMEOUT_MS,
      }),
      ...(catalog !== undefined ? { catalog } : {}),
      sessionSecret: config.SESSION_SECRET,
      sessionMaxAgeSeconds: config.SESSION_ABSOLUTE_SECONDS,
      cookieSecure: config.COOKIE_SECURE,
      publicApiUrl: config.PUBLIC_API_URL,
      datasets: createDatasetsReader({
        gatewayUrl: config.GATEWAY_URL ?? new URL(config.PUBLIC_API_URL).origin,
        timeoutMs: config.GATEWAY_TIMEOUT_MS,
        ttlMs: 5_000,
        clock,
        onError: (detail) => logger.warn({ err: detail }, 'status page: datasets read failed'),
      }),
      publicBaseUrl: config.PUBLIC_BASE_URL.replace(/\/+$/, ''),
      explorer,
      trustProxyHops: config.TRUST_PROXY_HOPS,
      metrics,
      isReady: async () => {
        await Promise.all([store.ping(), redis.ping()]);
        return true;
      },
    });
    onClose('http server', () => app.close());

    await app.listen({ port: config.PORT, host: config.HOST });
    logger.info(
      { port: config.PORT, mail: mailer.kind === 'file' ? `files in ${config.MAIL_DIR}` : 'smtp' },
      'dashboard listening',
    );
  },
});
