import type { ChangeRecord } from '@cds/contracts';
import type { Messaging, streamSpec } from '@cds/messaging';
import type { Logger } from 'pino';
import type { ProjectedDoc, Projection } from '../projections/types.ts';
import type { AfterApply } from './after-apply.ts';
import { changeRecordOf, ChangeRecordsNotStoredError, publishChangeRecords } from './change-records.ts';
import type { ProjectionObserver } from './observer.ts';

export interface ChangeRecorderDeps<D extends ProjectedDoc> {
  messaging: Messaging;
  projection: Projection<D>;
  /** `CDS_CHANGES` as the worker ensured it at start (its duplicate window bounds `reflected`). */
  changesSpec: ReturnType<typeof streamSpec>;
  /** Deadline of each record's publish. */
  publishTimeoutMs: number;
  clock: () => Date;
  observer: ProjectionObserver;
  log: Logger;
}

/**
 * The change records of a batch's events that changed the read model now (`changedBy`) or did
 * before (`reflected`, within the stream's duplicate window of the event's storage), published
 * and awaited; throws ChangeRecordsNotStoredError unless all were stored. After a failed publish
 * the next attempt makes sure the stream is there (created or aligned) first.
 */
export function createChangeRecorder<D extends ProjectedDoc>(deps: ChangeRecorderDeps<D>): AfterApply {
  const { messaging, projection, changesSpec, observer } = deps;
  let ensureChangesStream = false;
  return async ({ events, result }, attempt) => {
    const landedAt = deps.clock();
    const changes = new Map<string, ChangeRecord>();
    for (const { event, position, storedAtMs } of events) {
      const applied =
        result.changedBy.has(position) ||
        (result.reflected.has(position) && landedAt.getTime() - storedAtMs < changesSpec.duplicateWindowMs);
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
    const out = await publishChangeRecords(messaging, [...changes.values()], deps.publishTimeoutMs);
    attempt.progress();
    observer.changeRecordsPublished(out);
    if (out.failed.length > 0) {
      observer.changeRecordsFailed(out.failed.length);
      ensureChangesStream = true;
      const [first] = out.failed;
      throw new ChangeRecordsNotStoredError(
        `${out.failed.length} of ${changes.size} change records not stored on ${changesSpec.name} (first ${first!.record.id}): ${String(first!.err)}`,
        { cause: first!.err },
      );
    }
    deps.log.debug({ stored: out.stored.length, duplicate: out.duplicate.length }, 'change records published');
  };
}
