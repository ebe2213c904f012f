import { DATA_STREAM, type DataEvent } from '@cds/contracts';
import type { Messaging, PoisonMessageError, PulledMessage } from '@cds/messaging';
import { ALIAS_CACHE_MS, type ReadModelAliasDoc } from '@cds/read-models';
import { aliasesCollection, createReadModelStore, readActiveCollection, withDeadline } from '@cds/store';
import type { Db } from 'mongodb';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { decodeDataEvent } from '../consumer/projection-worker.ts';
import { parkedEventOf, parkEvent } from '../consumer/park.ts';
import type { ProjectedDoc, Projection } from '../projections/types.ts';
import { applyEvent, DEFAULT_OPERATION_TIMEOUT_MS } from '../runner/apply-event.ts';
import { randomUUID } from 'node:crypto';

export interface RebuildDeps {
  messaging: Messaging;
  db: Db;
  logger: Logger;
  clock: () => Date;
}

export interface RebuildOptions {
  stream?: string;
  /** How long the previous collection stays readable after the swap before it is dropped. Default 5 s. */
  graceMs?: number;
  /** Keep the previous collection instead of dropping it. */
  keepPrevious?: boolean;
  /** Messages the ordered consumer buffers. Default 500. */
  fetchSize?: number;
  /**
   * How long the replay may receive nothing while messages the projection's filter matched are still
   * to come before the rebuild fails (the live read model untouched). Default 60 s.
   */
  stallMs?: number;
  /** See ProjectionWorkerOptions.writeClaims. */
  writeClaims?: boolean;
}

export interface RebuildReport {
  projection: string;
  previous: string;
  collection: string;
  events: number;
  applied: number;
  parked: number;
  /** Last stream sequence applied before the swap, and after the final catch-up. */
  swappedAt: number;
  lastSeq: number;
  dropped: boolean;
}

/**
 * Rebuilds a read model without downtime: replays the stream from sequence 1 through an ephemeral
 * ordered consumer into a fresh collection (`<name>_rebuild_<ms>`), swaps the `read_model_aliases`
 * pointer to it, waits until every reader and the live projector follow the pointer (they cache
 * it for at most ALIAS_CACHE_MS), replays what the live projector may still have written to the
 * old collection, and finally drops the old collection after a grace period. The live projector
 * may keep running throughout: both write with compare-and-set, and the reducers are idempotent
 * and order-independent per part, so the two converge.
 */
export async function rebuildProjection<D extends ProjectedDoc>(
  deps: RebuildDeps,
  projection: Projection<D>,
  opts: RebuildOptions = {},
): Promise<RebuildReport> {
  const { messaging, db } = deps;
  const stream = opts.stream ?? DATA_STREAM;
  const log = deps.logger.child({ projection: projection.name, rebuild: true });
  const deadline = { timeoutMs: DEFAULT_OPERATION_TIMEOUT_MS };
  // The live projector may write the new collection concurrently after the swap: compare-and-set
  // (with write claims on FerretDB) keeps the two apart.
  const store = createReadModelStore(db, {
    timeoutMs: DEFAULT_OPERATION_TIMEOUT_MS,
    owner: `rebuild:${projection.name}:${randomUUID()}`,
    ferretdb: opts.writeClaims === undefined ? {} : { writeClaims: opts.writeClaims },
  });
  const previous = await readActiveCollection(db, projection.name, deadline);
  const target = `${projection.name}_rebuild_${deps.clock().getTime()}`;
  const collection = await store.collection<D>(projection.name, target);
  const report: RebuildReport = {
    projection: projection.name,
    previous,
    collection: target,
    events: 0,
    applied: 0,
    parked: 0,
    swappedAt: 0,
    lastSeq: 0,
    dropped: false,
  };

  const stallMs = opts.stallMs ?? 60_000;
  let lastMessageAt = Date.now();
  /** Distinct stream sequences the replay delivered (an ordered consumer's reset never counts one twice). */
  let delivered = 0;

  // The replay runs in the background from sequence 1 (an ordered follow of libs/messaging, which
  // parses each event once and hands poison to `onPoison`); `drain` waits for it to deliver a count.
  // A failed write ends it (no retries: the rebuild fails, the live read model is untouched).
  const replay = await messaging.consume<DataEvent>({
    stream,
    mode: { kind: 'ordered', filterSubject: projection.filterSubject },
    decode: decodeDataEvent,
    batchSize: opts.fetchSize ?? 500,
    retry: { maxAttempts: 1 },
    handler: async (batch) => {
      for (const m of batch) {
        report.events++;
        if (m.seq > report.lastSeq) {
          delivered++;
          report.lastSeq = m.seq;
        }
        lastMessageAt = Date.now();
        if (m.value === undefined) continue;
        const res = await applyEvent(collection, projection, m.value, m.seq);
        if (res.outcome === 'applied') report.applied++;
        log.trace({ seq: m.seq }, 'replayed');
      }
    },
    onPoison: async (err: PoisonMessageError, m: PulledMessage) => {
      await parkEvent(messaging, db, parkedEventOf(projection.name, stream, err, m, deps.clock()));
      report.parked++;
    },
  });
  let failure: Error | undefined;
  replay.done.catch((err: unknown) => (failure = err instanceof Error ? err : new Error(String(err))));

  /**
   * The messages of the stream the projection's filter matches now, by the stream's count per
   * subject. The replay is complete once it delivered that many: a rule of "nothing arrived for a
   * while" took a slow first delivery (a NATS cluster just healed, a busy machine) for an empty filter,
   * and swapped an empty read model in.
   */
  const matchingNow = async (): Promise<number> => {
    const info = await messaging.jsm.streams.info(stream, { subjects_filter: projection.filterSubject });
    return Object.values(info.state.subjects ?? {}).reduce((sum, n) => sum + n, 0);
  };
  // Waits until the replay delivered `count` messages; throws if it failed, or if it received nothing
  // for `stallMs` meanwhile.
  const drain = async (count: number): Promise<void> => {
    lastMessageAt = Date.now();
    while (delivered < count) {
      if (failure !== undefined) throw failure;
      if (Date.now() - lastMessageAt >= stallMs) {
        throw new Error(
          `the replay of ${stream} (${projection.filterSubject}) received nothing for ${stallMs} ms, ` +
            `${count - delivered} of ${count} messages still to come`,
        );
      }
      await sleep(25);
    }
    if (failure !== undefined) throw failure;
  };

  try {
    await drain(await matchingNow());
    report.swappedAt = report.lastSeq;
    const alias: ReadModelAliasDoc = {
      _id: projection.name,
      collection: target,
      swapped_at: deps.clock().toISOString(),
      position: report.swappedAt,
    };
    await withDeadline('swap the read-model alias', deadline, ({ maxTimeMS }) =>
      aliasesCollection(db).updateOne(
        { _id: projection.name },
        { $set: { collection: alias.collection, swapped_at: alias.swapped_at, position: alias.position } },
        { upsert: true, maxTimeMS },
      ),
    );
    log.info({ collection: target, position: report.swappedAt }, 'swapped read model');
    // Writers that resolved the old collection before the swap may still write there for up to
    // ALIAS_CACHE_MS; replay what reached the stream meanwhile into the new one.
    await sleep(2 * ALIAS_CACHE_MS + 250);
    await drain(await matchingNow());
    if (!(opts.keepPrevious ?? false) && previous !== target) {
      await sleep(opts.graceMs ?? 5_000);
      log.debug({ previous }, 'dropping previous collection');
      report.dropped = await store.drop(previous);
    }
  } finally {
    await replay.stop();
  }
  log.info(report, 'rebuild finished');
  return report;
}
