import { randomUUID } from 'node:crypto';
import { DataEvent, DATA_STREAM } from '@cds/contracts';
import { schemaDecoder, streamSpec, type Messaging, type RunningConsumer, type StallReport } from '@cds/messaging';
import { createReadModelStore } from '@cds/store';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { createReleaseLedger } from '../ledger/recorder.ts';
import type { ProjectorMetrics } from '../metrics.ts';
import type { ProjectedDoc, Projection } from '../projections/types.ts';
import { DEFAULT_OPERATION_TIMEOUT_MS } from '../runner/apply-event.ts';
import { projectedNotices, type AfterApply } from './after-apply.ts';
import { createChangeRecorder } from './change-recorder.ts';
import { createCotCheckRecorder } from './cot-checks.ts';
import { supplyDemandCheckFindings } from './supply-demand-checks.ts';
import { DEFAULT_CHANGE_PUBLISH_TIMEOUT_MS } from './change-records.ts';
import { createBatchGapCheck, createGapDetector } from './gap-detector.ts';
import { createProjectionObserver } from './observer.ts';
import { parkedEventOf, parkEvent } from './park.ts';
import { createProjectionProcessor } from './processor.ts';

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
  /** Most messages pulled ahead of the handler and handled as one batch. Default DEFAULT_PROJECTION_BATCH. */
  batchSize?: number;
  /** Most event bytes handled as one batch. Default DEFAULT_PROJECTION_BATCH_BYTES. */
  batchBytes?: number;
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
  /** cot, supply_demand: the KV bucket of the consistency failures. Default COT_CHECKS_BUCKET (tests give their own). */
  cotChecksBucket?: string;
  /** cot, supply_demand: deadline of each operation on that bucket. Default 5 s. */
  cotChecksTimeoutMs?: number;
  /** The release ledger's bucket (default RELEASES_BUCKET), write interval (default 1 s) and deadline per operation (default 5 s). */
  ledger?: { bucket?: string; flushMs?: number; timeoutMs?: number };
}

/**
 * A batch is what is already buffered, up to this many messages (as many as the consumer may
 * have unacknowledged). Only a projection that is behind gets big batches, and then each document
 * is written once for all the events of the batch that touch it: a backfill over 160 buckets
 * writes about 160 documents for 1,000 events instead of for 256 (issue #37).
 */
export const DEFAULT_PROJECTION_BATCH = 1_000;

/**
 * Most event bytes in one batch unless a projection sets its own (Projection.batchBytes): what a
 * batch holds in memory (its events, the buckets they touch and their counterparts, the writes)
 * grows with its events' size. 1,000 events of the series bench are some 1.5 MB.
 */
export const DEFAULT_PROJECTION_BATCH_BYTES = 4 * 1024 * 1024;

