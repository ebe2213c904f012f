import { createRequestIdGenerator, lazyChildLoggerFactory, MAX_REQUEST_HEAD_BYTES } from '@cds/http';
import type { Metrics } from '@cds/telemetry';
import type { WebhookAdmin } from '@cds/webhooks';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { registerAccountRoutes } from './accounts/index.ts';
import type { AdminClient } from './admin/admin-client.ts';
import { registerAssetRoutes } from './assets/routes.ts';
import { registerExplorerPage, type ExplorerMount } from './explorer/page.ts';
import { registerHealthRoutes } from './health/routes.ts';
import { createCookies } from './http/cookies.ts';
import { registerHardening } from './http/hardening.ts';
import { createWeb } from './http/web.ts';
import { createKeyRows, registerKeyRoutes } from './keys/index.ts';
import type { Mailer } from '@cds/mail';
import { registerPlanRoutes } from './plan/routes.ts';
import { registerCsrfGuard } from './security/csrf-guard.ts';
import type { Challenges } from './security/challenge.ts';
import type { PasswordHasher } from './security/password.ts';
import { scrub } from './security/scrub.ts';
import { DEFAULT_THROTTLES, type Throttle, type ThrottleRules } from './security/throttle.ts';
import { registerSessionLoading } from './sessions/load-session.ts';
import { createDatasetsReader, registerStatusPage, type DatasetsReader } from './status-page/index.ts';
import type { SessionKeys } from './sessions/session-keys.ts';
import type { SessionStore } from './sessions/session-store.ts';
import type { UsageReader } from './usage/usage-reader.ts';
import { registerUsageRoutes } from './usage/routes.ts';
import type { UserStore } from './users/user-store.ts';
import { noCatalog, registerWebhookRoutes, type CommodityCatalog, type WebhookUrlCheck } from './webhooks/index.ts';

export type { ExplorerMount } from './explorer/page.ts';

/** What the dashboard needs; main.ts builds the real ones, tests pass real servers' clients too. */
export interface DashboardDeps {
  logger: FastifyBaseLogger;
  /** Milliseconds since the epoch. */
  clock: () => number;
  users: UserStore;
  sessions: SessionStore;
  /**
   * The explorer's session keys (sessions/session-keys.ts; the session store ends them with their
   * session). Absent: the explorer asks for a pasted key only.
   */
  sessionKeys?: SessionKeys;
  throttle: Throttle;
  throttles?: Partial<ThrottleRules>;
  mailer: Mailer;
  admin: AdminClient;
  usage: UsageReader;
  passwords: PasswordHasher;
  /** Proof-of-work challenges of the sign-up and log-in forms (createChallenges, on the dashboard's Redis). */
  challenges: Challenges;
  /** Webhook endpoints and their deliveries (libs/webhooks, the notifier's database). */
  webhooks: WebhookAdmin;
  /** Checks a webhook URL's address when it is saved (createWebhookUrlCheck). */
  checkWebhookUrl: WebhookUrlCheck;
  /** The commodity catalog the webhook form checks ids against; absent: their shape only (the page says so). */
  catalog?: CommodityCatalog;
  /** Keys the CSRF tokens (≥ 32 characters). */
  sessionSecret: string;
  /** Lifetime of the session cookie (the absolute session limit). */
  sessionMaxAgeSeconds: number;
  cookieSecure: boolean;
  /** The public API base (…/api/v1): the explorer calls it, curl examples show it. */
  publicApiUrl: string;
  /** The dashboard's own public URL (…/dashboard) for links in mails. */
  publicBaseUrl: string;
  /** The gateway's GET /datasets for the public status page; absent: read from the public API's origin. */
  datasets?: DatasetsReader;
  /** Mounts the data explorer under /dashboard/explorer; absent shows a placeholder. */
  explorer?: ExplorerMount;
  trustProxyHops?: number;
  metrics?: Metrics;
  /** Readiness: Redis, MongoDB and the admin API reachable. */
  isReady?: () => Promise<boolean>;
}

/**
 * Builds the dashboard. It never listens: main.ts does. In order: hardening (headers, CSP, parsing,
 * errors), session loading, the CSRF guard, then the routes by concern.
 */
export async function buildApp(deps: DashboardDeps): Promise<FastifyInstance> {
  const rules: ThrottleRules = { ...DEFAULT_THROTTLES, ...deps.throttles };
  const apiOrigin = new URL(deps.publicApiUrl).origin;
  const web = createWeb({ sessionSecret: deps.sessionSecret, docsUrl: `${apiOrigin}/docs`, throttle: deps.throttle });
  const cookies = createCookies(deps);

  const app = Fastify({
    loggerInstance: deps.logger,
    childLoggerFactory: lazyChildLoggerFactory,
    genReqId: createRequestIdGenerator(),
    // Request lines would carry mail-link tokens in query strings: failures are logged by hand instead.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    trustProxy: (_address: string, hop: number) => hop < (deps.trustProxyHops ?? 0),
    bodyLimit: 16 * 1024,
    // The request line and headers together (Node's default is 16 KiB); cookies past 4 KiB get a page (cookies.ts).
    http: { maxHeaderSize: MAX_REQUEST_HEAD_BYTES },
    connectionTimeout: 30_000,
    requestTimeout: 30_000,
    return503OnClosing: true,
  });

  await registerHardening(app, { web, apiOrigin, cookieSecure: deps.cookieSecure });
  registerSessionLoading(app, { sessions: deps.sessions, users: deps.users, cookies });
  registerCsrfGuard(app, { sessionSecret: deps.sessionSecret, web });

  registerHealthRoutes(app, { isReady: deps.isReady, metrics: deps.metrics });
  registerAssetRoutes(app);
  registerStatusPage(app, {
    web,
    publicApiUrl: deps.publicApiUrl,
    datasets:
      deps.datasets ??
      createDatasetsReader({ gatewayUrl: apiOrigin, timeoutMs: 3_000, ttlMs: 5_000, clock: deps.clock }),
  });
  registerAccountRoutes(app, { ...deps, web, cookies, rules });
  const keyRows = createKeyRows({
    ...deps,
    onUsageError: (err) =>
      deps.logger.warn({ err: scrub(err instanceof Error ? err.message : String(err)) }, 'usage read failed'),
  });
  registerKeyRoutes(app, { ...deps, web, keyRows, rules });
  registerPlanRoutes(app, { web, admin: deps.admin });
  registerUsageRoutes(app, { web, admin: deps.admin, usage: deps.usage });
  registerWebhookRoutes(app, {
    web,
    webhooks: deps.webhooks,
    admin: deps.admin,
    catalog: deps.catalog ?? noCatalog,
    checkUrl: deps.checkWebhookUrl,
    rules,
  });
  await registerExplorerPage(app, {
    web,
    explorer: deps.explorer,
    publicApiUrl: deps.publicApiUrl,
    sessionKeys: deps.sessionKeys,
    rules,
  });
  return app;
}
