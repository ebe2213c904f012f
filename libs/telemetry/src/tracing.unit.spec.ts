import { Writable } from 'node:stream';
import { createRequire } from 'node:module';
import type * as NodeHttp from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { clientUrlAttributes, serverUrlAttributes, startTracing } from './tracing.ts';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const handle = startTracing({ serviceName: 'svc', env: {}, spanProcessors: [processor] });
afterAll(() => handle.shutdown());

describe('startTracing', () => {
  it('is off without an exporter configured', async () => {
    const handle = startTracing({ serviceName: 'x', env: {} });
    expect(handle.enabled).toBe(false);
    await handle.shutdown();
  });

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

describe('URL attributes of spans', () => {
  const KEY = '0123456789abcdef0123456789abcdef01234567';

  it('censors every secret in the server query string and leaves query-free targets alone', () => {
    expect(serverUrlAttributes(`/api/v1/commodities?page=2&api_key=${KEY}`)).toEqual({
      'url.query': 'page=2&api_key=[REDACTED]',
    });
    expect(serverUrlAttributes(`/dashboard/reset?token=${KEY}`)).toEqual({ 'url.query': 'token=[REDACTED]' });
    expect(serverUrlAttributes('/api/v1/commodities')).toEqual({});
  });

  it('drops the server query string altogether when asked (the dashboard)', () => {
    const attrs = serverUrlAttributes(`/dashboard/verify?token=${KEY}&next=/keys`, 'none');
    expect(Object.keys(attrs)).toEqual(['url.query']);
    expect(attrs['url.query']).toBeUndefined();
    expect(serverUrlAttributes('/dashboard/keys', 'none')).toEqual({});
  });

  it('censors every secret in the client url.full and url.query', () => {
    const attrs = clientUrlAttributes('https://quickstats.nass.usda.gov', `/api/api_GET/?KEY=${KEY}&year=2024`);
    expect(attrs).toEqual({
      'url.full': 'https://quickstats.nass.usda.gov/api/api_GET/?KEY=[REDACTED]&year=2024',
      'url.query': '?KEY=[REDACTED]&year=2024',
    });
    expect(clientUrlAttributes('http://query:8081', '/api/v1/commodities')).toEqual({});
  });
});

describe('exported spans of real calls', () => {
  const SECRET = 'SECRET0123456789abcdef';

  it('carry no secret: client calls with key= / $$app_token=, server calls with token= / api_key=', async () => {
    // Required through the CommonJS loader, which the HTTP instrumentation patches.
    const http = createRequire(import.meta.url)('node:http') as typeof NodeHttp;
    const server = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    exporter.reset();
    try {
      for (const path of [
        `/api/api_GET/?key=${SECRET}&year=2024`,
        `/dashboard/reset?Token=${SECRET}`,
        `/resource/x.json?%24%24app_token=${SECRET}`,
        `/api/v1/commodities?api%5Fkey=${SECRET}&page=2`,
      ]) {
        const res = await fetch(`${origin}${path}`, { signal: AbortSignal.timeout(5_000) });
        await res.text();
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    await processor.forceFlush();
    const spans = exporter.getFinishedSpans();
    const client = spans.filter((s) => s.kind === SpanKind.CLIENT);
    const serverSpans = spans.filter((s) => s.kind === SpanKind.SERVER);
    expect(client).toHaveLength(4);
    expect(serverSpans).toHaveLength(4);
    const exported = JSON.stringify(
      spans.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })),
    );
    expect(exported).not.toContain(SECRET);
    expect(client[0]!.attributes['url.full']).toBe(`${origin}/api/api_GET/?key=[REDACTED]&year=2024`);
    expect(client[0]!.attributes['url.query']).toBe('?key=[REDACTED]&year=2024');
    expect(serverSpans.map((s) => s.attributes['url.query'])).toEqual([
      'key=[REDACTED]&year=2024',
      'Token=[REDACTED]',
      '%24%24app_token=[REDACTED]',
      'api%5Fkey=[REDACTED]&page=2',
    ]);
  });
});
