import type { JsMsg } from '@nats-io/jetstream';
import { context, SpanKind, trace, type Link, type Span } from '@opentelemetry/api';
import { PoisonMessageError } from '../errors.ts';
import { extractTraceContext } from '../trace-context.ts';
import type { ConsumeOptions, PulledMessage } from './types.ts';

// What every consumer does with a delivered message, whatever its mode: parse and decode the
// payload once (poison when that fails), read the publisher's trace context, trace a batch.

const decoder = new TextDecoder();
const tracer = trace.getTracer('@cds/messaging');

/** Calls `working()` etc. on a message whose connection may be closed (then there is no one to tell). */
export function tell(fn: () => void): void {
  try {
    fn();
  } catch {
    // Connection closed: the server redelivers after the ack wait anyway.
  }
}

/**
 * Parses a payload as JSON and decodes it with `decode`: the value, or the poison error saying why
 * not. Without `decode` nothing is parsed (both undefined).
 */
export function decodePayload<T>(
  data: Uint8Array,
  decode: ConsumeOptions<T>['decode'],
): { value: T | undefined; poison: PoisonMessageError | undefined } {
  if (decode === undefined) return { value: undefined, poison: undefined };
  let payload: unknown;
  try {
    payload = JSON.parse(decoder.decode(data));
  } catch (err) {
    return { value: undefined, poison: new PoisonMessageError('payload is not valid JSON', { cause: err }) };
  }
  const decoded = decode(payload);
  if ('reason' in decoded) return { value: undefined, poison: new PoisonMessageError(decoded.reason) };
  return { value: decoded.value, poison: undefined };
}

/** A delivery as the handler sees it; `working` extends its ack deadline (a no-op when ordered). */
export function toPulled<T>(
  m: JsMsg,
  decode: ConsumeOptions<T>['decode'],
  working: (m: JsMsg) => void,
): PulledMessage<T> {
  const { value, poison } = decodePayload(m.data, decode);
  return {
    subject: m.subject,
    seq: m.info.streamSequence,
    deliveryCount: m.info.deliveryCount,
    redelivered: m.redelivered,
    pending: m.info.pending,
    storedAtMs: Date.parse(m.timestamp),
    data: m.data,
    headers: m.headers,
    traceContext: extractTraceContext(m.headers),
    value,
    poison,
    working: () => working(m),
  };
}

/** The part of a zod schema `schemaDecoder` uses. */
export interface SafeParser<T> {
  safeParse(
    payload: unknown,
  ):
    | { success: true; data: T }
    | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/**
 * A `decode` from a contract schema: the payload as the schema parses it, or the reason it fails
 * (`schema: <path>: <message>; ...`, at most five issues), which becomes the poison message's reason.
 */
export function schemaDecoder<T>(schema: SafeParser<T>): (payload: unknown) => { value: T } | { reason: string } {
  return (payload) => {
    const parsed = schema.safeParse(payload);
    if (parsed.success) return { value: parsed.data };
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((i) => `${i.path.map(String).join('.') || '(event)'}: ${i.message}`);
    return { reason: `schema: ${issues.join('; ')}` };
  };
}

/**
 * Runs `work` (all attempts at a batch) in one consumer span, a child of the first message's
 * publisher span, so a publisher's trace reaches its consumers, and linked to every other
 * message's publisher. The handler runs with the span active.
 */
export async function inBatchSpan<R>(
  consumer: string,
  stream: string,
  pulled: readonly PulledMessage<unknown>[],
  work: (span: Span) => Promise<R>,
): Promise<R> {
  const parents = pulled.map((m) => m.traceContext);
  const links: Link[] = [];
  for (const ctx of parents.slice(1)) {
    const linked = trace.getSpanContext(ctx);
    if (linked !== undefined) links.push({ context: linked });
  }
  const span = tracer.startSpan(
    `apply ${consumer}`,
    {
      kind: SpanKind.CONSUMER,
      links,
      attributes: {
        'messaging.system': 'nats',
        'messaging.operation.type': 'process',
        'messaging.destination.name': pulled.length === 1 ? pulled[0]!.subject : stream,
        'messaging.consumer.group.name': consumer,
        'messaging.batch.message_count': pulled.length,
        'cds.stream_seq.first': pulled[0]!.seq,
        'cds.stream_seq.last': pulled.at(-1)!.seq,
      },
    },
    parents[0],
  );
  try {
    return await context.with(trace.setSpan(parents[0]!, span), () => work(span));
  } finally {
    span.end();
  }
}
