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
  /**
   * Redis Sentinel: when given, the primary named `sentinelName` is found through these sentinels
   * (and found again after a failover); `url` then supplies only the user, password, db and TLS.
   */
  sentinels?: readonly { host: string; port: number }[];
  sentinelName?: string;
  /** The sentinels' own password, when they require one (`requirepass` on the sentinels). */
  sentinelPassword?: string;
}

/**
 * Creates an ioredis client that fails fast when Redis is down: each command rejects within
 * `commandTimeoutMs` (the timer also covers time spent in the offline queue) or after
 * `maxRetriesPerRequest` failed reconnects, instead of the library default of 20 retries with
 * no command timeout. The client keeps reconnecting in the background (capped backoff), so it
 * recovers by itself when Redis is back.
 */
export function createRedis(opts: RedisClientOptions): Redis {
  const common = {
    connectionName: opts.name,
    connectTimeout: opts.connectTimeoutMs ?? 2_000,
    commandTimeout: opts.commandTimeoutMs ?? 1_000,
    maxRetriesPerRequest: opts.maxRetriesPerRequest ?? 1,
    // Short, capped reconnect pauses: a restarted Redis is picked up within a second.
    retryStrategy: (times: number) => Math.min(times * 100, 1_000),
    enableOfflineQueue: opts.offlineQueue ?? true,
  };
  const client =
    opts.sentinels !== undefined && opts.sentinels.length > 0
      ? new Redis({ ...common, ...sentinelOptions(opts, opts.sentinels) })
      : new Redis(opts.url, common);
  // Without a listener ioredis prints every reconnect failure to stderr.
  client.on('error', (err: Error) => opts.onError?.(err));
  if (opts.sentinels !== undefined && opts.sentinels.length > 0) followSwitchMaster(client, opts, opts.sentinels);
  return client;
}

function sentinelOptions(opts: RedisClientOptions, sentinels: readonly { host: string; port: number }[]) {
  if (opts.sentinelName === undefined || opts.sentinelName === '') {
    throw new Error("createRedis: sentinels given without sentinelName (the monitored primary's name)");
  }
  let url: URL;
  try {
    url = new URL(opts.url);
  } catch {
    throw new Error(`createRedis: invalid Redis URL (${opts.url.replace(/\/\/[^@/]*@/, '//***@')})`);
  }
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new Error(`createRedis: the Redis URL's db must be a number, got ${db}`);
  return {
    sentinels: sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: opts.sentinelName,
    ...(url.username !== '' ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password !== '' ? { password: decodeURIComponent(url.password) } : {}),
    ...(db !== '' ? { db: Number(db) } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    ...(opts.sentinelPassword !== undefined ? { sentinelPassword: opts.sentinelPassword } : {}),
    // Capped pauses between rounds of asking the sentinels, as between reconnects above.
    sentinelRetryStrategy: (times: number) => Math.min(times * 100, 1_000),
    // A sentinel that accepts connections and never answers (paused, partitioned) costs one
    // command timeout before the next is asked; without it the client would wait on it forever.
    sentinelCommandTimeout: opts.commandTimeoutMs ?? 1_000,
    // ioredis's own failover detector is off: when a +switch-master arrives while the client is
    // already reconnecting (its primary died first), it aborts the connect in progress and the
    // client ends for good ('Connection is closed.', every later command refused). followSwitchMaster
    // below does its job without that race.
    failoverDetector: false,
    // A primary demoted under the client answers writes READONLY: reconnect, through the sentinels.
    reconnectOnError: (err: Error) => (err.message.startsWith('READONLY') ? 1 : false),
  };
}

/**
 * Follows a failover at once, also when the old primary stays up (demoted, or cut off from the
 * sentinels but not from us): listens for `+switch-master` on every configured sentinel and, when
 * the client is connected to some other server than the one named, drops the connection so the
 * client asks the sentinels again. A client that is not connected is left alone: it asks the
 * sentinels on its next attempt anyway. Stops when the client ends.
 */
function followSwitchMaster(
  client: Redis,
  opts: RedisClientOptions,
  sentinels: readonly { host: string; port: number }[],
): void {
  const tls = opts.url.startsWith('rediss:');
  let last = '';
  let lastAt = 0;
  const listeners = sentinels.map((s) => {
    const listener = new Redis({
      host: s.host,
      port: s.port,
      connectionName: `${opts.name}:failover`,
      connectTimeout: opts.connectTimeoutMs ?? 2_000,
      retryStrategy: (times: number) => Math.min(times * 100, 1_000),
      ...(opts.sentinelPassword !== undefined ? { password: opts.sentinelPassword } : {}),
      ...(tls ? { tls: {} } : {}),
    });
    listener.on('error', (err: Error) => opts.onError?.(err));
    listener.on('message', (channel: string, message: string) => {
      // "<name> <old-ip> <old-port> <new-ip> <new-port>"; every sentinel sends it once.
      const [name, , , host, port] = message.split(' ');
      if (channel !== '+switch-master' || name !== opts.sentinelName) return;
      if (message === last && Date.now() - lastAt < 30_000) return;
      last = message;
      lastAt = Date.now();
      if (client.status !== 'ready') return;
      const stream = client.stream as { remoteAddress?: string; remotePort?: number } | undefined;
      const onNamed =
        stream?.remotePort === Number(port) &&
        (stream.remoteAddress === host || stream.remoteAddress === `::ffff:${host}`);
      if (!onNamed) client.disconnect(true);
    });
    // Resubscribed by ioredis after each reconnect; a sentinel down now is subscribed when it is back.
    listener.subscribe('+switch-master').catch((err: unknown) => {
      if (err instanceof Error) opts.onError?.(err);
    });
    return listener;
  });
  client.once('end', () => {
    for (const listener of listeners) listener.disconnect();
  });
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
