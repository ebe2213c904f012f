import { loadConfig } from '@cds/config';
import { connectNats } from '@cds/messaging';
import { createLogger, createMetrics, flushTelemetry } from '@cds/telemetry';
import { createStore } from '@cds/store';
import { buildApp } from './app.ts';
import { createResponseCache, subscribeInvalidations } from '@cds/response-cache';
import { QueryConfigSchema } from './config.ts';
import { createMongoRepository } from './repository/mongo-repository.ts';

async function main(): Promise<void> {
  const config = loadConfig(QueryConfigSchema, process.env);
  const logger = createLogger({ name: 'query', level: config.LOG_LEVEL });
  const metrics = createMetrics('query');

  // Connects in the background and keeps trying until MongoDB answers (libs/store createStore): a
  // down MongoDB at start only makes /readyz fail (and the data routes 503) until it is up.
  const mongo = createStore({
    url: config.MONGODB_URL,
    appName: 'cds-query',
    serverSelectionTimeoutMs: config.MONGODB_SERVER_SELECTION_TIMEOUT_MS,
    queryTimeMs: config.QUERY_MAX_TIME_MS,
  });
  const cache = createResponseCache({
    maxEntries: config.CACHE_MAX_ENTRIES,
    maxBytes: config.CACHE_MAX_BYTES,
    ttlMs: config.CACHE_TTL_MS,
  });
  const repository = createMongoRepository({
    db: mongo.db(config.MONGODB_DB),
    maxTimeMs: config.QUERY_MAX_TIME_MS,
    onCollectionSwap: (name) => {
      logger.info({ read_model: name }, 'read model swapped: dropping the response cache');
      cache.clear();
    },
  });
  const nc = await connectNats({ servers: config.NATS_URL, name: 'cds-query' });
  const invalidation = subscribeInvalidations(nc, cache, logger);
  await invalidation.ready;

  const app = buildApp({
    repository,
    cache,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    logger,
    requestLogging: config.REQUEST_LOGGING,
    metrics,
  });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    try {
      await app.close();
      await invalidation.close();
      await nc.drain();
      await mongo.close();
      await metrics.shutdown();
      await flushTelemetry();
      process.exit(0);
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ host: '0.0.0.0', port: config.PORT });
}

main().catch((err: unknown) => {
  console.error('query service failed to start:', err);
  process.exit(1);
});
