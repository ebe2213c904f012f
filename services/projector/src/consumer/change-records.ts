import { CHANGES_STREAM, changesSubject, type ChangeRecord, type DataEvent } from '@cds/contracts';
import type { Messaging } from '@cds/messaging';
import type { ReadModelName } from '@cds/read-models';
import { createHash } from 'node:crypto';
import type { ProjectedDoc, Projection } from '../projections/types.ts';

/** Default deadline of one change record's publish (the stream's acknowledgement). */
export const DEFAULT_CHANGE_PUBLISH_TIMEOUT_MS = 5_000;

/**
 * The notification id of a change: `evt_` and the first 32 hex digits of SHA-256 over
 * `<projection>:<data event id>:<topic>:<commodity>`. The same change always gets the same id, so a
 * record published again (a retried batch, a redelivery) is stored once by `CDS_CHANGES` within
 * its duplicate window, and receivers deduplicate on it after that.
 */
export function changeRecordId(projection: ReadModelName, eventId: string, topic: string, commodity: string): string {
  const digest = createHash('sha256').update(`${projection}:${eventId}:${topic}:${commodity}`).digest('hex');
  return `evt_${digest.slice(0, 32)}`;
}

/** The change record of an event the projection applied, landed at `landedAt`; undefined when it records none. */
export function changeRecordOf<D extends ProjectedDoc>(
  projection: Projection<D>,
  event: DataEvent,
  landedAt: Date,
): ChangeRecord | undefined {
  const change = projection.changeOf?.(event);
  if (change === undefined) return undefined;
  return {
    id: changeRecordId(projection.name, event.id, change.topic, change.commodity),
    ...change,
    landed_at: landedAt.toISOString(),
  };
}

export interface ChangePublishOutcome {
  /** Records the stream stored now. */
  stored: ChangeRecord[];
  /** Records it already had (same id within its duplicate window): stored once, earlier. */
  duplicate: ChangeRecord[];
  failed: { record: ChangeRecord; err: unknown }[];
}

/**
 * Publishes change records on `CDS_CHANGES` (message id = record id) and waits for every
 * acknowledgement, each within `timeoutMs`. They are sent together on one connection, so the
 * stream stores them in the order given; one failing does not stop the others (a retry publishes
 * them all again, the stored ones as duplicates).
 */
export async function publishChangeRecords(
  messaging: Messaging,
  records: readonly ChangeRecord[],
  timeoutMs = DEFAULT_CHANGE_PUBLISH_TIMEOUT_MS,
): Promise<ChangePublishOutcome> {
  const acks = await Promise.allSettled(
    records.map((r) =>
      messaging.publish(changesSubject(r.topic, r.commodity), r, {
        msgID: r.id,
        expectStream: CHANGES_STREAM,
        timeoutMs,
      }),
    ),
  );
  const out: ChangePublishOutcome = { stored: [], duplicate: [], failed: [] };
  acks.forEach((ack, i) => {
    const record = records[i]!;
    if (ack.status === 'rejected') out.failed.push({ record, err: ack.reason });
    else if (ack.value.duplicate) out.duplicate.push(record);
    else out.stored.push(record);
  });
  return out;
}

/** Thrown by a batch whose change records did not all reach the stream: the attempt is retried in place. */
export class ChangeRecordsNotStoredError extends Error {
  override readonly name = 'ChangeRecordsNotStoredError';
}
