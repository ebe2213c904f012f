import { Redis } from 'ioredis';

export interface RedisClientOptions {
  /** `redis://host:port[/db]` or `rediss://` for TLS. */
  url: string;
  /** Sent as CLIENT SETNAME so `CLIENT LIST` shows which service holds a connection. */
  name: string;
  /** Time to establish a connection. Default 2 s. */
  connectTimeoutMs?: number;
  /** Time a command may take, queueing while disconnected included. Default 1 s. */
  commandTimeoutMs?: number;
  /** Reconnections a queued command survives before it fails. Default 1. */
  maxRetriesPerRequest?: number;
  /**
   * Queue commands while disconnected (each still bounded by `commandTimeoutMs`). Default true;
   * false fails them at once, for a caller with a fallback of its own (the gateway's rate limiter).
   */
  offlineQueue?: boolean;
  /** Connection errors (refused, reset) are reported here; commands fail on their own. */
  onError?: (err: Error) => void;
}

/**
 * Creates an ioredis client that fails fast when Redis is down: each command rejects within
 * `commandTimeoutMs` (the timer also covers time spent in the offline queue) or after
 * `maxRetriesPerRequest` failed reconnects, instead of the library default of 20 retries with
 * no command timeout. The client keeps reconnecting in the background (capped backoff), so it
 * recovers by itself when Redis is back.
 */
export function createRedis(opts: RedisClientOptions): Redis {
  const client = new Redis(opts.url, {
    connectionName: opts.name,
    connectTimeout: opts.connectTimeoutMs ?? 2_000,
    commandTimeout: opts.commandTimeoutMs ?? 1_000,
    maxRetriesPerRequest: opts.maxRetriesPerRequest ?? 1,
    // Short, capped reconnect pauses: a restarted Redis is picked up within a second.
    retryStrategy: (times) => Math.min(times * 100, 1_000),
    enableOfflineQueue: opts.offlineQueue ?? true,
  });
  // Without a listener ioredis prints every reconnect failure to stderr.
  client.on('error', (err: Error) => opts.onError?.(err));
  return client;
}

/**
 * True when a Redis command failed because Redis is unreachable or too slow (connection refused
 * or closed, command timeout, reconnect limit), so the caller can answer 503 rather than 500.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND'].includes(code)) {
    return true;
  }
  return /Command timed out|Connection is closed|Stream isn't writeable|LOADING|MASTERDOWN/.test(err.message);
}
