import { randomBytes } from 'node:crypto';
import { KEYS_STREAM } from '@cds/contracts';
import openapiDocument from '@cds/contracts/openapi.json' with { type: 'json' };
import { keepTrying, loadConfig } from '@cds/config';
import { connectMessaging, streamSpec, type Messaging } from '@cds/messaging';
import { createResponseCache, subscribeInvalidations } from '@cds/response-cache';
import { calendarReleases } from '@cds/schedule';
import { createRedis, topologyOptions, type RedisClient } from '@cds/redis';
import { createMetrics, runService, type Logger, type Metrics, type RunningService } from '@cds/telemetry';
import { buildApp } from './app.ts';
import { createDatasetsBoard } from './datasets/board.ts';
import { registerDatasetMetrics } from './datasets/metrics.ts';
import { followDatasets } from './datasets/tables.ts';
import { FailedAuthLimiter } from './auth/failed-auth-limiter.ts';
import { followChanges } from './events/change-follower.ts';
import { EventHub } from './events/hub.ts';
import { ChangeRing } from './events/ring.ts';
import { createRedisStreamSlots, createStreamSlots } from './events/stream-slots.ts';
import { GatewayConfig } from './config.ts';
import { followKeyStream } from './keys/key-stream.ts';
import { KeyTable } from './keys/key-table.ts';
import { RevocationNotices, subscribeRevocationNotices } from './keys/revocation-notices.ts';
import { createFallbackMetrics, registerKeyTableMetrics } from './metrics.ts';
import { createQueryClient } from './proxy/query-client.ts';
import { createFailoverRateLimiter } from './rate/failover-limiter.ts';
import { createMemoryRateLimiter } from './rate/memory-limiter.ts';
import { createRedisRateLimiter } from './rate/redis-limiter.ts';
import { createRefusalMemo } from './rate/refusal-memo.ts';
import { followCotChecks, registerCotCheckMetrics } from './status/cot-checks.ts';
import { createStatusBoard, registerSourceMetrics } from './status/status-document.ts';
import { followSyncState } from './status/sync-state.ts';

const nowMs = () => Date.now();

type Config = Readonly<GatewayConfig>;
type Fallbacks = ReturnType<typeof createFallbackMetrics>;

/**
 * Redis for rate windows and SSE stream slots. Bounded: a command fails after REDIS_TIMEOUT_MS,
 * and at once while disconnected (no offline queue), so the failover limiter decides the request
 * locally instead of waiting.
 */
function connectRedis(config: Config, logger: Logger): RedisClient {
  return createRedis({
    url: config.REDIS_URL,
    name: 'gateway',
    ...topologyOptions(config),
    commandTimeoutMs: config.REDIS_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    offlineQueue: false,
    onError: (err) => logger.debug({ err: err.message }, 'redis connection error'),
  });
}

/** The SSE hub and its stream slots (taken in Redis, locally while it is away). */
function createHub(config: Config, redis: RedisClient, logger: Logger, fallbacks: Fallbacks) {
  const slots = createStreamSlots({
    redis: createRedisStreamSlots(redis, {
      keyPrefix: config.SSE_SLOT_KEY_PREFIX,
      ttlMs: 3 * config.SSE_HEARTBEAT_MS,
    }),
    logger,
    onFallback: () => fallbacks.sseSlots.add([]),
  });
  const hub = new EventHub({
    ring: new ChangeRing(config.SSE_RING_SIZE),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    maxUnsentBytes: config.SSE_MAX_UNSENT_BYTES,
    slowGraceMs: config.SSE_SLOW_GRACE_MS,
    heartbeatMs: config.SSE_HEARTBEAT_MS,
    maxStreams: config.SSE_MAX_STREAMS,
    maxStreamsPerClient: config.SSE_MAX_STREAMS_PER_CLIENT,
    slots,
    logger,
  });
  return { hub, slots };
}