/** Unacknowledged messages a projection's consumer may have: a batch being handled and the next one, delivered meanwhile. */
export const PROJECTION_MAX_ACK_PENDING = 2 * DEFAULT_PROJECTION_BATCH;

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
 * published on core NATS after every applied event. The parts: the processor (processor.ts: gap
 * check, apply, position), the after-apply reactors (after-apply.ts: projected notices;
 * ledger/recorder.ts: the release ledger, what each batch first served per dataset;
 * cot-checks.ts: the cot and supply_demand projections' consistency failures metrics and KV bucket
 * (supply-demand-checks.ts: the balance sheets' findings); change-recorder.ts:
 * change records) and the observer (observer.ts: statistics and logs).
 *
 * A projection with `changeOf` (series, cot, supply_demand) also records every change on `CDS_CHANGES`: after the
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
  const { messaging, db } = deps;
  const stream = opts.stream ?? DATA_STREAM;
  const durable = opts.durable ?? `projector-${projection.name}`;
  const log = deps.logger.child({ projection: projection.name, durable });
  const observer = createProjectionObserver(deps.metrics.of(projection.name), log);
  const ackWaitMs = opts.ackWaitMs ?? 30_000;
  const operationTimeoutMs = opts.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
  const stallMs = opts.stallMs ?? 60_000;

  // The release ledger: kept by the projections whose read models serve the data (series, cot,
  // supply_demand: the ones recording changes), not the catalog, which sees every event too. It
  // records in memory (it never fails a batch) and writes its bucket on a timer.
  const ledger =
    projection.changeOf === undefined
      ? undefined
      : createReleaseLedger({
          messaging,
          stats: deps.metrics.of(projection.name),
          clock: deps.clock,
          log,
          replicas: opts.changesReplicas ?? 1,
          ...(opts.ledger?.bucket !== undefined ? { bucket: opts.ledger.bucket } : {}),
          ...(opts.ledger?.flushMs !== undefined ? { flushMs: opts.ledger.flushMs } : {}),
          timeoutMs: opts.ledger?.timeoutMs ?? 5_000,
        });
  const reactors: AfterApply[] = [projectedNotices(messaging.nc, projection)];
  if (ledger !== undefined) reactors.push(ledger.record);
  if (projection.name === 'cot' || projection.name === 'supply_demand') {
    // Before the change records: it never fails, and a retried batch (a record not stored) folds to
    // nothing, so it would not see the batch's reports again.
    const stats = deps.metrics.of(projection.name);
    reactors.push(
      createCotCheckRecorder({
        messaging,
        stats,
        ...(projection.name === 'cot'
          ? { failures: stats.cotCheckFailures }
          : { failures: stats.supplyDemandCheckFailures, findings: supplyDemandCheckFindings }),
        clock: deps.clock,
        log,
        replicas: opts.changesReplicas ?? 1,
        ...(opts.cotChecksBucket !== undefined ? { bucket: opts.cotChecksBucket } : {}),
        timeoutMs: opts.cotChecksTimeoutMs ?? 5_000,
      }),
    );
  }
  if (projection.changeOf !== undefined) {
    const changesSpec = streamSpec('changes', { replicas: opts.changesReplicas ?? 1 });
    await messaging.ensureStream(changesSpec);
    const publishTimeoutMs = opts.changePublishTimeoutMs ?? DEFAULT_CHANGE_PUBLISH_TIMEOUT_MS;
    reactors.push(createChangeRecorder({ ...deps, projection, changesSpec, publishTimeoutMs, observer, log }));
  }

  const info = await messaging.ensureConsumer({
    stream,
    durable,
    filterSubject: projection.filterSubject,
    ackWaitMs,
    maxAckPending: PROJECTION_MAX_ACK_PENDING,
  });
  const from = info.ack_floor.stream_seq;
  const processor = createProjectionProcessor({
    projection,
    store: createReadModelStore(db, {
      timeoutMs: operationTimeoutMs,
      owner: `${projection.name}:${randomUUID()}`,
      ferretdb: {
        ...(opts.writeClaims !== undefined ? { writeClaims: opts.writeClaims } : {}),
        ...(opts.maxUpdatesPerCommand !== undefined ? { maxUpdatesPerCommand: opts.maxUpdatesPerCommand } : {}),
      },
    }),
    gaps: createBatchGapCheck(createGapDetector({ jsm: messaging.jsm, stream }), from),
    observer,
    reactors,
    operationTimeoutMs,
    from,
  });

  const deadline = { timeoutMs: operationTimeoutMs };
  let isRunning = true;
  const consumer: RunningConsumer = await messaging.consume({
    stream,
    mode: { kind: 'durable', durable },
    decode: decodeDataEvent,
    handler: (batch, attempt) => processor.handle(batch, attempt),
    ackWaitMs,
    batchSize: opts.batchSize ?? DEFAULT_PROJECTION_BATCH,
    maxBatch: opts.batchSize ?? DEFAULT_PROJECTION_BATCH,
    maxBatchBytes: opts.batchBytes ?? projection.batchBytes ?? DEFAULT_PROJECTION_BATCH_BYTES,
    retry: opts.retry ?? { initialDelayMs: 100, maxDelayMs: 5_000 },
    onError: (err, batch, attempt) => observer.retry(err, batch, attempt),
    // Poison (not JSON, failing the schema) is parked and termed by the loop after its batch.
    onPoison: async (err, msg) => {
      await parkEvent(messaging, db, parkedEventOf(projection.name, stream, err, msg, deps.clock()), deadline);
      observer.parked(msg, err.message);
    },
    onReopen: (reason) => observer.reopen(reason),
    watchdog: {
      stallMs,
      onStall: (stuck) => observer.stall(stuck),
      onRecoveryFailed: (stuck) => observer.recoveryFailed(stuck, stallMs),
      onRecovered: (stuck, stalledForMs) => observer.recovered(stuck, stalledForMs),
    },
  });
  const done = consumer.done.finally(() => {
    isRunning = false;
  });
  done.catch((err: unknown) => log.error({ err }, 'consumer stopped with an error'));
  log.info({ from }, 'projection consumer started');
  return {
    projection: projection.name,
    running: () => isRunning,
    stall: () => consumer.stall(),
    done,
    stop: async () => {
      await consumer.stop();
      isRunning = false;
      await ledger?.close();
    },
  };
}
