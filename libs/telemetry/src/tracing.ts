import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Span } from '@opentelemetry/api';
import { redactUrl } from './logger.ts';

export interface TracingHandle {
  enabled: boolean;
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  serviceName: string;
  /** The OTEL_* environment; tracing starts only when OTEL_TRACES_EXPORTER names an exporter. */
  env: Record<string, string | undefined>;
  /** Extra processors (tests use an in-memory exporter); given processors also turn tracing on. */
  spanProcessors?: SpanProcessor[];
}

/**
 * Starts OpenTelemetry tracing (HTTP server/client, undici, MongoDB and ioredis instrumentation),
 * configured by the standard OTEL_* variables. Off unless OTEL_TRACES_EXPORTER is set to something
 * other than `none` (so tests and local runs pay nothing), or span processors are given.
 */
export function startTracing(opts: TracingOptions): TracingHandle {
  const exporter = opts.env.OTEL_TRACES_EXPORTER;
  const wanted = (exporter !== undefined && exporter !== 'none') || (opts.spanProcessors?.length ?? 0) > 0;
  if (!wanted || opts.env.OTEL_SDK_DISABLED === 'true') return { enabled: false, shutdown: async () => {} };
  const sdk = new NodeSDK({
    serviceName: opts.env.OTEL_SERVICE_NAME ?? opts.serviceName,
    ...(opts.spanProcessors === undefined ? {} : { spanProcessors: opts.spanProcessors }),
    instrumentations: [
      new HttpInstrumentation({
        // The key never reaches a span: the query string and full URL are recorded with api_key censored.
        requestHook: (span, req) => {
          if ('url' in req && typeof req.url === 'string') {
            redactServerUrl(span, req.url);
          } else if ('path' in req && typeof req.path === 'string') {
            redactClientUrl(span, `${req.protocol}//${req.host}`, req.path);
          }
        },
        ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics',
      }),
      new UndiciInstrumentation({
        requestHook: (span, req) => redactClientUrl(span, req.origin, req.path),
      }),
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  return { enabled: true, shutdown: () => sdk.shutdown() };
}

/** Server spans: `url.query` (no leading '?') with every api_key value censored. */
export function redactServerUrl(span: Pick<Span, 'setAttribute'>, target: string): void {
  const q = target.indexOf('?');
  if (q >= 0) span.setAttribute('url.query', redactUrl(target).slice(q + 1));
}

/** Client spans (http, undici): `url.full` and `url.query` with every api_key value censored. */
export function redactClientUrl(span: Pick<Span, 'setAttribute'>, origin: string, path: string): void {
  const q = path.indexOf('?');
  if (q < 0) return;
  const clean = redactUrl(path);
  span.setAttribute('url.full', `${origin}${clean}`);
  span.setAttribute('url.query', clean.slice(q));
}

/** Where the `--import` bootstrap leaves its flush function (it is a separate module instance). */
export const FLUSH_HOOK = Symbol.for('cds.telemetry.flush');

/**
 * Exports the spans still batched (at most 2 s); a no-op when tracing is off. Services await it in
 * their shutdown before `process.exit`, which would otherwise drop the last batch.
 */
export async function flushTelemetry(): Promise<void> {
  const flush = (globalThis as Record<symbol, unknown>)[FLUSH_HOOK];
  if (typeof flush === 'function') await (flush as () => Promise<void>)();
}
