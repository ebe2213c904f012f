import { trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/**
 * Paths pino censors in every log line: the Authorization header, the api_key query value, and
 * key material anywhere in a logged object. URLs are cleaned separately (redactUrl), because the
 * key can sit inside a string.
 */
const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'req.query.api_key',
  'query.api_key',
  'api_key',
  '*.api_key',
  'key',
  '*.key',
  'token',
  '*.token',
  'adminToken',
  '*.adminToken',
];

export const REDACTED = '[REDACTED]';

/**
 * Replaces the value of every api_key parameter in a URL or query string, also when the name is
 * percent-encoded (`api%5Fkey`), since the query parser decodes names before the gateway reads them.
 */
export function redactUrl(url: string): string {
  if (!/api(?:_|%5f)key|%[0-9a-f]{2}/i.test(url)) return url;
  return url.replace(/([?&;])([^=&#;]*)=([^&#;]*)/g, (pair, sep: string, name: string) =>
    isKeyParam(name) ? `${sep}${name}=${REDACTED}` : pair,
  );
}

function isKeyParam(name: string): boolean {
  if (!name.includes('%')) return name.toLowerCase() === 'api_key';
  try {
    return decodeURIComponent(name).toLowerCase() === 'api_key';
  } catch {
    return false;
  }
}

interface RequestLike {
  method?: string;
  url?: string;
  id?: unknown;
  ip?: string;
  socket?: { remoteAddress?: string | undefined };
}

/** Request serializer for Fastify/pino: method, key-free URL and client address, never headers. */
function serializeRequest(req: RequestLike): Record<string, unknown> {
  return {
    method: req.method,
    url: req.url === undefined ? undefined : redactUrl(req.url),
    remoteAddress: req.ip ?? req.socket?.remoteAddress,
  };
}

export interface LoggerConfig {
  /** Service name, logged as `service`. */
  name: string;
  level?: string;
  /** Where lines go; default stdout. Tests pass a stream to read what was logged. */
  destination?: DestinationStream;
}

/** Pino options shared by every service: JSON lines, redaction, trace ids from the active span. */
function loggerOptions(config: LoggerConfig): LoggerOptions {
  return {
    level: config.level ?? 'info',
    base: { service: config.name },
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: { req: serializeRequest, err: pino.stdSerializers.err },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const span = trace.getActiveSpan();
      if (span === undefined) return {};
      const ctx = span.spanContext();
      return { trace_id: ctx.traceId, span_id: ctx.spanId };
    },
  };
}

/** Creates the service logger; pass it to Fastify as `loggerInstance`. */
export function createLogger(config: LoggerConfig): Logger {
  return config.destination === undefined
    ? pino(loggerOptions(config))
    : pino(loggerOptions(config), config.destination);
}

export type { Logger };
