import { boolVar, infraVars, portVar, positiveIntVar, processVars } from '@cds/config';
import { EVENT_DUPLICATE_WINDOW_MS } from '@cds/messaging';
import { z } from 'zod';

/**
 * The admin token the local development overlay once shipped in the repository (k8s/overlays/local now
 * generates a random one): anyone may know it, so no process accepts it, whatever its environment.
 */
export const KNOWN_DEV_ADMIN_TOKEN = 'local-dev-admin-token-change-me';

/** The admin API process (admin-main.ts): environment variables, parsed once by loadConfig. */
export const AdminConfig = z.object({
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
});
export type AdminConfig = z.infer<typeof AdminConfig>;

/** Settings the ingest CLI takes from the environment (its addresses come via flags/env/local file). */
export const IngestEnv = z.object({
  STREAM_REPLICAS: positiveIntVar.default(1),
  DUPLICATE_WINDOW_MS: positiveIntVar.default(EVENT_DUPLICATE_WINDOW_MS),
  /** Pipelined publishes awaiting acks. */
  PUBLISH_WINDOW: positiveIntVar.default(512),
  /** Records buffered across open batches before the oldest are flushed. */
  BATCH_BUDGET: positiveIntVar.default(50_000),
  /** Consult and record the KV ledger of published batch ids (see docs/decisions.md). */
  INGEST_LEDGER: boolVar.default(true),
  /**
   * Fault tests only: once this many events are stored anew, the process stops itself (SIGSTOP)
   * with its other publishes still in flight, so a test can kill it mid-publish on any machine,
   * however fast or loaded. Unset (the default): never.
   */
  INGEST_STOP_AFTER: positiveIntVar.optional(),
  /** sync: the sources' API addresses (default: the official ones; tests point them at a local server). */
  CFTC_API_URL: z.url().optional(),
  EIA_API_URL: z.url().optional(),
  NASS_API_URL: z.url().optional(),
  AMS_API_URL: z.url().optional(),
  /** The World Bank Commodity Markets page that links the Pink Sheet workbook (tests: a local server). */
  WORLDBANK_PAGE_URL: z.url().optional(),
  /** sync: least time between two requests to one source (default 1 s; 250 ms for CFTC with an app token). */
  SOURCE_REQUEST_INTERVAL_MS: z.coerce.number().int().min(0).optional(),
});
export type IngestEnv = z.infer<typeof IngestEnv>;
