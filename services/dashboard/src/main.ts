import { resolve } from 'node:path';
import { loadConfig } from '@cds/config';
import { createRedis } from '@cds/redis';
import { connectStore } from '@cds/store';
import { createLogger, createMetrics, flushTelemetry } from '@cds/telemetry';
import { createAdminClient } from './admin/admin-client.ts';
import { buildApp } from './app.ts';
import { DashboardConfig } from './config.ts';
import { loadExplorer } from './explorer-mount.ts';
import { createFileMailer, createSmtpMailer } from '@cds/mail';
import { createPasswordHasher } from './security/password.ts';
import { createThrottle } from './security/throttle.ts';
import { createSessionStore } from './sessions/session-store.ts';
import { createUsageReader } from './usage/usage-reader.ts';
import { createUserStore } from './users/user-store.ts';

const config = loadConfig(DashboardConfig, process.env);
const logger = createLogger({ name: 'dashboard', level: config.LOG_LEVEL });
const metrics = createMetrics('dashboard');
const clock = () => Date.now();

try {
  const store = await connectStore({ url: config.MONGODB_URL, appName: 'dashboard' });
  const redis = createRedis({
    url: config.REDIS_URL,
    name: 'dashboard',
    onError: (err) => logger.debug({ err: err.message }, 'redis connection error'),
  });
  const users = await createUserStore({ db: store.db(config.MONGODB_DB), clock });
  const mailer =
    config.SMTP_URL !== undefined
      ? createSmtpMailer({ url: config.SMTP_URL, from: config.MAIL_FROM, timeoutMs: config.MAIL_TIMEOUT_MS })
      : createFileMailer({
          dir: resolve(config.MAIL_DIR),
          from: config.MAIL_FROM,
          timeoutMs: config.MAIL_TIMEOUT_MS,
          clock,
        });
  const admin = createAdminClient({
    url: config.ADMIN_URL,
    token: config.ADMIN_TOKEN,
    timeoutMs: config.ADMIN_TIMEOUT_MS,
  });
  const explorer = loadExplorer();

  const app = await buildApp({
    logger,
    clock,
    users,
    sessions: createSessionStore({
      redis,
      prefix: config.DASHBOARD_KEY_PREFIX,
      secret: config.SESSION_SECRET,
      clock,
      policy: { idleMs: config.SESSION_IDLE_SECONDS * 1000, absoluteMs: config.SESSION_ABSOLUTE_SECONDS * 1000 },
    }),
    throttle: createThrottle({ redis, prefix: config.DASHBOARD_KEY_PREFIX, secret: config.SESSION_SECRET, clock }),
    mailer,
    admin,
    usage: createUsageReader({ redis, ratePrefix: config.RATE_KEY_PREFIX, usagePrefix: config.USAGE_KEY_PREFIX }),
    passwords: createPasswordHasher(),
    sessionSecret: config.SESSION_SECRET,
    sessionMaxAgeSeconds: config.SESSION_ABSOLUTE_SECONDS,
    cookieSecure: config.COOKIE_SECURE,
    publicApiUrl: config.PUBLIC_API_URL,
    publicBaseUrl: config.PUBLIC_BASE_URL.replace(/\/+$/, ''),
    explorer,
    trustProxyHops: config.TRUST_PROXY_HOPS,
    metrics,
    isReady: async () => {
      await Promise.all([store.ping(), redis.ping()]);
      return true;
    },
  });

  const shutdown = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await app.close();
    mailer.close();
    await Promise.allSettled([redis.quit(), store.close(), metrics.shutdown()]);
    await flushTelemetry();
    process.exit(0);
  };
  process.once('SIGTERM', (s) => void shutdown(s));
  process.once('SIGINT', (s) => void shutdown(s));

  await app.listen({ port: config.PORT, host: config.HOST });
  logger.info(
    { port: config.PORT, mail: mailer.kind === 'file' ? `files in ${config.MAIL_DIR}` : 'smtp' },
    'dashboard listening',
  );
} catch (err) {
  logger.fatal({ err }, 'dashboard failed to start');
  process.exit(1);
}
