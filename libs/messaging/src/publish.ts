import type { JetStreamClient } from '@nats-io/jetstream';
import { headers as createHeaders, type MsgHdrs } from '@nats-io/transport-node';
import { injectTraceContext } from './trace-context.ts';

export interface PublishOptions {
  /**
   * Sent as `Nats-Msg-Id`: the stream drops a second message with the same id inside its
   * duplicate window. Ingest uses the deterministic event id, so re-ingesting publishes nothing.
   */
  msgID: string;
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

const encoder = new TextEncoder();

/** Encodes a JSON payload. Exported so tests can publish raw bytes the same way. */
export function encodeJson(payload: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(payload));
}

/**
 * Publishes `payload` as JSON to a JetStream subject and waits for the stream to store it,
 * carrying `msgID` for deduplication and the active trace context in the headers.
 */
export async function publishJson(
  js: JetStreamClient,
  subject: string,
  payload: unknown,
  opts: PublishOptions,
): Promise<PublishResult> {
  const hdrs = injectTraceContext(opts.headers ?? createHeaders());
  const ack = await js.publish(subject, encodeJson(payload), {
    msgID: opts.msgID,
    headers: hdrs,
    timeout: opts.timeoutMs ?? 5_000,
    ...(opts.expectStream !== undefined ? { expect: { streamName: opts.expectStream } } : {}),
  });
  return { stream: ack.stream, seq: ack.seq, duplicate: ack.duplicate };
}
