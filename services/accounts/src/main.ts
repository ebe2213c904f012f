import { KEY_REVOCATION_NOTICES, KEYS_STREAM } from '@cds/contracts';
import { keepTrying, loadConfig } from '@cds/config';
import { connectMessaging, encodeJson, streamSpec } from '@cds/messaging';
import { createMetrics, runService } from '@cds/telemetry';
import { buildApp } from './api/app.ts';
import { createKeyCommands } from './commands/index.ts';
import { AccountsConfig } from './config.ts';
import { startKeyLog } from './keys/key-log.ts';
import { startRevokedKeyRetention } from './keys/revoked-retention.ts';
import { startSessionKeyExpiry } from './keys/session-expiry.ts';
import { createAdminMetrics } from './metrics.ts';

// The accounts service: replays the keys stream, serves the admin API (/admin/v1) on HOST:PORT.
await runService({
  name: 'accounts',
  config: () => loadConfig(AccountsConfig, process.env),
  async start({ config, logger, signal, onClose }) {
    const messaging = await connectMessaging({ servers: config.NATS_URL, name: `accounts-${process.pid}` });
    onClose('nats', () => messaging.close());
    if (config.ENSURE_STREAMS) {
      // Both event streams, as libs/messaging defines them (the data publisher creates CDS_DATA too;
      // only this service may touch CDS_KEYS). A JetStream API call can time out while a new cluster
      // still places its replicated streams: retried rather than a failed start.
      const settings = { replicas: config.STREAM_REPLICAS, duplicateWindowMs: config.DUPLICATE_WINDOW_MS };
      await keepTrying(
        'cannot create the event streams yet',
        async () => {
          for (const name of ['data', 'keys'] as const) await messaging.ensureStream(streamSpec(name, settings));
        },
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
    const metrics = createMetrics('accounts');
    onClose('metrics', () => metrics.shutdown());
    const adminMetrics = createAdminMetrics(metrics, {
      model: log.model,
      maxActiveFreeKeys: config.MAX_ACTIVE_FREE_KEYS,
    });
    const commands = createKeyCommands({
      js: messaging.js,
      log,
      maxActiveFreeKeys: config.MAX_ACTIVE_FREE_KEYS,
      maxActiveFreeSessionKeys: config.MAX_ACTIVE_FREE_SESSION_KEYS,
      onRefused: adminMetrics.keyCreationRefused,
      announceRevocation: (event) => messaging.nc.publish(KEY_REVOCATION_NOTICES, encodeJson(event)),
    });
    const expiry = startSessionKeyExpiry({
      model: log.model,
      revoke: (keyId) => commands.revokeIfActive(keyId),
      logger,
      ready: () => log.ready,
      everyMs: config.SESSION_KEY_SWEEP_MS,
    });
    onClose('session key expiry', () => expiry.stop());
    const app = buildApp({
      commands,
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
