import { boolVar, infraVars, portVar, positiveIntVar, processVars } from '@cds/config';
import { EVENT_DUPLICATE_WINDOW_MS } from '@cds/messaging';
import { z } from 'zod';

/**
 * The admin token the local development overlay once shipped in the repository (k8s/overlays/local now
 * generates a random one): anyone may know it, so no process accepts it, whatever its environment.
 */
export const KNOWN_DEV_ADMIN_TOKEN = 'local-dev-admin-token-change-me';

/** The accounts service (main.ts): environment variables, parsed once by loadConfig. */
export const AccountsConfig = z.object({
  NATS_URL: infraVars.NATS_URL,
  LOG_LEVEL: infraVars.LOG_LEVEL,
  ...processVars,
  PORT: portVar.default(8083),
  /** Bearer token every admin request must carry; at least 16 characters. */
  ADMIN_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .refine(
      (t) => t !== KNOWN_DEV_ADMIN_TOKEN,
      'is the well-known development token published in the repository: generate one (openssl rand -hex 32)',
    ),
  /** Base of the doc_url in error bodies (the public API address). */
  PUBLIC_BASE_URL: z.url().default('http://localhost:8080'),
  /** Replicas of the event streams: 1 locally, 3 in production. */
  STREAM_REPLICAS: positiveIntVar.default(1),
  DUPLICATE_WINDOW_MS: positiveIntVar.default(EVENT_DUPLICATE_WINDOW_MS),
  /** Create or align the streams at start (off when operations own them). */
  ENSURE_STREAMS: boolVar.default(true),
  /**
   * Active Free keys (all accounts) above which a new Free key is refused, 409 free_key_ceiling:
   * every gateway replica holds every active key (docs/reliability.md "Key table").
   */
  MAX_ACTIVE_FREE_KEYS: positiveIntVar.default(500_000),
  /**
   * Active dashboard session keys of Free accounts above which a new one is refused (the explorer
   * then asks for a pasted key): apart from MAX_ACTIVE_FREE_KEYS, so sessions never block own keys.
   */
  MAX_ACTIVE_FREE_SESSION_KEYS: positiveIntVar.default(50_000),
  /** How often expired session keys are revoked (docs/dashboard-security.md "Session keys"). */
  SESSION_KEY_SWEEP_MS: positiveIntVar.default(5_000),
});
export type AccountsConfig = z.infer<typeof AccountsConfig>;
