// Its own file (its own process): tracing is process-wide, and this one starts it with serverQuery
// 'none', as the dashboard does (register.ts).
import type * as NodeHttp from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { afterAll, expect, it } from 'vitest';
import { startTracing } from './tracing.ts';

const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const handle = startTracing({ serviceName: 'dashboard', env: {}, spanProcessors: [processor], serverQuery: 'none' });
afterAll(() => handle.shutdown());

it('records no query string at all on server spans (the dashboard), the path still', async () => {
  const SECRET = 'SECRET0123456789abcdef';
  const http = createRequire(import.meta.url)('node:http') as typeof NodeHttp;
  const server = http.createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    for (const path of [`/dashboard/verify?token=${SECRET}`, `/dashboard/reset?t=${SECRET}`]) {
      await (await fetch(`${origin}${path}`, { signal: AbortSignal.timeout(5_000) })).text();
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  await processor.forceFlush();
  const servers = exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER);
  expect(servers.map((s) => s.attributes['url.path'])).toEqual(['/dashboard/verify', '/dashboard/reset']);
  for (const span of servers) expect(Object.keys(span.attributes)).not.toContain('url.query');
  expect(JSON.stringify(servers.map((s) => s.attributes))).not.toContain(SECRET);
});
