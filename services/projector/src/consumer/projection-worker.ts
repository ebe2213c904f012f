import { DataEvent, DATA_STREAM } from '@cds/contracts';
import { PoisonMessageError, type Messaging } from '@cds/messaging';
import { projectedSubject } from '@cds/read-models';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import type { ProjectorMetrics } from '../metrics.ts';
import type { ProjectedDoc, Projection } from '../projections/types.ts';
import { applyEvent, type WriteClaims } from '../runner/apply-event.ts';
import {
  createCollectionResolver,
  createWriteClaims,
  ensureReadModelIndexes,
  needsWriteClaims,
} from '../runner/collections.ts';
import { randomUUID } from 'node:crypto';
import { createGapDetector } from './gap-detector.ts';
import { parkEvent } from './park.ts';
import { startPullLoop, type PulledMessage, type RunningPullLoop } from './pull-loop.ts';

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
  /** Messages pulled ahead of the handler. Default 64. */
  batchSize?: number;
  retry?: { initialDelayMs?: number; maxDelayMs?: number };
  /**
   * Guard compare-and-set with write claims (needed on FerretDB 1.x, see `WriteClaims`).
   * Default: detected from the server.
   */
  writeClaims?: boolean;
}

export interface ProjectionWorker {
  readonly projection: string;
  /** True while the consumer is pulling. */
  running(): boolean;
  stop(): Promise<void>;
  readonly done: Promise<void>;
}

const decoder = new TextDecoder();

/** The reason a payload fails the data-event contract, or undefined when it passes. */
export function schemaFailure(data: unknown): { event: DataEvent } | { reason: string } {
  const parsed = DataEvent.safeParse(data);
  if (parsed.success) return { event: parsed.data };
  const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`);
  return { reason: `schema: ${issues.join('; ')}` };
}

/**
 * Runs one projection over its durable pull consumer on the data stream: in delivery order, ack
 * after the write, transient errors retried in place (`startPullLoop`), events
 * failing their schema parked and termed, sequence gaps counted, and a `projected` notification
 * published on core NATS after every applied event.
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

  const info = await messaging.ensureConsumer({
    stream,
    durable,
    filterSubject: projection.filterSubject,
    ackWaitMs,
    maxAckPending: 1_000,
  });
  const streamInfo = await messaging.jsm.streams.info(stream);
  const gaps = createGapDetector({
    jsm: messaging.jsm,
    stream,
    wholeStream: streamInfo.config.subjects.length === 1 && streamInfo.config.subjects[0] === projection.filterSubject,
  });
  let lastSeq = info.ack_floor.stream_seq;
  const resolver = createCollectionResolver<D>(db, projection.name);
  let indexedCollection = '';
  const useClaims = opts.writeClaims ?? (await needsWriteClaims(db));
  const owner = `${projection.name}:${randomUUID()}`;
  let claims: WriteClaims | undefined;

  const handler = async (msg: PulledMessage): Promise<void> => {
    let data: unknown;
    try {
      data = JSON.parse(decoder.decode(msg.data));
    } catch {
      throw new PoisonMessageError('payload is not valid JSON');
    }
    const checked = schemaFailure(data);
    if ('reason' in checked) throw new PoisonMessageError(checked.reason);
    const lost = await gaps.check(lastSeq, msg.seq);
    if (lost > 0) {
      stats.gaps += lost;
      log.error({ after: lastSeq, seq: msg.seq, lost }, 'stream gap: messages deleted before delivery');
    }
    const collection = await resolver.get();
    if (collection.collectionName !== indexedCollection) {
      await ensureReadModelIndexes(db, projection.name, collection.collectionName);
      indexedCollection = collection.collectionName;
      claims = useClaims ? createWriteClaims(db, collection.collectionName, owner) : undefined;
    }
    const res = await applyEvent(collection, projection, checked.event, msg.seq, claims ? { claims } : {});
    lastSeq = Math.max(lastSeq, msg.seq);
    stats.lastPosition = lastSeq;
    stats.pending = msg.pending;
    stats.events[res.outcome === 'applied' ? 'applied' : 'ignored'] += 1;
    stats.documents += res.written;
    stats.conflicts += res.conflicts;
    if (res.outcome === 'applied') {
      messaging.nc.publish(
        projectedSubject(projection.name, projection.commodityOf(checked.event)),
        JSON.stringify({ position: msg.seq, type: checked.event.type }),
      );
    }
  };

  const onPoison = async (err: PoisonMessageError, msg: PulledMessage): Promise<void> => {
    await parkEvent(messaging, db, {
      _id: `${projection.name}:${msg.seq}`,
      projection: projection.name,
      stream,
      stream_seq: msg.seq,
      subject: msg.subject,
      reason: err.message,
      payload: decoder.decode(msg.data),
      parked_at: deps.clock().toISOString(),
    });
    lastSeq = Math.max(lastSeq, msg.seq);
    stats.parked += 1;
    stats.lastPosition = lastSeq;
    stats.pending = msg.pending;
    log.warn({ seq: msg.seq, subject: msg.subject, reason: err.message }, 'event parked');
  };

  let isRunning = true;
  const consumer: RunningPullLoop = await startPullLoop(messaging, {
    stream,
    durable,
    handler,
    ackWaitMs,
    ...(opts.batchSize !== undefined ? { batchSize: opts.batchSize } : {}),
    retry: opts.retry ?? { initialDelayMs: 100, maxDelayMs: 5_000 },
    onError: (err, msg, attempt) => {
      stats.retries += 1;
      log.warn({ err, seq: msg.seq, attempt }, 'transient failure; retrying in place');
    },
    onPoison,
  });
  const done = consumer.done.finally(() => {
    isRunning = false;
  });
  done.catch((err: unknown) => log.error({ err }, 'consumer stopped with an error'));
  log.info({ from: lastSeq }, 'projection consumer started');
  return {
    projection: projection.name,
    running: () => isRunning,
    done,
    stop: async () => {
      await consumer.stop();
      isRunning = false;
    },
  };
}
