/** Which kind of MongoDB API server answers: a real mongod, FerretDB (SQLite), or unknown (external). */
export type MongoFlavor = 'mongod' | 'ferretdb' | 'container' | 'external';

/** How a server was provided: from an environment URL, a container, or a local binary. */
export type InfraSource = 'env' | 'container' | 'process';

import type { NatsIdentity, RedisIdentity } from './identities.ts';

/** A server started by the testkit, with the controls fault tests need. */
export interface ServerHandle {
  readonly name: 'nats' | 'redis' | 'mongo';
  readonly source: Exclude<InfraSource, 'env'>;
  /**
   * Client URL, e.g. `nats://127.0.0.1:4222`; stable across `restart()`. NATS and Redis: with the
   * user that may do everything (`cds-system`, Redis `default`), for tests and stream setup.
   */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** Host pid of the server process; undefined for containers and while it is not running. */
  readonly pid: number | undefined;
  /** Folder the server keeps its data in (process source only); kept across `restart()`. */
  readonly dataDir: string | undefined;
  /** The last lines the server printed, for error messages. */
  output(): string;
  /** Stops the server for good and removes the temporary folder the testkit created for it. */
  stop(): Promise<void>;
  /** Sends a signal (default SIGKILL) and, for SIGKILL, waits until the server is gone. Data stays. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server again (stopping it first when running) on the same port and data folder. */
  restart(): Promise<void>;
}

export interface NatsHandle extends ServerHandle {
  readonly name: 'nats';
  /** HTTP monitoring endpoint (`/healthz`, `/jsz`, `/varz`). */
  readonly monitorUrl: string;
  /** The address of each component, with its own user and permissions (identities.ts). */
  readonly identities: Readonly<Record<NatsIdentity, string>>;
  /**
   * The permission violations the server logged so far (a user refused a publish or subscription),
   * one line each; always empty for a container (its log is not followed).
   */
  violations(): string[];
}

export interface RedisHandle extends ServerHandle {
  readonly name: 'redis';
  /** The address of each component, with its own ACL user (identities.ts). */
  readonly identities: Readonly<Record<RedisIdentity, string>>;
}

export interface MongoHandle extends ServerHandle {
  readonly name: 'mongo';
  readonly flavor: MongoFlavor;
}

/** Options shared by `startNats`, `startRedis`, `startMongo`. */
export interface StartServerOptions {
  /** `process` runs a local binary, `container` uses testcontainers. Default `process`. */
  source?: 'process' | 'container';
  /** Parent folder for data; a fresh temporary folder (removed on `stop()`) when omitted. */
  dir?: string;
  /** How long to wait for the server to answer its protocol. Default 30 s (120 s for containers). */
  readyTimeoutMs?: number;
  /** Overrides the binary (process source) or the image (container source). */
  binary?: string;
  image?: string;
  /** Environment used to look up binaries (`PATH`, `CDS_BIN_DIR`). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}
