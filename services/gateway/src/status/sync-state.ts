import {
  SourceErrorDay,
  sourceErrorKey,
  SYNC_BUCKET,
  SYNC_SOURCE_NAMES,
  SourceSyncStatus,
  type SyncSourceName,
} from '@cds/contracts';
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

/** The days a source's sync failed (`errors.<source>.<date>` keys), by New York date. */
export interface SourceErrorsView {
  errorDays(source: SyncSourceName): ReadonlyMap<string, SourceErrorDay>;
  /** Increases on every change of an error day. */
  errorsVersion(): number;
}

/** Most error days kept per source (the newest dates; GET /datasets shows 90). */
export const ERROR_DAYS_KEPT = 400;

export interface SyncStateFollower extends SyncStateView, SourceErrorsView {
  stop(): Promise<void>;
}

const SOURCES = new Set<string>(SYNC_SOURCE_NAMES);
const decoder = new TextDecoder();
const ERROR_KEY = /^errors\.([a-z0-9_]+)\.(\d{4}-\d{2}-\d{2})$/;

/** The error days of every source, each source's bounded to its ERROR_DAYS_KEPT newest dates. */
export class SourceErrorDays implements SourceErrorsView {
  readonly #days = new Map<SyncSourceName, Map<string, SourceErrorDay>>();
  readonly #empty = new Map<string, SourceErrorDay>();
  #version = 0;

  errorDays(source: SyncSourceName): ReadonlyMap<string, SourceErrorDay> {
    return this.#days.get(source) ?? this.#empty;
  }

  errorsVersion(): number {
    return this.#version;
  }

  put(day: SourceErrorDay): void {
    let days = this.#days.get(day.source);
    if (days === undefined) {
      days = new Map();
      this.#days.set(day.source, days);
    }
    days.set(day.date, day);
    if (days.size > ERROR_DAYS_KEPT) {
      const oldest = [...days.keys()].sort()[0];
      if (oldest !== undefined) days.delete(oldest);
    }
    this.#version += 1;
  }

  delete(source: SyncSourceName, date: string): void {
    if (this.#days.get(source)?.delete(date) === true) this.#version += 1;
  }
}

function parseJson(data: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(data));
  } catch {
    return undefined;
  }
}

/**
 * Follows the per-source keys (each synced source's name) of the sync state bucket into memory, so
 * GET /status never waits on NATS, and the error days of each source (`errors.<source>.<date>`,
 * SourceErrorDay) for GET /datasets. The bucket's stream is followed with an ordered consume of
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
  const errors = new SourceErrorDays();
  let version = 0;
  const prefix = `$KV.${bucket}.`;
  const applyErrorDay = (m: PulledMessage, key: string, source: SyncSourceName, date: string): void => {
    const operation = m.headers?.get('KV-Operation');
    if (operation === 'DEL' || operation === 'PURGE') {
      errors.delete(source, date);
      return;
    }
    const day = SourceErrorDay.safeParse(parseJson(m.data));
    if (!day.success || sourceErrorKey(day.data.source, day.data.date) !== key) {
      opts.logger.error({ seq: m.seq, key }, 'sync error day failed its schema or its key; skipped');
      return;
    }
    errors.put(day.data);
  };
  const apply = (m: PulledMessage): void => {
    if (!m.subject.startsWith(prefix)) return;
    const key = m.subject.slice(prefix.length);
    const errorKey = ERROR_KEY.exec(key);
    if (errorKey !== null && SOURCES.has(errorKey[1]!)) {
      applyErrorDay(m, key, errorKey[1] as SyncSourceName, errorKey[2]!);
      return;
    }
    if (!SOURCES.has(key)) return;
    const source = key as SyncSourceName;
    const operation = m.headers?.get('KV-Operation');
    let next: SourceSyncStatus | undefined;
    if (operation === 'DEL' || operation === 'PURGE') {
      next = undefined;
    } else {
      const status = SourceSyncStatus.safeParse(parseJson(m.data));
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
    errorDays: (source) => errors.errorDays(source),
    errorsVersion: () => errors.errorsVersion(),
    stop: () => follower.stop(),
  };
}
