import {
  boolVar,
  hostPortListVar,
  infraVars,
  mailVars,
  portVar,
  positiveIntVar,
  processVars,
  redisTopologyVars,
  urlVar,
} from '@cds/config';
import { z } from 'zod';

/**
 * The two secrets the local development overlay once shipped in the repository (k8s/overlays/local now
 * generates random ones): anyone may know them, so the dashboard refuses them, whatever its environment.
 */
export const KNOWN_DEV_SECRETS = {
  ADMIN_TOKEN: 'local-dev-admin-token-change-me',
  SESSION_SECRET: 'local-dev-dashboard-session-secret-change-me',
} as const;

const notKnown = (name: keyof typeof KNOWN_DEV_SECRETS) =>
  [
    (v: string) => v !== KNOWN_DEV_SECRETS[name],
    'is the well-known development value published in the repository: generate one (openssl rand -hex 32)',
  ] as const;

/** The dashboard process (main.ts): environment variables, parsed once by loadConfig. */
export const DashboardConfig = z.object({
  PORT: portVar.default(8084),
  ...processVars,
  LOG_LEVEL: infraVars.LOG_LEVEL,
  MONGODB_URL: infraVars.MONGODB_URL,
  MONGODB_DB: z.string().min(1).default('cds_dashboard'),
  REDIS_URL: infraVars.REDIS_URL,
  ...redisTopologyVars,
  /** The admin API of the accounts service (cluster-internal). */
  ADMIN_URL: urlVar(['http:', 'https:']).default('http://127.0.0.1:8083'),
  ADMIN_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .refine(...notKnown('ADMIN_TOKEN')),
  /** Deadline of every admin API call. */
  ADMIN_TIMEOUT_MS: positiveIntVar.default(5_000),
  /** The public API base the browser calls and the curl examples show. */
  PUBLIC_API_URL: urlVar(['http:', 'https:']).default('http://localhost:8080/api/v1'),
  /** The dashboard's own public origin + prefix, for links in mails. */
  PUBLIC_BASE_URL: urlVar(['http:', 'https:']).default('http://localhost:8084/dashboard'),
  /** Keys the CSRF tokens and the hashes of session ids and throttled addresses. */
  SESSION_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .refine(...notKnown('SESSION_SECRET')),
  COOKIE_SECURE: boolVar.default(true),
  /** A session ends after this long without a request… */
  SESSION_IDLE_SECONDS: positiveIntVar.default(30 * 60),
  /** …and at the latest this long after log-in. */
  SESSION_ABSOLUTE_SECONDS: positiveIntVar.default(12 * 60 * 60),
  ...mailVars,
  RATE_KEY_PREFIX: z.string().min(1).default('cds:rl:'),
  USAGE_KEY_PREFIX: z.string().min(1).default('cds:usage:'),
  /** Prefix of the dashboard's own Redis keys (sessions, throttles). */
  DASHBOARD_KEY_PREFIX: z.string().min(1).default('cds:dash:'),
  /** The webhook store's database (shared with the notifier, on MONGODB_URL). */
  WEBHOOKS_DB: z.string().min(1).default('cds_webhooks'),
  /**
   * `host:port` pairs exempt from the private-address refusal of webhook URLs, comma-separated: for
   * tests and local receivers only (the chart never sets it).
   */
  WEBHOOK_ALLOW_PRIVATE: hostPortListVar,
  /**
   * The query service (cluster-internal), whose commodity list the webhook form checks ids against;
   * unset: ids are checked for their shape only, and the page says so.
   */
  QUERY_URL: urlVar(['http:', 'https:']).optional(),
  /**
   * The gateway (cluster-internal) whose GET /api/v1/datasets the public status page shows; unset:
   * the origin of PUBLIC_API_URL.
   */
  GATEWAY_URL: urlVar(['http:', 'https:']).optional(),
  /** Deadline of the status page's read of the gateway. */
  GATEWAY_TIMEOUT_MS: positiveIntVar.default(3_000),
  /** Deadline of one catalog read (every page of it) and of resolving a webhook URL's host. */
  CATALOG_TIMEOUT_MS: positiveIntVar.default(3_000),
  /** The notifier's retry settings (same variables, same defaults): a re-send starts a fresh run of them. */
  WEBHOOK_RETRY_BASE_MS: positiveIntVar.default(30_000),
  WEBHOOK_RETRY_MAX_MS: positiveIntVar.default(3_600_000),
  WEBHOOK_RETRY_FOR_MS: positiveIntVar.default(86_400_000),
  WEBHOOK_DISABLE_AFTER_MS: positiveIntVar.default(259_200_000),
  /** Proxy hops (the ingress) whose X-Forwarded-For is trusted for the client address. */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
});
export type DashboardConfig = z.infer<typeof DashboardConfig>;
