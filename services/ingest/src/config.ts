import { boolVar, positiveIntVar } from '@cds/config';
import { EVENT_DUPLICATE_WINDOW_MS } from '@cds/messaging';
import { z } from 'zod';
import { REGISTRY } from './sources/registry.ts';

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
  /**
   * sync: the sources' API addresses, each synced source's `baseUrlSetting` (CFTC_API_URL,
   * WORLDBANK_PAGE_URL...; default: the official ones; tests point them at a local server).
   */
  ...Object.fromEntries(
    REGISTRY.flatMap((s) => (s.sync !== undefined ? [[s.sync.baseUrlSetting, z.url().optional()] as const] : [])),
  ),
  /** sync: least time between two requests to one source (default 1 s; 250 ms for CFTC with an app token). */
  SOURCE_REQUEST_INTERVAL_MS: z.coerce.number().int().min(0).optional(),
});
export type IngestEnv = z.infer<typeof IngestEnv>;
