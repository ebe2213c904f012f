import { Cluster, Redis } from 'ioredis';

/** A `host:port` of a sentinel or a cluster node. */
export interface HostPort {
  host: string;
  port: number;
}

/**
 * The pause before reconnect `times` (to a server, a sentinel, a cluster): short and capped, so a
 * restarted Redis is picked up within a second.
 */
const cappedRetry = (times: number): number => Math.min(times * 100, 1_000);

/** What createRedis returns: one server (or the primary Sentinel names), or a Redis Cluster. */
export type RedisClient = Redis | Cluster;

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
  sentinels?: readonly HostPort[];
  sentinelName?: string;
  /** The sentinels' own password, when they require one (`requirepass` on the sentinels). */
  sentinelPassword?: string;
  /**
   * Redis Cluster: when given, some (or all) of the cluster's nodes, from which the client learns
   * the slots and follows their moves; `url` then supplies only the user, password and TLS (db 0).
   * Every command's keys must share a slot: the services hash-tag theirs (docs/operations.md).
   */
  clusterNodes?: readonly HostPort[];
}

/** The createRedis options of the settings libs/config `redisTopologyVars` reads (Sentinel or Cluster). */
export function topologyOptions(config: {
  REDIS_SENTINELS: readonly HostPort[];
  REDIS_SENTINEL_NAME: string;
  REDIS_SENTINEL_PASSWORD?: string | undefined;
  REDIS_CLUSTER_NODES: readonly HostPort[];
}): Pick<RedisClientOptions, 'sentinels' | 'sentinelName' | 'sentinelPassword' | 'clusterNodes'> {
  return {
    sentinels: config.REDIS_SENTINELS,
    sentinelName: config.REDIS_SENTINEL_NAME,
    ...(config.REDIS_SENTINEL_PASSWORD !== undefined ? { sentinelPassword: config.REDIS_SENTINEL_PASSWORD } : {}),
    clusterNodes: config.REDIS_CLUSTER_NODES,
  };
}

/**
 * Creates an ioredis client that fails fast when Redis is down: each command rejects within
 * `commandTimeoutMs` (the timer also covers time spent in the offline queue) or after
 * `maxRetriesPerRequest` failed reconnects, instead of the library default of 20 retries with
 * no command timeout. The client keeps reconnecting in the background (capped backoff), so it
 * recovers by itself when Redis is back.
 */
export function createRedis(opts: RedisClientOptions & { clusterNodes?: readonly [] | undefined }): Redis;
export function createRedis(opts: RedisClientOptions): RedisClient;
export function createRedis(opts: RedisClientOptions): RedisClient {
  const common = {
    connectionName: opts.name,
    connectTimeout: opts.connectTimeoutMs ?? 2_000,
    commandTimeout: opts.commandTimeoutMs ?? 1_000,
    maxRetriesPerRequest: opts.maxRetriesPerRequest ?? 1,
    retryStrategy: cappedRetry,
    enableOfflineQueue: opts.offlineQueue ?? true,
  };
  const sentinels = opts.sentinels ?? [];
  const clusterNodes = opts.clusterNodes ?? [];
  if (sentinels.length > 0 && clusterNodes.length > 0) {
    throw new Error(
      'createRedis: both sentinels and cluster nodes given (REDIS_SENTINELS, REDIS_CLUSTER_NODES): choose one',
    );
  }
  if (clusterNodes.length > 0) {
    const cluster = createCluster(opts, clusterNodes, common);
    cluster.on('error', (err: Error) => opts.onError?.(err));
    return cluster;
  }
  const client =
    sentinels.length > 0 ? new Redis({ ...common, ...sentinelOptions(opts, sentinels) }) : new Redis(opts.url, common);
  // Without a listener ioredis prints every reconnect failure to stderr.
  client.on('error', (err: Error) => opts.onError?.(err));
  if (sentinels.length > 0) followSwitchMaster(client, opts, sentinels);
  return client;
}

