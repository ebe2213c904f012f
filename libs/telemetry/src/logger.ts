import { trace } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/**
 * Paths pino censors in every log line: the Authorization header, the secret query values, and
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
  'req.query.token',
  'req.query.key',
  'app_token',
  '*.app_token',
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
 * Query parameters whose values are secrets, compared without case and after percent-decoding the
 * name: the API key (`api_key`), mail-link and session tokens (`token`), and the upstream sources'
 * keys (NASS `key`, Socrata `app_token` / `$$app_token`). Every URL that reaches a log line, a span
 * or an error message goes through redactUrl with this list (the ingest's source client too).
 */
export const SECRET_QUERY_PARAMS: readonly string[] = ['api_key', 'key', 'token', 'app_token', '$$app_token'];

const SECRET_NAMES = new Set(SECRET_QUERY_PARAMS);
/** Cheap pre-check: a URL without any of these substrings has nothing to censor. */
const MAYBE_SECRET = /key|token|%[0-9a-f]{2}/i;

/**
 * Replaces the value of every secret query parameter (SECRET_QUERY_PARAMS) in a URL or query
 * string with `censor`, also when the name is percent-encoded (`api%5Fkey`), since query parsers
 * decode names before they read them. Linear in the URL's length.
 */
export function redactUrl(url: string, censor: string = REDACTED): string {
  if (!MAYBE_SECRET.test(url)) return url;
  // A name never spans a '?': from each separator the scan stops at the next one, so the whole
  // replacement is linear in the URL's length (with '?' in the name class, a URL of thousands of
  // '?' took quadratic time).
  return url.replace(/([?&;])([^=&#;?]*)=([^&#;]*)/g, (pair, sep: string, name: string) =>
    isSecretParam(name) ? `${sep}${name}=${censor}` : pair,
  );
}

/** Whether a query parameter name (as sent, possibly percent-encoded) names a secret. */
export function isSecretParam(name: string): boolean {
  if (!name.includes('%')) return SECRET_NAMES.has(name.toLowerCase());
  try {
    return SECRET_NAMES.has(decodeURIComponent(name).toLowerCase());
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
