import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { redactClientUrl, redactServerUrl, startTracing } from './tracing.ts';

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

describe('URL redaction on spans', () => {
  const KEY = '0123456789abcdef0123456789abcdef01234567';
  const record = () => {
    const attrs: Record<string, unknown> = {};
    return { attrs, span: { setAttribute: (k: string, v: unknown) => ((attrs[k] = v), undefined as never) } };
  };

  it('censors api_key in the server query string and leaves key-free targets alone', () => {
    const a = record();
    redactServerUrl(a.span, `/api/v1/commodities?page=2&api_key=${KEY}`);
    expect(a.attrs).toEqual({ 'url.query': 'page=2&api_key=[REDACTED]' });
    const b = record();
    redactServerUrl(b.span, '/api/v1/commodities');
    expect(b.attrs).toEqual({});
  });

  it('censors api_key in the client url.full and url.query', () => {
    const a = record();
    redactClientUrl(a.span, 'http://query:8081', `/api/v1/commodities?API_KEY=${KEY}`);
    expect(a.attrs).toEqual({
      'url.full': 'http://query:8081/api/v1/commodities?API_KEY=[REDACTED]',
      'url.query': '?API_KEY=[REDACTED]',
    });
    expect(JSON.stringify(a.attrs)).not.toContain(KEY);
  });
});
