// Loaded with `node --import @cds/telemetry/register` before a service's main module, so the
// instrumentation hooks are in place before fastify, mongodb or ioredis are imported. It reads
// only the standard OTEL_* variables and does nothing unless OTEL_TRACES_EXPORTER is set.
import { register } from 'node:module';
import { FLUSH_HOOK, startTracing } from './tracing.ts';

if (process.env.OTEL_TRACES_EXPORTER !== undefined && process.env.OTEL_TRACES_EXPORTER !== 'none') {
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
}
// Without OTEL_SERVICE_NAME the service is named after its folder (services/<name>/src/main.ts).
const folder = /services[\\/]([^\\/]+)[\\/]src[\\/][^\\/]+\.ts$/.exec(process.argv[1] ?? '')?.[1];
// The dashboard's server spans carry no query string: its pages take mail-link tokens there.
const tracing = startTracing({
  serviceName: folder ?? 'commodity-data',
  env: process.env,
  serverQuery: folder === 'dashboard' ? 'none' : 'redacted',
});
if (tracing.enabled) {
  // Flush what is still batched when the process ends: on its own (a CLI), or on a signal. A
  // service's own signal handler runs beside this one and exits when it has closed; with no other
  // handler the signal is raised again once flushed (at most 2 s), so it still ends the process.
  let flushed: Promise<void> | undefined;
  const flush = () =>
    (flushed ??= Promise.race([
      tracing.shutdown().catch(() => {}),
      new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref()),
    ]));
  (globalThis as Record<symbol, unknown>)[FLUSH_HOOK] = flush;
  process.once('beforeExit', () => void flush());
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const onSignal = () => {
      const alone = process.listenerCount(signal) === 1;
      void flush().then(() => {
        if (!alone) return;
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      });
    };
    process.on(signal, onSignal);
  }
}
