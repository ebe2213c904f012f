import { SYNC_BUCKET, SYNC_SOURCE_NAMES, SourceSyncStatus, type SyncSourceName } from '@cds/contracts';
import { consumeStream, followOptions, syncBucketSpec, type PulledMessage } from '@cds/messaging';
import type { Logger } from '@cds/telemetry';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';

/** The last known sync status of each source, as `ingest sync` wrote it to the KV bucket. */
export interface SyncStateView {
  get(source: SyncSourceName): SourceSyncStatus | undefined;
  /** Increases on every change (lets readers cache what they derive from the states). */
  version(): number;
}

export interface SyncStateFollower extends SyncStateView {
  stop(): Promise<void>;
}

const SOURCES = new Set<string>(SYNC_SOURCE_NAMES);
const decoder = new TextDecoder();

/**
 * Follows the per-source keys (`cftc`, `eia`, `nass`) of the sync state bucket into memory, so
 * GET /status never waits on NATS. The bucket's stream is followed with an ordered consume of
 * libs/messaging (its watchdog recreates the consumer after a stall, reconnects), from its first message:
 * the bucket keeps one value per key, so a replay is short; cursor keys are skipped. The bucket is
 * created (with ingest's settings) when this gateway starts before any sync.
 */
export async function followSyncState(opts: {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  replicas: number;
  bucket?: string;
  onChange?: (source: SyncSourceName, status: SourceSyncStatus | undefined) => void;
}): Promise<SyncStateFollower> {
  const bucket = opts.bucket ?? SYNC_BUCKET;
  const stream = `KV_${bucket}`;
  const exists = await opts.jsm.streams.info(stream).then(
    () => true,
    () => false,
  );
  if (!exists) await new Kvm(opts.js).create(...syncBucketSpec({ bucket, replicas: opts.replicas }));

  const states = new Map<SyncSourceName, SourceSyncStatus>();
  let version = 0;
  const prefix = `$KV.${bucket}.`;
  const apply = (m: PulledMessage): void => {
    const key = m.subject.slice(prefix.length);
    if (!m.subject.startsWith(prefix) || !SOURCES.has(key)) return;
    const source = key as SyncSourceName;
    const operation = m.headers?.get('KV-Operation');
    let next: SourceSyncStatus | undefined;
    if (operation === 'DEL' || operation === 'PURGE') {
      next = undefined;
    } else {
      let parsed: unknown;
      try {
        parsed = JSON.parse(decoder.decode(m.data));
      } catch {
        parsed = undefined;
      }
      const status = SourceSyncStatus.safeParse(parsed);
      if (!status.success || status.data.source !== source) {
        opts.logger.error({ seq: m.seq, key }, 'sync status failed its schema; kept the previous one');
        return;
      }
      next = status.data;
    }
    if (next === undefined) states.delete(source);
    else states.set(source, next);
    version += 1;
    opts.onChange?.(source, next);
  };
  // KV entries are not event envelopes (a delete has no payload): each is read by its operation
  // here, without the consumer's decode.
  const follower = await consumeStream(
    { nc: opts.nc, js: opts.js, jsm: opts.jsm },
    {
      ...followOptions(opts.logger, stream),
      handler: (batch) => batch.forEach(apply),
    },
  );

  return {
    get: (source) => states.get(source),
    version: () => version,
    stop: () => follower.stop(),
  };
}
