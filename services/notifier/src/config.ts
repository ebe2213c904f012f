import { hostPortListVar, infraVars, mailVars, portVar, positiveIntVar, processVars, urlVar } from '@cds/config';
import { z } from 'zod';

/** The notifier process (main.ts): environment variables, parsed once by loadConfig. */
export const NotifierConfig = z
  .object({
    PORT: portVar.default(8085),
    ...processVars,
    LOG_LEVEL: infraVars.LOG_LEVEL,
    NATS_URL: infraVars.NATS_URL,
    /** Replicas of CDS_CHANGES when the notifier is the first to create it (1 locally, 3 in production). */
    JETSTREAM_REPLICAS: positiveIntVar.default(1),
    MONGODB_URL: infraVars.MONGODB_URL,
    /** The webhook store's database (shared with the dashboard). */
    WEBHOOKS_DB: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,63}$/)
      .default('cds_webhooks'),
    /** Deadline of every database call. */
    MONGODB_OPERATION_TIMEOUT_MS: positiveIntVar.default(5_000),
    /** Prefixes the `url` of every notification. */
    PUBLIC_API_ORIGIN: urlVar(['http:', 'https:']).default('http://localhost:8080'),
    /** The dashboard (with its /dashboard prefix), for the link in the "endpoint disabled" mail. */
    DASHBOARD_URL: urlVar(['http:', 'https:']).default('http://localhost:8084/dashboard'),
    ...mailVars,
    /** Whole deadline of one delivery POST (DNS, connect, headers, body; redirects are never followed). */
    WEBHOOK_TIMEOUT_MS: positiveIntVar.default(10_000),
    WEBHOOK_MAX_RESPONSE_BYTES: positiveIntVar.default(65_536),
    WEBHOOK_RETRY_BASE_MS: positiveIntVar.default(30_000),
    WEBHOOK_RETRY_MAX_MS: positiveIntVar.default(3_600_000),
    WEBHOOK_RETRY_FOR_MS: positiveIntVar.default(86_400_000),
    WEBHOOK_DISABLE_AFTER_MS: positiveIntVar.default(259_200_000),
    WEBHOOK_CONCURRENCY: positiveIntVar.max(256).default(16),
    /**
     * Deliveries of one account in flight at once, over every notifier replica: an account's slow
     * endpoints hold at most this many of the WEBHOOK_CONCURRENCY slots.
     */
    WEBHOOK_ACCOUNT_CONCURRENCY: positiveIntVar.max(256).default(4),
    WEBHOOK_POLL_MS: positiveIntVar.default(1_000),
    /** `host:port` pairs exempt from the private-address refusal: tests and local receivers only. */
    WEBHOOK_ALLOW_PRIVATE: hostPortListVar,
  })
  .refine((c) => c.WEBHOOK_RETRY_MAX_MS >= c.WEBHOOK_RETRY_BASE_MS, {
    path: ['WEBHOOK_RETRY_MAX_MS'],
    message: 'must be at least WEBHOOK_RETRY_BASE_MS',
  });
export type NotifierConfig = z.output<typeof NotifierConfig>;
