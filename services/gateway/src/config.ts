import { boolVar, infraVars, portVar, positiveIntVar, processVars, redisTopologyVars, urlVar } from '@cds/config';
import { z } from 'zod';
import { SSE_STREAM_CAP_DEFAULTS } from './events/stream-caps.ts';

export const GatewayConfig = z.object({
  NATS_URL: infraVars.NATS_URL,
  REDIS_URL: infraVars.REDIS_URL,
  ...redisTopologyVars,
  LOG_LEVEL: infraVars.LOG_LEVEL,
  PORT: portVar.default(8080),
  ...processVars,
  QUERY_URL: urlVar(['http:', 'https:']).default('http://127.0.0.1:8081'),
  QUERY_TIMEOUT_MS: positiveIntVar.default(5_000),
  QUERY_CONNECTIONS: positiveIntVar.default(64),
  PUBLIC_BASE_URL: urlVar(['http:', 'https:']).default('http://localhost:8080'),
  /** Redis command timeout: past it a request is decided by the local fallback limiter. */
  REDIS_TIMEOUT_MS: positiveIntVar.default(1_000),
  RATE_KEY_PREFIX: z.string().min(1).default('cds:rl:'),
  /** Per-day usage counts and each key's last-used day (read by the dashboard). */
  USAGE_KEY_PREFIX: z.string().min(1).default('cds:usage:'),
  /** Trust X-Forwarded-For from this many proxy hops (the ingress), for the client address. */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  HSTS: boolVar.default(false),
  FAILED_AUTH_MAX: positiveIntVar.default(30),
  FAILED_AUTH_WINDOW_MS: positiveIntVar.default(60_000),
  /** Safety-net lifetime of a cached answer (data events invalidate sooner); 0 turns the cache off. */
  CACHE_TTL_MS: z.coerce.number().int().min(0).default(10_000),
  CACHE_MAX_ENTRIES: positiveIntVar.default(5_000),
  CACHE_MAX_BYTES: positiveIntVar.default(128 * 1024 * 1024),
  JETSTREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  /** This deployment serves generated demo data (`npm start` sets it): GET /status says so (`demo: true`). */
  DEMO_DATA: boolVar.default(false),
  /** GET /api/v1/events: a comment on every stream this often (stream slots expire after three). */
  SSE_HEARTBEAT_MS: positiveIntVar.default(15_000),
  /**
   * A stream whose unsent bytes pass this is written no more until its client takes them (its
   * changes wait in the ring); one that has not within SSE_SLOW_GRACE_MS is ended as a slow consumer.
   */
  SSE_MAX_UNSENT_BYTES: positiveIntVar.default(256 * 1024),
  SSE_SLOW_GRACE_MS: positiveIntVar.default(10_000),
  /**
   * A stream the server ended (with its final event) is destroyed if its client has not taken the
   * rest within this: a client that never reads holds at most the bound plus one event this long.
   */
  SSE_END_GRACE_MS: positiveIntVar.default(5_000),
  /** Changes kept in memory for Last-Event-ID (count-bounded; ~0.5 KB each). */
  SSE_RING_SIZE: positiveIntVar.default(10_000),
  /** Known commodity ids (to check `commodities`) are kept this long, and read within the timeout. */
  SSE_CATALOG_TTL_MS: positiveIntVar.default(10_000),
  SSE_CATALOG_TIMEOUT_MS: positiveIntVar.default(2_000),
  /** The sorted sets of open streams per account. */
  SSE_SLOT_KEY_PREFIX: z.string().min(1).default('cds:sse:'),
  /**
   * Open streams on this replica, whatever their accounts (past it: 503 with Retry-After, the client
   * tries again, likely on another replica). Sized against the replica's memory limit (384 MiB in the
   * chart): each stream may hold SSE_MAX_UNSENT_BYTES (256 KiB) plus one event and its socket's
   * objects (~280 KiB in all), so 500 streams hold ~137 MiB at worst, beside the response cache
   * (CACHE_MAX_BYTES, 128 MiB) and the process itself (~100 MiB). docs/reliability.md.
   */
  SSE_MAX_STREAMS: positiveIntVar.default(SSE_STREAM_CAP_DEFAULTS.maxStreams),
  /**
   * Open streams on this replica from one client address (an IPv6 address counts by its /64); past
   * it: 429. A tenth of SSE_MAX_STREAMS: one address cannot take the replica's streams alone.
   */
  SSE_MAX_STREAMS_PER_CLIENT: positiveIntVar.default(SSE_STREAM_CAP_DEFAULTS.maxStreamsPerClient),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;
