import type * as InstrumentationHttp from '@opentelemetry/instrumentation-http';
import type * as InstrumentationIoredis from '@opentelemetry/instrumentation-ioredis';
import type * as InstrumentationMongodb from '@opentelemetry/instrumentation-mongodb';
import type * as InstrumentationUndici from '@opentelemetry/instrumentation-undici';
import type * as SdkNode from '@opentelemetry/sdk-node';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { Attributes } from '@opentelemetry/api';
import { createRequire } from 'node:module';
import { redactUrl, SECRET_QUERY_PARAMS } from './logger.ts';

/**
 * The SDK and its instrumentations, loaded when tracing starts, not with this module: every
 * service and CLI imports it, and loading them took about 0.3 s of CPU per process with an empty
 * compile cache (a first `npm start` starts eight) while tracing is off by default. They are
 * CommonJS packages: the same instances an import would give.
 */
function loadTracingSdk() {
  const require = createRequire(import.meta.url);
  return {
    ...(require('@opentelemetry/sdk-node') as Pick<typeof SdkNode, 'NodeSDK'>),
    ...(require('@opentelemetry/instrumentation-http') as Pick<typeof InstrumentationHttp, 'HttpInstrumentation'>),
    ...(require('@opentelemetry/instrumentation-ioredis') as Pick<
      typeof InstrumentationIoredis,
      'IORedisInstrumentation'
    >),
    ...(require('@opentelemetry/instrumentation-mongodb') as Pick<
      typeof InstrumentationMongodb,
      'MongoDBInstrumentation'
    >),
    ...(require('@opentelemetry/instrumentation-undici') as Pick<
      typeof InstrumentationUndici,
      'UndiciInstrumentation'
    >),
  };
}

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
  /**
   * What server spans record of the query string: `redacted` (the default: every secret value
   * censored) or `none` (no `url.query` at all; the dashboard, whose pages take mail-link tokens
   * and whose queries are worth nothing in a trace).
   */
  serverQuery?: 'redacted' | 'none';
}

/**
 * Starts OpenTelemetry tracing (HTTP server/client, undici, MongoDB and ioredis instrumentation),
 * configured by the standard OTEL_* variables. Off unless OTEL_TRACES_EXPORTER is set to something
 * other than `none` (so tests and local runs pay nothing), or span processors are given.
 *
 * No secret query value reaches a span: the start-span hooks replace the URL attributes the
 * instrumentations derive (`url.full`, `url.query`) before the span exists, for the server side
 * (node:http) and the client side (undici, which carries fetch: the ingest's calls with the NASS
 * `key=`); the node:http client is censored by its own redaction list and then by the request hook.
 */
export function startTracing(opts: TracingOptions): TracingHandle {
  const exporter = opts.env.OTEL_TRACES_EXPORTER;
  const wanted = (exporter !== undefined && exporter !== 'none') || (opts.spanProcessors?.length ?? 0) > 0;
  if (!wanted || opts.env.OTEL_SDK_DISABLED === 'true') return { enabled: false, shutdown: async () => {} };
  const serverQuery = opts.serverQuery ?? 'redacted';
  // The instrumentation's own list compares names exactly: both spellings, as a first layer.
  const secretNames = SECRET_QUERY_PARAMS.flatMap((n) => [n, n.toUpperCase()]);
  const { NodeSDK, HttpInstrumentation, UndiciInstrumentation, MongoDBInstrumentation, IORedisInstrumentation } =
    loadTracingSdk();
  const sdk = new NodeSDK({
    serviceName: opts.env.OTEL_SERVICE_NAME ?? opts.serviceName,
    ...(opts.spanProcessors === undefined ? {} : { spanProcessors: opts.spanProcessors }),
    instrumentations: [
      new HttpInstrumentation({
        redactedQueryParams: secretNames,
        redactedQueryParamsServer: secretNames,
        startIncomingSpanHook: (req) => serverUrlAttributes(req.url ?? '', serverQuery),
        requestHook: (span, req) => {
          if (!('path' in req) || typeof req.path !== 'string') return;
          span.setAttributes(clientUrlAttributes(`${req.protocol}//${req.host}`, req.path));
        },
        ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' || req.url === '/metrics',
      }),
      new UndiciInstrumentation({
        startSpanHook: (req) => clientUrlAttributes(req.origin, req.path),
      }),
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
      new IORedisInstrumentation(),
    ],
  });
  sdk.start();
  return { enabled: true, shutdown: () => sdk.shutdown() };
}

/**
 * Server spans: `url.query` (no leading '?') with every secret value censored; with `none`, the
 * attribute is removed (an undefined attribute is dropped when the span starts). A target without
 * a query string changes nothing.
 */
export function serverUrlAttributes(target: string, query: 'redacted' | 'none' = 'redacted'): Attributes {
  const q = target.indexOf('?');
  if (q < 0) return {};
  return { 'url.query': query === 'none' ? undefined : redactUrl(target).slice(q + 1) };
}

/**
 * Client spans (http, undici): `url.full` and `url.query` (with its '?', as undici records it)
 * with every secret value censored. A path without a query string changes nothing.
 */
export function clientUrlAttributes(origin: string, path: string): Attributes {
  const q = path.indexOf('?');
  if (q < 0) return {};
  const clean = redactUrl(path);
  return { 'url.full': `${origin}${clean}`, 'url.query': clean.slice(q) };
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
