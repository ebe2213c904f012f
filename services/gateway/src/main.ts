import { randomBytes } from 'node:crypto';
import { KEYS_STREAM } from '@cds/contracts';
import openapiDocument from '@cds/contracts/openapi.json' with { type: 'json' };
import { keepTrying, loadConfig } from '@cds/config';
import { connectMessaging, streamSpec } from '@cds/messaging';
import { createResponseCache, subscribeInvalidations } from '@cds/response-cache';
import { createRedis, topologyOptions } from '@cds/redis';
import { createMetrics, runService } from '@cds/telemetry';
import { buildApp } from './app.ts';
import { FailedAuthLimiter } from './auth/failed-auth-limiter.ts';
import { followChanges } from './events/change-follower.ts';
import { EventHub } from './events/hub.ts';
import { ChangeRing } from './events/ring.ts';
import { createRedisStreamSlots, createStreamSlots } from './events/stream-slots.ts';
import { GatewayConfig } from './config.ts';
import { followKeyStream } from './keys/key-stream.ts';
import { KeyTable } from './keys/key-table.ts';
import { createFallbackMetrics, registerKeyTableMetrics } from './metrics.ts';
import { createQueryClient } from './proxy/query-client.ts';
import { createFailoverRateLimiter } from './rate/failover-limiter.ts';
import { createMemoryRateLimiter } from './rate/memory-limiter.ts';
import { createRedisRateLimiter } from './rate/redis-limiter.ts';
import { createRefusalMemo } from './rate/refusal-memo.ts';
import { createStatusBoard, registerSourceMetrics } from './status/status-document.ts';
import { followSyncState } from './status/sync-state.ts';

const nowMs = () => Date.now();

await runService({
  name: 'gateway',
  config: () => loadConfig(GatewayConfig, process.env),
  async start({ config, logger, signal, onClose }) {
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
    const fallbacks = createFallbackMetrics(metrics);
    // Redis is created before the followers: the SSE hub (fed by both) takes its stream slots there.
    // Bounded: a command fails after REDIS_TIMEOUT_MS, and at once while disconnected (no offline
    // queue), so the failover limiter decides the request locally instead of waiting.
    const redis = createRedis({
      url: config.REDIS_URL,
      name: 'gateway',
      ...topologyOptions(config),
      commandTimeoutMs: config.REDIS_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      offlineQueue: false,
      onError: (err) => logger.debug({ err: err.message }, 'redis connection error'),
    });
    onClose('redis', () => redis.quit());
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
    // Each JetStream step of the start is retried: an API call can time out while a new cluster
    // still places its replicated streams (seen in the cluster suite), which is no reason to exit.
    const retried = <T>(what: string, attempt: () => Promise<T>) => keepTrying(what, attempt, { signal, logger });
    // The projector records changes there; whoever starts first creates it (idempotent).
    const changes = await retried('cannot follow the change stream yet', async () => {
      await messaging.ensureStream(streamSpec('changes', { replicas: config.JETSTREAM_REPLICAS }));
      return followChanges({ nc: messaging.nc, js: messaging.js, jsm: messaging.jsm, hub, logger });
    });
    if (changes === undefined) return;
    onClose('change follower', () => changes.stop());
    hub.startHeartbeat();
    // Revocations and plan changes reach the open streams as the key table applies them.
    const follower = await retried('cannot follow the key stream yet', () =>
      followKeyStream({ nc: messaging.nc, table, logger, onEvent: (e) => hub.onKeyEvent(e) }),
    );
    if (follower === undefined) return;
    onClose('key follower', () => follower.stop());
    // Source freshness for GET /status and the cds_source_* gauges, followed live from ingest's KV.
    const syncState = await retried('cannot follow the sync state yet', () =>
      followSyncState({
        nc: messaging.nc,
        js: messaging.js,
        jsm: messaging.jsm,
        logger,
        replicas: config.JETSTREAM_REPLICAS,
      }),
    );
    if (syncState === undefined) return;
    onClose('sync state follower', () => syncState.stop());
    registerSourceMetrics(metrics, syncState, nowMs);

    const rateLimiter = createRefusalMemo(
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
    const cache =
      config.CACHE_TTL_MS > 0
        ? createResponseCache({
            maxEntries: config.CACHE_MAX_ENTRIES,
            maxBytes: config.CACHE_MAX_BYTES,
            ttlMs: config.CACHE_TTL_MS,
          })
        : undefined;
    const invalidation = cache === undefined ? undefined : subscribeInvalidations(messaging.nc, cache, logger);
    if (invalidation !== undefined) onClose('cache invalidation', () => invalidation.close());
    await invalidation?.ready;
    const query = createQueryClient({
      url: config.QUERY_URL,
      connections: config.QUERY_CONNECTIONS,
      timeoutMs: config.QUERY_TIMEOUT_MS,
    });
    onClose('query client', () => query.close());

    const app = buildApp({
      keys: { lookup: (key) => table.lookup(key), isReady: () => follower.isCaughtUp() && changes.isCaughtUp() },
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
      status: createStatusBoard(syncState, { demo: config.DEMO_DATA }),
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
