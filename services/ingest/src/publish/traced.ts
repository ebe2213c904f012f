import { SpanStatusCode, trace, type Span, type SpanOptions } from '@opentelemetry/api';

const tracer = trace.getTracer('@cds/ingest');

/**
 * Runs `fn` in an active span of the ingest tracer (its children and the messages it publishes
 * continue the trace): a throw marks the span as an error with the message and is rethrown; the
 * span ends either way.
 */
export function traced<T>(name: string, options: SpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}