/** The rate windows in Redis, failing over to memory, behind the refusal memo. */
function createRateLimiter(config: Config, redis: RedisClient, logger: Logger, fallbacks: Fallbacks) {
  return createRefusalMemo(
    createFailoverRateLimiter({
      primary: createRedisRateLimiter(redis, {
        keyPrefix: config.RATE_KEY_PREFIX,
        usageKeyPrefix: config.USAGE_KEY_PREFIX,
      }),
      fallback: createMemoryRateLimiter({ nowMs }),
      logger,
      nowMs,
      events: { onFallback: () => fallbacks.rateLimits.add([]) },
    }),
    { nowMs },
  );
}

/** The response cache (none when CACHE_TTL_MS is 0), subscribed to the projector's invalidations. */
async function startCache(config: Config, messaging: Messaging, service: RunningService<GatewayConfig>) {
  if (config.CACHE_TTL_MS <= 0) return undefined;
  const cache = createResponseCache({
    maxEntries: config.CACHE_MAX_ENTRIES,
    maxBytes: config.CACHE_MAX_BYTES,
    ttlMs: config.CACHE_TTL_MS,
  });
  const invalidation = subscribeInvalidations(messaging.nc, cache, service.logger);
  service.onClose('cache invalidation', () => invalidation.close());
  await invalidation.ready;
  return cache;
}

/**
 * The streams the gateway follows: changes (for SSE), keys (the key table; revocations and plan
 * changes reach the open streams as it applies them), ingest's sync state (GET /status,
 * cds_source_* gauges) and the projector's COT consistency failures (GET /status `consistency`,
 * followed in the background once the projector has created the bucket), and the release ledger and
 * incidents (GET /datasets, /releases: each followed in the background once its writer has created
 * its bucket). Each JetStream step is
 * retried: an API call can time out while a new cluster still places its replicated streams (seen
 * in the cluster suite), which is no reason to exit. Undefined when the process was asked to stop
 * meanwhile.
 */
async function followStreams(
  service: RunningService<GatewayConfig>,
  messaging: Messaging,
  deps: { hub: EventHub; table: KeyTable; notices: RevocationNotices; onRevoked: () => void; metrics: Metrics },
) {
  const { config, logger, signal, onClose } = service;
  const { hub, table, notices, onRevoked } = deps;
  const retried = <T>(what: string, attempt: () => Promise<T>) => keepTrying(what, attempt, { signal, logger });
  // The projector records changes there; whoever starts first creates it (idempotent).
  const changes = await retried('cannot follow the change stream yet', async () => {
    await messaging.ensureStream(streamSpec('changes', { replicas: config.JETSTREAM_REPLICAS }));
    return followChanges({ nc: messaging.nc, js: messaging.js, jsm: messaging.jsm, hub, logger });
  });
  if (changes === undefined) return undefined;
  onClose('change follower', () => changes.stop());
  hub.startHeartbeat();
  const keys = await retried('cannot follow the key stream yet', () =>
    followKeyStream({
      nc: messaging.nc,
      table,
      logger,
      onEvent: (e) => {
        if (e.type === 'key.revoked' || e.type === 'account.closed') onRevoked();
        if (e.type === 'key.revoked') notices.settled(e.data.key_id);
        hub.onKeyEvent(e);
      },
    }),
  );
  if (keys === undefined) return undefined;
  onClose('key follower', () => keys.stop());
  const syncState = await retried('cannot follow the sync state yet', () =>
    followSyncState({
      nc: messaging.nc,
      js: messaging.js,
      jsm: messaging.jsm,
      logger,
      replicas: config.JETSTREAM_REPLICAS,
    }),
  );
  if (syncState === undefined) return undefined;
  onClose('sync state follower', () => syncState.stop());
  registerSourceMetrics(deps.metrics, syncState, nowMs);
  const cotChecks = followCotChecks({ nc: messaging.nc, js: messaging.js, jsm: messaging.jsm, logger, nowMs });
  onClose('COT checks follower', () => cotChecks.stop());
  registerCotCheckMetrics(deps.metrics, cotChecks.table);
  const datasets = followDatasets({ nc: messaging.nc, js: messaging.js, jsm: messaging.jsm, logger });
  onClose('datasets followers', () => datasets.stop());
  return { changes, keys, syncState, cotChecks, datasets };
}