/** The user, password, db and TLS of a Redis URL that names no server by itself (Sentinel, Cluster). */
function urlSettings(rawUrl: string): { username?: string; password?: string; db?: number; tls: boolean } {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new Error(`createRedis: invalid Redis URL (${rawUrl.replace(/\/\/[^@/]*@/, '//***@')})`);
  }
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new Error(`createRedis: the Redis URL's db must be a number, got ${db}`);
  return {
    ...(url.username !== '' ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password !== '' ? { password: decodeURIComponent(url.password) } : {}),
    ...(db !== '' ? { db: Number(db) } : {}),
    tls: url.protocol === 'rediss:',
  };
}

/**
 * A Cluster client with the same fail-fast settings on every node connection. It asks a node for
 * the slots at start and again after a MOVED or a lost node (capped pauses, each refresh within
 * the connect timeout), and reads from primaries only: the rate windows are read-your-writes.
 */
function createCluster(
  opts: RedisClientOptions,
  nodes: readonly HostPort[],
  common: {
    connectionName: string;
    connectTimeout: number;
    commandTimeout: number;
    maxRetriesPerRequest: number;
    enableOfflineQueue: boolean;
  },
): Cluster {
  const { username, password, db, tls } = urlSettings(opts.url);
  if (db !== undefined && db !== 0) {
    throw new Error(`createRedis: Redis Cluster has only db 0, the Redis URL names db ${db}`);
  }
  return new Cluster(
    nodes.map((n) => ({ host: n.host, port: n.port })),
    {
      redisOptions: {
        connectionName: common.connectionName,
        connectTimeout: common.connectTimeout,
        commandTimeout: common.commandTimeout,
        maxRetriesPerRequest: common.maxRetriesPerRequest,
        ...(username !== undefined ? { username } : {}),
        ...(password !== undefined ? { password } : {}),
        ...(tls ? { tls: {} } : {}),
      },
      enableOfflineQueue: common.enableOfflineQueue,
      clusterRetryStrategy: cappedRetry,
      slotsRefreshTimeout: common.connectTimeout,
      scaleReads: 'master',
      // With TLS, the certificate names the host the slots table gives (managed clusters).
      ...(tls
        ? { dnsLookup: (address: string, callback: (err: null, address: string) => void) => callback(null, address) }
        : {}),
    },
  );
}

function sentinelOptions(opts: RedisClientOptions, sentinels: readonly HostPort[]) {
  if (opts.sentinelName === undefined || opts.sentinelName === '') {
    throw new Error("createRedis: sentinels given without sentinelName (the monitored primary's name)");
  }
  const { username, password, db, tls } = urlSettings(opts.url);
  return {
    sentinels: sentinels.map((s) => ({ host: s.host, port: s.port })),
    name: opts.sentinelName,
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(db !== undefined ? { db } : {}),
    ...(tls ? { tls: {}, enableTLSForSentinelMode: true } : {}),
    ...(opts.sentinelPassword !== undefined ? { sentinelPassword: opts.sentinelPassword } : {}),
    // Between rounds of asking the sentinels, as between reconnects.
    sentinelRetryStrategy: cappedRetry,
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
function followSwitchMaster(client: Redis, opts: RedisClientOptions, sentinels: readonly HostPort[]): void {
  const { tls } = urlSettings(opts.url);
  let last = '';
  let lastAt = 0;
  const listeners = sentinels.map((s) => {
    const listener = new Redis({
      host: s.host,
      port: s.port,
      connectionName: `${opts.name}:failover`,
      connectTimeout: opts.connectTimeoutMs ?? 2_000,
      retryStrategy: cappedRetry,
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
  if (err.name === 'MaxRetriesPerRequestError' || err.name === 'ClusterAllFailedError') return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND'].includes(code)) {
    return true;
  }
  // The cluster's: no node reachable, slots not served (a primary lost with no replica), a slot
  // moving, a redirection loop.
  return /Command timed out|Connection is closed|Stream isn't writeable|LOADING|MASTERDOWN|Cluster isn't ready|CLUSTERDOWN|TRYAGAIN|Failed to refresh slots cache|Too many Cluster redirections/.test(
    err.message,
  );
}
