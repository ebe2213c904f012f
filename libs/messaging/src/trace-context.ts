import {
  context,
  propagation,
  ROOT_CONTEXT,
  type Context,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import { headers as createHeaders, type MsgHdrs } from '@nats-io/transport-node';

const setter: TextMapSetter<MsgHdrs> = {
  set: (carrier, key, value) => carrier.set(key, value),
};

const getter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (carrier) => carrier?.keys() ?? [],
  // MsgHdrs.get returns '' for a missing key; propagators expect undefined.
  get: (carrier, key) => (carrier?.has(key) ? carrier.get(key) : undefined),
};

/**
 * Writes the active trace context (W3C `traceparent`/`tracestate`, or whatever propagator the
 * telemetry bootstrap registered) into NATS headers. Without a registered propagator this is a
 * no-op, so it is safe in tests and tools.
 */
export function injectTraceContext(hdrs: MsgHdrs = createHeaders(), ctx: Context = context.active()): MsgHdrs {
  propagation.inject(ctx, hdrs, setter);
  return hdrs;
}

/** Reads the trace context a publisher put into NATS headers; the root context when absent. */
export function extractTraceContext(hdrs: MsgHdrs | undefined): Context {
  return propagation.extract(ROOT_CONTEXT, hdrs, getter);
}
