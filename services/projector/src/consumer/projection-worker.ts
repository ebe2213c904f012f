import { DataEvent, DATA_STREAM, type ChangeRecord } from '@cds/contracts';
import {
  schemaDecoder,
  streamSpec,
  type AttemptContext,
  type Messaging,
  type PoisonMessageError,
  type PulledMessage,
  type RunningConsumer,
  type StallReport,
} from '@cds/messaging';
import { projectedSubject } from '@cds/read-models';
import { createReadModelStore } from '@cds/store';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import type { ProjectorMetrics } from '../metrics.ts';
import type { ProjectedDoc, Projection } from '../projections/types.ts';
import { applyEvents, createDocCache, DEFAULT_OPERATION_TIMEOUT_MS } from '../runner/apply-event.ts';
import { randomUUID } from 'node:crypto';
import {
  changeRecordOf,
  ChangeRecordsNotStoredError,
  DEFAULT_CHANGE_PUBLISH_TIMEOUT_MS,
  publishChangeRecords,
} from './change-records.ts';
import { createGapDetector } from './gap-detector.ts';
import { parkedEventOf, parkEvent } from './park.ts';

export interface ProjectionWorkerDeps {
  messaging: Messaging;
  db: Db;
  logger: Logger;
  metrics: ProjectorMetrics;
  clock: () => Date;
}

export interface ProjectionWorkerOptions {
  stream?: string;
  /** Durable consumer name. Default `projector-<projection>`. */
  durable?: string;
  ackWaitMs?: number;
  /** Messages pulled ahead of the handler. Default 256 (the consume loop's, libs/messaging). */
  batchSize?: number;
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
  /** FerretDB: guard compare-and-set with write claims (see FerretDbOptions in libs/store). Default true. */
  writeClaims?: boolean;
  /** Deadline of each database operation; a batch whose operation misses it is retried in place. Default 20 s. */
  operationTimeoutMs?: number;
  /**
   * The watchdog's N: no progress for this long while messages are pending is a stall (see
   * `consumeStream`). Default 60 s; keep it above `operationTimeoutMs`.
   */
  stallMs?: number;
  /** FerretDB: most update statements per command. Default FERRETDB_UPDATES_PER_COMMAND (libs/store). */
  maxUpdatesPerCommand?: number;
  /** Replicas of `CDS_CHANGES`, which a recording projection (series, cot) ensures at start. Default 1. */
  changesReplicas?: number;
  /** Deadline of each change record's publish (the stream's acknowledgement). Default 5 s. */
  changePublishTimeoutMs?: number;
}

/** The worker's watchdog state, for /healthz. */
export interface WorkerStall {
  report: StallReport;
  /** When the stall was found (ms since the epoch). */
  sinceMs: number;
  /** Recovery did not bring progress back within the stall time: the process should restart. */
  recoveryFailed: boolean;
}

export interface ProjectionWorker {
  readonly projection: string;
  /** True while the consumer is pulling. */
  running(): boolean;
  /** The stall the watchdog is dealing with, if any. */
  stall(): WorkerStall | undefined;
  stop(): Promise<void>;
  readonly done: Promise<void>;
}

/** A payload as a data event, or the reason it fails the data-event contract (the consumer parks it). */
export const decodeDataEvent = schemaDecoder(DataEvent);

/**
 * Runs one projection over its durable pull consumer on the data stream: in delivery order, ack
 * after the write, transient errors retried in place (`consumeStream`, libs/messaging), events
 * failing their schema parked and termed, sequence gaps counted, and a `projected` notification
 * published on core NATS after every applied event.
 *
 * A projection with `changeOf` (series, cot) also records every change on `CDS_CHANGES`: after the
 * write and before the handler returns (so before the ack), one `ChangeRecord` per event that
 * changed the read model or that a stored document already reflects (`reflected`: applied by an
 * attempt whose records may not have reached the stream), published with JetStream and awaited.
 * A failed publish fails the attempt, which is retried in place; the record ids are stable, so what
 * an earlier attempt stored is stored once. A reflected event counts only while the stream may
 * still hold its record, within `CDS_CHANGES`' duplicate window of the event's storage: an older
 * one (a new durable replaying history over an existing read model) would notify an old change
 * again as new.
 */
