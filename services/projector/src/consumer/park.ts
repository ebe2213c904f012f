import {
  DEADLETTER_STREAM,
  streamSpec,
  type Messaging,
  type PoisonMessageError,
  type PulledMessage,
} from '@cds/messaging';
import { COLLECTIONS, type ReadModelName } from '@cds/read-models';
import { withDeadline, type OperationDeadline } from '@cds/store';
import type { Db } from 'mongodb';
import { DEFAULT_OPERATION_TIMEOUT_MS } from '../runner/apply-event.ts';

function deadletterSubject(projection: ReadModelName): string {
  return `cds.deadletter.${projection}`;
}

/** A parked event in `parked_events`; `_id` is `${projection}:${stream_seq}` so parking twice is a no-op. */
export interface ParkedEventDoc {
  _id: string;
  projection: ReadModelName;
  stream: string;
  stream_seq: number;
  subject: string;
  reason: string;
  /** The payload exactly as stored in the stream (UTF-8). */
  payload: string;
  parked_at: string;
}

const decoder = new TextDecoder();

/** The parked record of a poison message a projection's consumer (live or rebuild) delivered. */
export function parkedEventOf(
  projection: ReadModelName,
  stream: string,
  err: PoisonMessageError,
  msg: PulledMessage,
  at: Date,
): ParkedEventDoc {
  return {
    _id: `${projection}:${msg.seq}`,
    projection,
    stream,
    stream_seq: msg.seq,
    subject: msg.subject,
    reason: err.message,
    payload: decoder.decode(msg.data),
    parked_at: at.toISOString(),
  };
}

/** Creates (or aligns) the dead-letter stream as libs/messaging defines it. */
export async function ensureDeadletterStream(messaging: Messaging, replicas = 1): Promise<void> {
  await messaging.ensureStream(streamSpec('deadletter', { replicas }));
}

/**
 * Parks an event: publishes it on the dead-letter stream (JetStream, so nothing is lost) and
 * records it in `parked_events`. Both are idempotent (msgID / `_id`), so a retry after a partial
 * failure parks it once. The JetStream publish has the client's request timeout, the write `deadline`.
 */
export async function parkEvent(
  messaging: Messaging,
  db: Db,
  parked: ParkedEventDoc,
  deadline: OperationDeadline = { timeoutMs: DEFAULT_OPERATION_TIMEOUT_MS },
): Promise<void> {
  await messaging.publish(deadletterSubject(parked.projection), parked, {
    msgID: parked._id,
    expectStream: DEADLETTER_STREAM,
  });
  const { _id, ...rest } = parked;
  await withDeadline('record a parked event', deadline, ({ maxTimeMS }) =>
    db
      .collection<ParkedEventDoc>(COLLECTIONS.parked)
      .updateOne({ _id }, { $setOnInsert: rest }, { upsert: true, maxTimeMS }),
  );
}
