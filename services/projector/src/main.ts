import { DATA_STREAM } from '@cds/contracts';
import { connectMessaging } from '@cds/messaging';
import { MongoClient } from 'mongodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '@cds/telemetry';
import { buildApp } from './app.ts';
import { loadProjectorConfig } from './config.ts';
import { ensureDeadletterStream } from './consumer/park.ts';
import { startProjectionWorker, type ProjectionWorker } from './consumer/projection-worker.ts';
import { createProjectorMetrics } from './metrics.ts';
import { PROJECTIONS } from './projections/index.ts';

async function main(): Promise<void> {
  const config = loadProjectorConfig(process.env);
  const logger = createLogger({ name: 'projector', level: config.LOG_LEVEL });
  const metrics = createProjectorMetrics();
  const messaging = await connectMessaging({
    servers: config.NATS_URL,
    name: `projector-${config.PROJECTIONS.join('+')}`,
  });
  const mongo = new MongoClient(config.MONGODB_URL, { serverSelectionTimeoutMS: 5_000 });
  await mongo.connect();
  const db = mongo.db(config.MONGODB_DB);
  const workers: ProjectionWorker[] = [];
  const app = buildApp({
    logger,
    metrics,
    projections: config.PROJECTIONS,
    workers: () => workers,
    natsConnected: () => !messaging.nc.isClosed(),
    mongoPing: async () => (await db.command({ ping: 1 })).ok === 1,
  });
  const stopping = new AbortController();
  const shutdown = async (signal: string) => {
    if (stopping.signal.aborted) return;
    stopping.abort();
    logger.info({ signal }, 'shutting down');
    await Promise.allSettled(workers.map((w) => w.stop()));
    await app.close();
    await messaging.close();
    await mongo.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ host: '0.0.0.0', port: config.PORT });

  await ensureDeadletterStream(messaging, config.DEADLETTER_REPLICAS);
  const deps = { messaging, db, logger, metrics, clock: () => new Date() };
  for (const name of config.PROJECTIONS) {
    // The data stream belongs to ingest: wait for it rather than create it with other settings.
    for (let attempt = 1; !stopping.signal.aborted; attempt++) {
      try {
        await messaging.jsm.streams.info(DATA_STREAM);
        workers.push(await startProjectionWorker(deps, PROJECTIONS[name], { ackWaitMs: config.ACK_WAIT_MS }));
        break;
      } catch (err) {
        logger.warn({ err, projection: name, attempt }, 'cannot start projection yet; retrying');
        await sleep(Math.min(10_000, 500 * attempt));
      }
    }
  }
  // A worker whose consumer dies (deleted, connection closed for good) takes the process down so
  // the orchestrator restarts it.
  for (const w of workers) {
    w.done.catch((err: unknown) => {
      logger.fatal({ err, projection: w.projection }, 'projection consumer failed');
      process.exit(1);
    });
  }
}

main().catch((err: unknown) => {
  console.error('projector failed to start:', err);
  process.exit(1);
});