export async function startProjectionWorker<D extends ProjectedDoc>(
  deps: ProjectionWorkerDeps,
  projection: Projection<D>,
  opts: ProjectionWorkerOptions = {},
): Promise<ProjectionWorker> {
  const { messaging, db, metrics } = deps;
  const stream = opts.stream ?? DATA_STREAM;
  const durable = opts.durable ?? `projector-${projection.name}`;
  const log = deps.logger.child({ projection: projection.name, durable });
  const stats = metrics.of(projection.name);
  const ackWaitMs = opts.ackWaitMs ?? 30_000;
  const operationTimeoutMs = opts.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
  const stallMs = opts.stallMs ?? 60_000;
  const deadline = { timeoutMs: operationTimeoutMs };

  const recordsChanges = projection.changeOf !== undefined;
  const changesSpec = streamSpec('changes', { replicas: opts.changesReplicas ?? 1 });
  const changePublishTimeoutMs = opts.changePublishTimeoutMs ?? DEFAULT_CHANGE_PUBLISH_TIMEOUT_MS;
  if (recordsChanges) await messaging.ensureStream(changesSpec);
  // A publish failed: the next attempt makes sure the stream is there (created or aligned) first.
  let ensureChangesStream = false;

  const info = await messaging.ensureConsumer({
    stream,
    durable,
    filterSubject: projection.filterSubject,
    ackWaitMs,
    maxAckPending: 1_000,
  });
  const gaps = createGapDetector({ jsm: messaging.jsm, stream });
  let lastSeq = info.ack_floor.stream_seq;
  // Highest sequence already checked for gaps (a retried batch is not counted twice).
  let gapCheckedTo = lastSeq;
  const store = createReadModelStore(db, {
    timeoutMs: operationTimeoutMs,
    owner: `${projection.name}:${randomUUID()}`,
    ferretdb: {
      ...(opts.writeClaims !== undefined ? { writeClaims: opts.writeClaims } : {}),
      ...(opts.maxUpdatesPerCommand !== undefined ? { maxUpdatesPerCommand: opts.maxUpdatesPerCommand } : {}),
    },
  });
  let activeCollection = '';
  let cache = createDocCache<D>();

  const handler = async (batch: PulledMessage<DataEvent>[], attempt: AttemptContext): Promise<void> => {
    const limits = { timeoutMs: operationTimeoutMs, signal: attempt.signal, onAnswer: attempt.progress };
    const events: { event: DataEvent; position: number; storedAtMs: number }[] = [];
    let prev = lastSeq;
    stats.behindSinceMs ??= batch[0]!.storedAtMs;
    // Poison (not JSON, failing the schema) is parked and termed by the loop after this batch.
    for (const msg of batch) {
      if (msg.value !== undefined) events.push({ event: msg.value, position: msg.seq, storedAtMs: msg.storedAtMs });
    }
    for (const msg of batch) {
      const lost = await gaps.check(prev, msg.seq);
      attempt.signal.throwIfAborted();
      if (lost > 0 && msg.seq > gapCheckedTo) {
        stats.gaps += lost;
        log.error({ after: prev, seq: msg.seq, lost }, 'stream gap: messages deleted before delivery');
      }
      prev = Math.max(prev, msg.seq);
    }
    gapCheckedTo = Math.max(gapCheckedTo, prev);
    if (events.length > 0) {
      const target = await store.active<D>(projection.name, limits);
      if (target.collection !== activeCollection) {
        activeCollection = target.collection;
        cache = createDocCache<D>();
      }
      const res = await applyEvents(target, projection, events, { cache, limits });
      stats.events.applied += res.changedBy.size;
      stats.events.ignored += events.length - res.changedBy.size;
      stats.documents += res.written;
      stats.conflicts += res.conflicts;
      const notify = new Map<string, number>();
      for (const { event, position } of events) {
        if (!res.changedBy.has(position)) continue;
        const commodity = projection.commodityOf(event);
        notify.set(commodity, Math.max(notify.get(commodity) ?? 0, position));
      }
      for (const [commodity, position] of notify) {
        messaging.nc.publish(projectedSubject(projection.name, commodity), JSON.stringify({ position }));
      }
      // After the announcements (the caches drop the old answers before a notified client asks).
      if (recordsChanges) await recordChanges(events, res, attempt);
    }
    lastSeq = Math.max(lastSeq, prev);
    stats.lastPosition = lastSeq;
    stats.pending = batch.at(-1)!.pending;
    // The next unapplied event is newer than the last of this batch: its time bounds the lag.
    stats.behindSinceMs = stats.pending === 0 ? undefined : batch.at(-1)!.storedAtMs;
  };

  // The change records of a batch's events that changed the read model now (`changedBy`) or did
  // before (`reflected`, within the duplicate window), published and awaited; throws unless all stored.
  const recordChanges = async (
    events: readonly { event: DataEvent; position: number; storedAtMs: number }[],
    res: { changedBy: ReadonlySet<number>; reflected: ReadonlySet<number> },
    attempt: AttemptContext,
  ): Promise<void> => {
    const landedAt = deps.clock();
    const changes = new Map<string, ChangeRecord>();
    for (const { event, position, storedAtMs } of events) {
      const applied =
        res.changedBy.has(position) ||
        (res.reflected.has(position) && landedAt.getTime() - storedAtMs < changesSpec.duplicateWindowMs);
      if (!applied) continue;
      const record = changeRecordOf(projection, event, landedAt);
      if (record !== undefined && !changes.has(record.id)) changes.set(record.id, record);
    }
    if (changes.size === 0) return;
    if (ensureChangesStream) {
      await messaging.ensureStream(changesSpec);
      ensureChangesStream = false;
      attempt.signal.throwIfAborted();
    }
    const out = await publishChangeRecords(messaging, [...changes.values()], changePublishTimeoutMs);
    attempt.progress();
    for (const outcome of ['stored', 'duplicate'] as const) {
      const counts = stats.changeRecords[outcome];
      for (const r of out[outcome]) counts.set(r.topic, (counts.get(r.topic) ?? 0) + 1);
    }
    if (out.failed.length > 0) {
      stats.changeFailures += out.failed.length;
      ensureChangesStream = true;
      const [first] = out.failed;
      throw new ChangeRecordsNotStoredError(
        `${out.failed.length} of ${changes.size} change records not stored on ${changesSpec.name} (first ${first!.record.id}): ${String(first!.err)}`,
        { cause: first!.err },
      );
    }
    log.debug({ stored: out.stored.length, duplicate: out.duplicate.length }, 'change records published');
  };

  const onPoison = async (err: PoisonMessageError, msg: PulledMessage): Promise<void> => {
    await parkEvent(messaging, db, parkedEventOf(projection.name, stream, err, msg, deps.clock()), deadline);
    stats.parked += 1;
    log.warn({ seq: msg.seq, subject: msg.subject, reason: err.message }, 'event parked');
  };

  let isRunning = true;
  const consumer: RunningConsumer = await messaging.consume({
    stream,
    mode: { kind: 'durable', durable },
    decode: decodeDataEvent,
    handler,
    ackWaitMs,
    ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
    retry: opts.retry ?? { initialDelayMs: 100, maxDelayMs: 5_000 },
    onError: (err, batch, attempt) => {
      stats.retries += 1;
      log.warn({ err, from: batch[0]?.seq, to: batch.at(-1)?.seq, attempt }, 'transient failure; retrying in place');
    },
    onPoison,
    onReopen: (reason) => log.warn({ reason }, 'reopening the pull'),
    watchdog: {
      stallMs,
      onStall: (stuck) => {
        stats.stalls += 1;
        log.error(
          { stuck },
          stuck.phase === 'handling'
            ? 'projection stalled in a batch: aborting the attempt and retrying it'
            : 'projection stalled waiting for pending messages: reopening the pull',
        );
      },
      onRecoveryFailed: (stuck) => {
        stats.stallRecoveryFailures += 1;
        log.fatal({ stuck, stallMs }, 'projection still stalled after recovery: /healthz fails');
      },
      onRecovered: (stuck, stalledForMs) => log.warn({ phase: stuck.phase, stalledForMs }, 'projection moving again'),
    },
  });
  const done = consumer.done.finally(() => {
    isRunning = false;
  });
  done.catch((err: unknown) => log.error({ err }, 'consumer stopped with an error'));
  log.info({ from: lastSeq }, 'projection consumer started');
  return {
    projection: projection.name,
    running: () => isRunning,
    stall: () => consumer.stall(),
    done,
    stop: async () => {
      await consumer.stop();
      isRunning = false;
    },
  };
}