await runService({
  name: 'gateway',
  config: () => loadConfig(GatewayConfig, process.env),
  async start(service) {
    const { config, logger, signal, onClose } = service;
    const metrics = createMetrics('gateway');
    onClose('metrics', () => metrics.shutdown());
    const messaging = await connectMessaging({ servers: config.NATS_URL, name: 'gateway' });
    onClose('nats', () => messaging.close());
    // The admin API creates the key stream (its NATS user alone may: docs/operations.md "Credentials");
    // a gateway starting first waits for it.
    const keyStream = await keepTrying(
      'the key stream is not there yet',
      () => messaging.jsm.streams.info(KEYS_STREAM),
      { signal, logger },
    );
    if (keyStream === undefined) return;
    const table = new KeyTable();
    registerKeyTableMetrics(metrics, table);
    // Heard before the stream is followed: a revocation noticed while replaying is refused at once.
    // Every revocation learned (a notice, or the stream's key.revoked or account.closed) is counted:
    // a request whose key it takes away while the request waits for its windows is refused.
    let revocations = 0;
    const notices = new RevocationNotices({ nowMs, onHeard: () => (revocations += 1) });
    const noticed = subscribeRevocationNotices(messaging.nc, notices, logger);
    onClose('revocation notices', () => noticed.close());
    await noticed.ready;
    const fallbacks = createFallbackMetrics(metrics);
    // Redis is created before the followers: the SSE hub (fed by both) takes its stream slots there.
    const redis = connectRedis(config, logger);
    onClose('redis', () => redis.quit());
    const { hub, slots } = createHub(config, redis, logger, fallbacks);
    const followed = await followStreams(service, messaging, {
      hub,
      table,
      notices,
      onRevoked: () => (revocations += 1),
      metrics,
    });
    if (followed === undefined) return;
    const { changes, keys, syncState, cotChecks, datasets } = followed;

    const datasetsBoard = createDatasetsBoard({
      ledgers: datasets.ledgers,
      incidents: datasets.incidents,
      errors: syncState,
      checks: cotChecks,
      calendar: calendarReleases,
    });
    registerDatasetMetrics(metrics, { board: datasetsBoard, incidents: datasets.incidents, nowMs });

    const rateLimiter = createRateLimiter(config, redis, logger, fallbacks);
    const cache = await startCache(config, messaging, service);
    const query = createQueryClient({
      url: config.QUERY_URL,
      connections: config.QUERY_CONNECTIONS,
      timeoutMs: config.QUERY_TIMEOUT_MS,
    });
    onClose('query client', () => query.close());

    const app = buildApp({
      keys: {
        lookup: (key) => {
          const principal = table.lookup(key);
          return principal === undefined || notices.refuses(principal.keyId) ? undefined : principal;
        },
        isReady: () => keys.isCaughtUp() && changes.isCaughtUp(),
        revocations: () => revocations,
      },
      rateLimiter,
      query,
      ...(cache === undefined ? {} : { cache }),
      logger,
      metrics,
      nowMs,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      openapiDocument: openapiDocument,
      failedAuth: new FailedAuthLimiter({
        maxFailures: config.FAILED_AUTH_MAX,
        windowMs: config.FAILED_AUTH_WINDOW_MS,
      }),
      hsts: config.HSTS,
      trustProxyHops: config.TRUST_PROXY_HOPS,
      status: createStatusBoard(syncState, { demo: config.DEMO_DATA, checks: cotChecks }),
      datasets: datasetsBoard,
      events: {
        hub,
        slots,
        isReady: () => changes.isCaughtUp(),
        streamLastSeq: () => changes.streamLastSeq(),
        replicaId: randomBytes(4).toString('hex'),
        catalogTtlMs: config.SSE_CATALOG_TTL_MS,
        catalogTimeoutMs: config.SSE_CATALOG_TIMEOUT_MS,
        endGraceMs: config.SSE_END_GRACE_MS,
      },
    });
    onClose('http server', () => app.close());

    await app.listen({ port: config.PORT, host: config.HOST });
    logger.info({ port: config.PORT }, 'gateway listening; ready once the key table has caught up');
  },
});
