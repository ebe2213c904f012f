import { urlCredentials } from '@cds/config';
import { connect, type NatsConnection } from '@nats-io/transport-node';

export interface NatsConnectOptions {
  /**
   * One URL or a list, e.g. `nats://127.0.0.1:4222`, with the component's NATS user when the server
   * has users (`nats://gateway:pw@nats:4222`, docs/operations.md "Credentials").
   */
  servers: string | string[];
  /** Shown by the server in connection listings (`/connz`); use the service and replica name. */
  name: string;
  /** Timeout of the first connection attempt. Default 5 s. */
  timeoutMs?: number;
  /** Reconnect attempts after a lost connection; -1 (default) retries forever. */
  maxReconnectAttempts?: number;
  /** Pause between reconnect attempts to the same server. Default 1 s. */
  reconnectTimeWaitMs?: number;
}

/** The inbox prefix of a NATS user: its replies and pulled messages arrive under `<prefix>.>`. */
export function inboxPrefixOf(user: string): string {
  return `_INBOX_${user}`;
}

/**
 * The nats.js settings of the given URLs (each may be a comma-separated list, as NATS_URL names a
 * cluster): the addresses without credentials (nats.js ignores those in a URL), the user and
 * password of the first URL that has them (percent-encoded in the URL when they hold `@:/,`), and
 * that user's own inbox prefix, so its subscribe permission can be `_INBOX_<user>.>` rather than
 * every reply of every user.
 */
export function natsAuthOptions(servers: string | string[]): {
  servers: string[];
  user?: string;
  pass?: string;
  inboxPrefix?: string;
} {
  const parts = (Array.isArray(servers) ? servers : [servers])
    .flatMap((list) => list.split(','))
    .map((url) => url.trim())
    .filter((url) => url !== '')
    .map(urlCredentials);
  const withUser = parts.find((p) => p.user !== undefined && p.user !== '');
  return {
    servers: parts.map((p) => p.address),
    ...(withUser?.user !== undefined
      ? { user: withUser.user, pass: withUser.password ?? '', inboxPrefix: inboxPrefixOf(withUser.user) }
      : {}),
  };
}

/**
 * Connects to NATS with settings suited to long-running services: reconnect forever with a short
 * pause (JetStream consumers resume by themselves after a reconnect), and fail the first connect
 * quickly so a service with a wrong URL exits instead of hanging. A wrong user or password fails
 * the first connect (nats.js `AuthorizationError`); a subject the user may not use fails that
 * operation with a permissions violation.
 */
export function connectNats(opts: NatsConnectOptions): Promise<NatsConnection> {
  return connect({
    ...natsAuthOptions(opts.servers),
    name: opts.name,
    timeout: opts.timeoutMs ?? 5_000,
    reconnect: true,
    maxReconnectAttempts: opts.maxReconnectAttempts ?? -1,
    reconnectTimeWait: opts.reconnectTimeWaitMs ?? 1_000,
    // Detect a dead server in ~20 s instead of the 2 min x 2 default.
    pingInterval: 10_000,
    // No stack trace captured per request/publish (5% of an ingest's CPU); errors still say what failed.
    noAsyncTraces: true,
    maxPingOut: 2,
  });
}
