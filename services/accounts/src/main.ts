import { KEYS_STREAM } from '@cds/contracts';
import { keepTrying, loadConfig } from '@cds/config';
import { connectMessaging } from '@cds/messaging';
import { createMetrics, runService } from '@cds/telemetry';
import { buildApp } from './admin/app.ts';
import { createKeyCommands } from './admin/commands.ts';
import { createAdminMetrics } from './admin/metrics.ts';
import { startKeyLog } from './admin/key-log.ts';
import { startRevokedKeyRetention } from './admin/revoked-retention.ts';
import { AdminConfig } from './config.ts';
import { ensureEventStreams } from './publish/streams.ts';

// The admin API process: replays the keys stream, serves /admin/v1 on HOST:PORT.
await runService({
  name: 'ingest-admin',
  config: () => loadConfig(AdminConfig, process.env),
  async start({ config, logger, signal, onClose }) {
    const messaging = await connectMessaging({ servers: config.NATS_URL, name: `ingest-admin-${process.pid}` });
    onClose('nats', () => messaging.close());
    if (config.ENSURE_STREAMS) {
      // A JetStream API call can time out while a new cluster still places its replicated streams:
      // retried rather than a failed start.
      await keepTrying(
        'cannot create the event streams yet',
        () =>
          ensureEventStreams(messaging, {
            replicas: config.STREAM_REPLICAS,
            duplicateWindowMs: config.DUPLICATE_WINDOW_MS,
          }),
        { signal, logger },
      );
    }
    const log = await startKeyLog({
      nc: messaging.nc,
      js: messaging.js,
      jsm: messaging.jsm,
      logger,
      stream: KEYS_STREAM,
    });
    onClose('key log', () => log.stop());
    const retention = startRevokedKeyRetention({
      jsm: messaging.jsm,
      model: log.model,
      logger,
      ready: () => log.ready,
    });
    onClose('revoked key retention', () => retention.stop());
    const metrics = createMetrics('ingest-admin');
    onClose('metrics', () => metrics.shutdown());
    const adminMetrics = createAdminMetrics(metrics, {
      model: log.model,
      maxActiveFreeKeys: config.MAX_ACTIVE_FREE_KEYS,
    });
    const app = buildApp({
      commands: createKeyCommands({
        js: messaging.js,
        log,
        maxActiveFreeKeys: config.MAX_ACTIVE_FREE_KEYS,
        onRefused: adminMetrics.keyCreationRefused,
      }),
      metrics,
      adminToken: config.ADMIN_TOKEN,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      isReady: () => !messaging.nc.isClosed() && log.ready,
      logger,
    });
    onClose('http server', () => app.close());
    await app.listen({ host: config.HOST, port: config.PORT });
  },
});
