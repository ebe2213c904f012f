import { MongoClient, type Db } from 'mongodb';
import { mapStoreError } from './errors.ts';

export interface StoreOptions {
  url: string;
  /** Shown by the server in its logs and `currentOp`; use the service name. */
  appName: string;
  /** How long a caller waits for a connection when the pool is full (at least 2 s). Default 2 s. */
  queryTimeMs?: number;
  /** How long an operation waits for a usable server before failing. Default 3 s. */
  serverSelectionTimeoutMs?: number;
  /**
   * How long a connection may wait for an answer before the driver closes it and fails the
   * operation (a server that never answers cannot hold a caller forever). Default 60 s.
   */
  socketTimeoutMs?: number;
  /** Default 20 connections per server. */
  maxPoolSize?: number;
  /** Emit `commandStarted`/`commandSucceeded` events on the client (tracing, tests). */
  monitorCommands?: boolean;
}

/** A MongoDB client with the project's defaults. */
export interface Store {
  readonly client: MongoClient;
  /** The database `name`, or the one in the URL path. */
  db(name?: string): Db;
  /** Runs `ping`; throws StoreUnavailableError when the server cannot be reached. For readiness probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** First and largest wait between two connection attempts while the server has never answered. */
const CONNECT_RETRY_MS = { first: 250, max: 5_000 } as const;

/**
 * Creates a Store and connects in the background, so a service may start before its database.
 * With the short server selection timeout an operation fails in seconds while MongoDB is down
 * (a 503), instead of queueing for the driver's default 30 s.
 *
 * The driver's own "connect on first use" is not enough: when that first implicit connect fails,
 * the client's topology stays closed and every later operation fails with MongoTopologyClosedError,
 * even after the server is up (driver 7.9, reproduced in store.int.spec.ts); only an explicit
 * `connect()` opens it again. So until one succeeds, `connect()` is retried with backoff (and the
 * operations meanwhile fail as unavailable). Once connected, the driver's monitors handle outages.
 */
export function createStore(opts: StoreOptions): Store {
  const queryTimeMs = opts.queryTimeMs ?? 2_000;
  const serverSelectionTimeoutMS = opts.serverSelectionTimeoutMs ?? 3_000;
  const client = new MongoClient(opts.url, {
    appName: opts.appName,
    serverSelectionTimeoutMS,
    connectTimeoutMS: Math.max(serverSelectionTimeoutMS, 2_000),
    socketTimeoutMS: opts.socketTimeoutMs ?? 60_000,
    maxPoolSize: opts.maxPoolSize ?? 20,
    // A pool that is full makes callers wait at most this long for a connection.
    waitQueueTimeoutMS: Math.max(queryTimeMs, 2_000),
    // FerretDB (SQLite) has no replica sets; retryable writes need sessions it treats differently.
    retryWrites: false,
    monitorCommands: opts.monitorCommands ?? false,
  });
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  const connectUntilUp = (waitMs: number): void => {
    client.connect().then(
      () => {
        // A close() that raced this attempt must not leave a connected client behind.
        if (closed) void client.close().catch(() => undefined);
      },
      () => {
        if (closed) return;
        retry = setTimeout(() => connectUntilUp(Math.min(waitMs * 2, CONNECT_RETRY_MS.max)), waitMs);
        retry.unref();
      },
    );
  };
  connectUntilUp(CONNECT_RETRY_MS.first);
  return {
    client,
    db: (name) => client.db(name),
    ping: async () => {
      try {
        await client.db('admin').command({ ping: 1 });
      } catch (err) {
        throw mapStoreError(err);
      }
    },
    close: () => {
      closed = true;
      clearTimeout(retry);
      return client.close();
    },
  };
}

/** Creates a Store and connects it now, so a service with a wrong URL fails at startup. */
export async function connectStore(opts: StoreOptions): Promise<Store> {
  const store = createStore(opts);
  try {
    await store.client.connect();
  } catch (err) {
    await store.close().catch(() => undefined);
    throw mapStoreError(err);
  }
  return store;
}
