// Loaded with `node --import @cds/telemetry/register` before a service's main module, so the
// instrumentation hooks are in place before fastify, mongodb or ioredis are imported. It reads
// only the standard OTEL_* variables and does nothing unless OTEL_TRACES_EXPORTER is set.
import { register } from 'node:module';
import { startTracing } from './tracing.ts';

if (process.env.OTEL_TRACES_EXPORTER !== undefined && process.env.OTEL_TRACES_EXPORTER !== 'none') {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
}
// Without OTEL_SERVICE_NAME the service is named after its folder (services/<name>/src/main.ts).
const folder = /services[\\/]([^\\/]+)[\\/]src[\\/][^\\/]+\.ts$/.exec(process.argv[1] ?? '')?.[1];
const tracing = startTracing({ serviceName: folder ?? 'commodity-data', env: process.env });
if (tracing.enabled) {
  const flush = () => void tracing.shutdown().catch(() => {});
  process.once('beforeExit', flush);
}
