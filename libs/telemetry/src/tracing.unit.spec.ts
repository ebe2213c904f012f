import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { startTracing } from './tracing.ts';

describe('startTracing', () => {
  it('is off without an exporter configured', async () => {
    const handle = startTracing({ serviceName: 'x', env: {} });
    expect(handle.enabled).toBe(false);
    await handle.shutdown();
  });

  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  const handle = startTracing({ serviceName: 'svc', env: {}, spanProcessors: [processor] });
  afterAll(() => handle.shutdown());

  it('records spans and stamps log lines with the active trace id', async () => {
    expect(handle.enabled).toBe(true);
    const lines: string[] = [];
    const log = createLogger({
      name: 'svc',
      destination: new Writable({
        write(chunk: Buffer, _e, cb) {
          lines.push(chunk.toString());
          cb();
        },
      }),
    });
    const tracer = trace.getTracer('test');
    let traceId = '';
    tracer.startActiveSpan('work', (span) => {
      traceId = span.spanContext().traceId;
      log.info('inside');
      span.end();
    });
    await processor.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toContain('work');
    expect(JSON.parse(lines[0]!)).toMatchObject({ trace_id: traceId });
  });
});
