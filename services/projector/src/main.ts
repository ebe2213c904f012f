import { DATA_STREAM } from '@cds/contracts';
import { connectMessaging } from '@cds/messaging';
import { createStore } from '@cds/store';
import { keepTrying, loadConfig } from '@cds/config';
import { runService } from '@cds/telemetry';
import { buildApp } from './app.ts';
import { ProjectorConfig } from './config.ts';
import { ensureDeadletterStream } from './consumer/park.ts';
import { startProjectionWorker, type ProjectionWorker } from './consumer/projection-worker.ts';
import { createProjectorMetrics } from './metrics.ts';
import { PROJECTIONS } from './projections/index.ts';

await runService({
  name: 'projector',
  config: () => loadConfig(ProjectorConfig, process.env),
  async start({ config, logger, signal, onClose, fail }) {
    const metrics = createProjectorMetrics();
    onClose('metrics', () => metrics.shutdown());
    const messaging = await connectMessaging({
      servers: config.NATS_URL,
      name: `projector-${config.PROJECTIONS.join('+')}`,
    });
    // Connects on first use (a worker waits for MongoDB like for its stream). Every operation has a
    // deadline of its own (MONGODB_OPERATION_TIMEOUT_MS); the socket timeout closes the connection
    // of one the server never answers.
    const mongo = createStore({
      url: config.MONGODB_URL,
      appName: 'projector',
      serverSelectionTimeoutMs: 5_000,
      queryTimeMs: config.MONGODB_OPERATION_TIMEOUT_MS,
      socketTimeoutMs: config.MONGODB_OPERATION_TIMEOUT_MS + 1_000,
      maxPoolSize: 100,
    });
    onClose('mongodb', () => mongo.close());
    onClose('nats', () => messaging.close());
    const db = mongo.db(config.MONGODB_DB);
    const workers: ProjectionWorker[] = [];
    const app = buildApp({
      logger,
      metrics,
      projections: config.PROJECTIONS,
      workers: () => workers,
      natsConnected: () => !messaging.nc.isClosed(),
      mongoPing: () => mongo.ping().then(() => true),
    });
    onClose('http server', () => app.close());
    onClose('projection workers', () => Promise.allSettled(workers.map((w) => w.stop())));
    await app.listen({ host: config.HOST, port: config.PORT });

    // A JetStream API call can time out while a new cluster still places its replicated streams:
    // retried, as the workers' start below, rather than a failed start.
    await keepTrying(
      'cannot create the dead-letter stream yet',
      () => ensureDeadletterStream(messaging, config.DEADLETTER_REPLICAS),
      { signal, logger },
    );
    const deps = { messaging, db, logger, metrics, clock: () => new Date() };
    for (const name of config.PROJECTIONS) {
      // The data stream belongs to ingest: wait for it rather than create it with other settings.
      const worker = await keepTrying(
        'cannot start projection yet',
        async () => {
          await messaging.jsm.streams.info(DATA_STREAM);
          return startProjectionWorker(deps, PROJECTIONS[name], {
            ackWaitMs: config.ACK_WAIT_MS,
            operationTimeoutMs: config.MONGODB_OPERATION_TIMEOUT_MS,
            stallMs: config.STALL_TIMEOUT_MS,
            changesReplicas: config.JETSTREAM_REPLICAS,
          });
        },
        { signal, logger, context: { projection: name } },
      );
      if (worker !== undefined) workers.push(worker);
    }
    // A worker whose consumer dies (deleted, connection closed for good) takes the process down so
    // the orchestrator restarts it.
    for (const w of workers) {
      w.done.catch((err: unknown) => fail(err, 'projection consumer failed', { projection: w.projection }));
    }
  },
});
