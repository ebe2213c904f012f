import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as createHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { isWrongLastSequence } from './streams.ts';
import { injectTraceContext } from './trace-context.ts';

export interface PublishOptions {
  /**
   * Sent as `Nats-Msg-Id`: the stream drops a second message with the same id inside its
   * duplicate window. Ingest uses the deterministic event id, so re-ingesting publishes nothing.
   */
  msgID: string;
  /**
   * Store only if the subject's last message in the stream has this sequence (0: the subject has
   * none yet): optimistic concurrency between writers of one subject. A writer that lost the race
   * gets a WrongLastSequenceError.
   */
  expectLastSubjectSequence?: number;
  /** Extra headers; the trace context is added to them. */
  headers?: MsgHdrs;
  /** Fail unless the stream has this name (guards against a subject captured by another stream). */
  expectStream?: string;
  /** How long to wait for the stream's acknowledgement. Default 5 s. */
  timeoutMs?: number;
}

export interface PublishResult {
  stream: string;
  seq: number;
  /** True when the stream already had a message with this msgID and stored nothing. */
  duplicate: boolean;
}

/** Thrown by `publishToStream` when `expectLastSubjectSequence` no longer holds: another writer came first. */
export class WrongLastSequenceError extends Error {
  override readonly name = 'WrongLastSequenceError';
}

const encoder = new TextEncoder();

/** Encodes a JSON payload. Exported so tests can publish raw bytes the same way. */
export function encodeJson(payload: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(payload));
}

/**
 * The one JetStream publish of the repository (the projector's change records and parked
 * messages through `Messaging.publish`, the data publisher, the accounts service): stores `data`
 * (already encoded, e.g. by `encodeJson`) on `subject` and waits for the stream's acknowledgement
 * within `timeoutMs`, carrying `msgID` for deduplication, the active trace context in the headers,
 * and the expected stream and last subject sequence when given. Retrying is the caller's choice.
 */
export async function publishToStream(
  js: JetStreamClient,
  subject: string,
  data: Uint8Array,
  opts: PublishOptions,
): Promise<PublishResult> {
  const expect = {
    ...(opts.expectStream !== undefined ? { streamName: opts.expectStream } : {}),
    ...(opts.expectLastSubjectSequence !== undefined ? { lastSubjectSequence: opts.expectLastSubjectSequence } : {}),
  };
  try {
    const ack = await js.publish(subject, data, {
      msgID: opts.msgID,
      headers: injectTraceContext(opts.headers ?? createHeaders()),
      timeout: opts.timeoutMs ?? 5_000,
      ...(Object.keys(expect).length > 0 ? { expect } : {}),
    });
    return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
  } catch (err) {
    if (opts.expectLastSubjectSequence !== undefined && isWrongLastSequence(err)) {
      throw new WrongLastSequenceError(`${subject} changed since sequence ${opts.expectLastSubjectSequence}`, {
        cause: err,
      });
    }
    throw err;
  }
}
