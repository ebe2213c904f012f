import { boolVar, infraVars, portVar, positiveIntVar, processVars, urlVar } from '@cds/config';
import { z } from 'zod';

/** Environment of the query service (parsed once in main.ts). */
export const QueryConfigSchema = z.object({
  PORT: portVar.default(8081),
  ...processVars,
  MONGODB_URL: infraVars.MONGODB_URL,
  MONGODB_DB: z.string().min(1).default('cds'),
  /** For cache invalidation by projector announcements; without it the cache relies on its TTL. */
  NATS_URL: infraVars.NATS_URL,
  LOG_LEVEL: infraVars.LOG_LEVEL,
  /** Time limit of every database query. */
  QUERY_MAX_TIME_MS: positiveIntVar.default(2_000),
  /** How long to look for a reachable MongoDB before answering 503. */
  MONGODB_SERVER_SELECTION_TIMEOUT_MS: positiveIntVar.default(2_000),
  CACHE_MAX_ENTRIES: positiveIntVar.default(5_000),
  CACHE_MAX_BYTES: positiveIntVar.default(256 * 1024 * 1024),
  CACHE_TTL_MS: positiveIntVar.default(60_000),
  /** Series years (one bucket each, ~50 KB for a year of daily points) the read memo keeps (repository/read-memo.ts). */
  READ_MEMO_MAX_BUCKETS: positiveIntVar.default(512),
  /** Public base address for error doc_url links. */
  PUBLIC_BASE_URL: urlVar(['http:', 'https:']).default('http://localhost:8080'),
  REQUEST_LOGGING: boolVar.default(true),
});

export type QueryConfig = z.output<typeof QueryConfigSchema>;
