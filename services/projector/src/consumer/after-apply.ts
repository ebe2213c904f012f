import type { DataEvent } from '@cds/contracts';
import type { AttemptContext } from '@cds/messaging';
import { projectedSubject } from '@cds/read-models';
import type { ProjectedDoc, Projection } from '../projections/types.ts';
import type { BatchApplyResult } from '../runner/apply-event.ts';

/** An event of a batch with its stream position and when the stream stored it. */
export interface ReceivedEvent {
  event: DataEvent;
  position: number;
  storedAtMs: number;
}

/** A batch's events and what applying them did. */
export interface AppliedBatch {
  events: readonly ReceivedEvent[];
  result: Pick<BatchApplyResult, 'changedBy' | 'reflected' | 'writtenDocs'>;
}

/**
 * A reactor run after a batch was applied and before it is acknowledged, in the order the worker
 * lists them; a throw fails the attempt, which is retried in place.
 */
export type AfterApply = (applied: AppliedBatch, attempt: AttemptContext) => Promise<void> | void;

/**
 * The `projected` notice on core NATS: per commodity whose read model an event of the batch
 * changed, the highest such position (the response caches drop that commodity's answers).
 */
export function projectedNotices(
  nc: { publish(subject: string, data: string): void },
  projection: Pick<Projection<ProjectedDoc>, 'name' | 'commodityOf'>,
): AfterApply {
  return ({ events, result }) => {
    const notify = new Map<string, number>();
    for (const { event, position } of events) {
      if (!result.changedBy.has(position)) continue;
      const commodity = projection.commodityOf(event);
      notify.set(commodity, Math.max(notify.get(commodity) ?? 0, position));
    }
    for (const [commodity, position] of notify) {
      nc.publish(projectedSubject(projection.name, commodity), JSON.stringify({ position }));
    }
  };
}
