import type { DataEvent } from '@cds/contracts';
import type { AttemptContext, PulledMessage } from '@cds/messaging';
import type { ReadModelStore } from '@cds/store';
import type { ProjectedDoc, Projection } from '../projections/types.ts';
import { applyEvents, createDocCache } from '../runner/apply-event.ts';
import type { AfterApply, ReceivedEvent } from './after-apply.ts';
import type { BatchGapCheck } from './gap-detector.ts';
import type { ProjectionObserver } from './observer.ts';

export interface ProjectionProcessorDeps<D extends ProjectedDoc> {
  projection: Projection<D>;
  store: Pick<ReadModelStore, 'active'>;
  gaps: BatchGapCheck;
  observer: ProjectionObserver;
  /** Run after each applied batch, in order, before the handler returns (so before the ack). */
  reactors: readonly AfterApply[];
  /** Deadline of each database operation. */
  operationTimeoutMs: number;
  /** The consumer's acknowledged floor: the position the processor starts from. */
  from: number;
  /** The apply (tests give another). Default `applyEvents` (runner/apply-event.ts). */
  apply?: typeof applyEvents<D>;
}

export interface ProjectionProcessor {
  /** The consume loop's handler: one batch, in delivery order. */
  handle(batch: PulledMessage<DataEvent>[], attempt: AttemptContext): Promise<void>;
  /** The last stream position handled. */
  position(): number;
}

/**
 * One projection's batch handler: checks the batch's sequences for gaps, applies its events
 * (skipping poison, which the loop parks after the batch) to the read model's active collection,
 * then runs the after-apply reactors and advances its position. The document cache starts afresh
 * when a rebuild swaps the active collection.
 */
export function createProjectionProcessor<D extends ProjectedDoc>(
  deps: ProjectionProcessorDeps<D>,
): ProjectionProcessor {
  const { projection, store, gaps, observer, reactors } = deps;
  const apply = deps.apply ?? applyEvents;
  let lastSeq = deps.from;
  let activeCollection = '';
  let cache = createDocCache<D>();
  return {
    position: () => lastSeq,
    async handle(batch, attempt) {
      const limits = { timeoutMs: deps.operationTimeoutMs, signal: attempt.signal, onAnswer: attempt.progress };
      const events: ReceivedEvent[] = [];
      observer.batchStarted(batch[0]!);
      for (const msg of batch) {
        if (msg.value !== undefined) events.push({ event: msg.value, position: msg.seq, storedAtMs: msg.storedAtMs });
      }
      const seqs = batch.map((msg) => msg.seq);
      const prev = await gaps.check(lastSeq, seqs, attempt.signal, (gap) => observer.gap(gap));
      if (events.length > 0) {
        const target = await store.active<D>(projection.name, limits);
        if (target.collection !== activeCollection) {
          activeCollection = target.collection;
          cache = createDocCache<D>();
        }
        const result = await apply(target, projection, events, { cache, limits });
        observer.applied(events.length, result);
        // Notices before change records: the caches drop the old answers before a notified client asks.
        const reacting = performance.now();
        for (const react of reactors) await react({ events, result }, attempt);
        observer.reacted(performance.now() - reacting);
      }
      lastSeq = Math.max(lastSeq, prev);
      observer.batchDone(lastSeq, batch.at(-1)!);
    },
  };
}
