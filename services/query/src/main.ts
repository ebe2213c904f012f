import { loadConfig } from '@cds/config';
import { connectNats } from '@cds/messaging';
import { createMetrics, runService } from '@cds/telemetry';
import { createBulkFileStore, createStore } from '@cds/store';
import { buildApp } from './app.ts';
import { createResponseCache, subscribeInvalidations } from '@cds/response-cache';
import { QueryConfigSchema } from './config.ts';
import { createMongoRepository } from './repository/mongo-repository.ts';

await runService({
  name: 'query',
  config: () => loadConfig(QueryConfigSchema, process.env),
  async start({ config, logger, onClose }) {
    const metrics = createMetrics('query');
    onClose('metrics', () => metrics.shutdown());
    // Connects in the background and keeps trying until MongoDB answers (libs/store createStore): a
    // down MongoDB at start only makes /readyz fail (and the data routes 503) until it is up.
    const mongo = createStore({
      url: config.MONGODB_URL,
      appName: 'cds-query',
      serverSelectionTimeoutMs: config.MONGODB_SERVER_SELECTION_TIMEOUT_MS,
      queryTimeMs: config.QUERY_MAX_TIME_MS,
    });
    onClose('mongodb', () => mongo.close());
    const cache = createResponseCache({
      maxEntries: config.CACHE_MAX_ENTRIES,
      maxBytes: config.CACHE_MAX_BYTES,
      ttlMs: config.CACHE_TTL_MS,
    });
    const repository = createMongoRepository({
      db: mongo.db(config.MONGODB_DB),
      maxTimeMs: config.QUERY_MAX_TIME_MS,
      onCollectionSwap: (name) => {
        logger.info({ read_model: name }, 'read model swapped: dropping the response cache and the read memo');
        repository.memo?.clear();
        cache.clear();
      },
      readMemo: { maxBuckets: config.READ_MEMO_MAX_BUCKETS, ttlMs: config.CACHE_TTL_MS },
    });
    const nc = await connectNats({ servers: config.NATS_URL, name: 'cds-query' });
    onClose('nats', () => nc.drain());
    // The projector's announcements drop the read memo with the response cache, the memo first (an
    // answer computed again reads the new data).
    const invalidation = subscribeInvalidations(
      nc,
      {
        ...cache,
        invalidate: (commodityId) => (repository.memo?.invalidate(commodityId) ?? 0) + cache.invalidate(commodityId),
        clear: () => {
          repository.memo?.clear();
          cache.clear();
        },
      },
      logger,
    );
    onClose('cache invalidation', () => invalidation.close());
    await invalidation.ready;

    const app = buildApp({
      repository,
      cache,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      logger,
      requestLogging: config.REQUEST_LOGGING,
      metrics,
      bulk: createBulkFileStore(mongo.db(config.MONGODB_DB), { timeoutMs: config.QUERY_MAX_TIME_MS }),
    });
    onClose('http server', () => app.close());
    await app.listen({ host: config.HOST, port: config.PORT });
  },
});
