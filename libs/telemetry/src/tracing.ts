import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';

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
        // The key never reaches a span: drop the query string from recorded targets.
        requestHook: (span, req) => {
          const url = 'url' in req && typeof req.url === 'string' ? req.url : undefined;
          if (url !== undefined) span.setAttribute('url.path', url.split('?')[0] ?? '');
        },
        ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics',
      }),
      new UndiciInstrumentation(),
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  return { enabled: true, shutdown: () => sdk.shutdown() };
}
