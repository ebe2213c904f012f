import { KEYS_STREAM } from '@cds/contracts';
import { ConfigError, loadConfig } from '@cds/config';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { createLogger, flushTelemetry } from '@cds/telemetry';
import { buildApp } from './admin/app.ts';
import { createKeyCommands } from './admin/commands.ts';
import { startKeyLog, type KeyLog } from './admin/key-log.ts';
import { startRevokedKeyRetention } from './admin/revoked-retention.ts';
import { AdminConfig } from './config.ts';
import { ensureEventStreams } from './publish/streams.ts';

// The admin API process: replays the keys stream, serves /admin/v1 on HOST:PORT.
async function main(): Promise<void> {
  let config: AdminConfig;
  try {
    config = loadConfig(AdminConfig, process.env);
  } catch (err) {
    console.error(err instanceof ConfigError ? err.message : String(err));
    process.exit(2);
  }
  const logger = createLogger({ name: 'ingest-admin', level: config.LOG_LEVEL });
  let messaging: Messaging | undefined;
  let log: KeyLog | undefined;
  try {
    messaging = await connectMessaging({ servers: config.NATS_URL, name: `ingest-admin-${process.pid}` });
    if (config.ENSURE_STREAMS) {
      await ensureEventStreams(messaging, {
        replicas: config.STREAM_REPLICAS,
        duplicateWindowMs: config.DUPLICATE_WINDOW_MS,
      });
    }
    log = await startKeyLog({ nc: messaging.nc, js: messaging.js, jsm: messaging.jsm, logger, stream: KEYS_STREAM });
    const m = messaging;
    const l = log;
    const retention = startRevokedKeyRetention({ jsm: m.jsm, model: l.model, logger, ready: () => l.ready });
    const app = buildApp({
      commands: createKeyCommands({ js: m.js, log: l }),
      adminToken: config.ADMIN_TOKEN,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      isReady: () => !m.nc.isClosed() && l.ready,
      logger,
    });
    await app.listen({ host: config.HOST, port: config.PORT });
    let closing = false;
    const shutdown = (signal: string) => {
      if (closing) return;
      closing = true;
      logger.info({ signal }, 'shutting down');
      void (async () => {
        await app.close().catch(() => undefined);
        retention.stop();
        await l.stop().catch(() => undefined);
        await m.close().catch(() => undefined);
        await flushTelemetry();
        process.exit(0);
      })();
    };
    process.on('SIGTERM', () => shutdown('SIGTERM'));
    process.on('SIGINT', () => shutdown('SIGINT'));
  } catch (err) {
    logger.fatal({ err }, 'admin API failed to start');
    await log?.stop().catch(() => undefined);
    await messaging?.close().catch(() => undefined);
    process.exit(1);
  }
}

await main();
