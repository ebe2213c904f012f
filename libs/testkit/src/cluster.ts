import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { urlCredentials } from '@cds/config';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { requireBinary } from './binaries.ts';
import { natsServerAuth, redisServerAuth, type NatsIdentity, type RedisIdentity } from './identities.ts';
import { createManagedProcess, type ManagedProcess } from './managed-process.ts';
import { redisServerArgs } from './local-servers.ts';
import { findFreePorts } from './ports.ts';
import { probeRedis } from './probes.ts';
import { redisCommand } from './resp.ts';
import { waitUntil } from './wait.ts';

const HOST = '127.0.0.1';
const HINT = 'run `bash scripts/bootstrap.sh` (through `bash scripts/run.sh`)';

export interface ClusterOptions {
  /** How long the whole cluster may take to form. Default 30 s. */
  readyTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** One server of a cluster the testkit started. */
export interface ClusterMember {
  readonly index: number;
  /** nats-server's `server_name` (what STREAM.INFO reports as `cluster.leader`). */
  readonly serverName: string;
  readonly port: number;
  readonly running: boolean;
  output(): string;
}

export interface NatsClusterHandle {
  /** Comma-separated client addresses with the system user, for NATS_URL. */
  readonly url: string;
  /** Each component's NATS_URL (comma-separated list with its own user). */
  readonly identities: Readonly<Record<NatsIdentity, string>>;
  readonly members: readonly ClusterMember[];
  /** SIGTERM (then SIGKILL) one server; its store stays for a restart. */
  stopServer(index: number): Promise<void>;
  /** SIGKILL one server (a crash). */
  killServer(index: number): Promise<void>;
  /** Starts a stopped or killed server again, on the same ports and store. */
  startServer(index: number): Promise<void>;
  /** SIGKILL every running server in the same turn (a power failure of the whole cluster). */
  killAll(): Promise<void>;
  /** Starts every stopped or killed server together, then waits for a meta leader (`timeoutMs`). */
  restartAll(timeoutMs?: number): Promise<void>;
  /** The index of the server leading `stream` (STREAM.INFO cluster.leader), waiting up to `timeoutMs` for one. */
  streamLeader(stream: string, timeoutMs?: number): Promise<number>;
  /** Waits until every running server sees the same JetStream meta leader. */
  waitForMetaLeader(timeoutMs?: number): Promise<string>;
  /** The permission violations the servers logged so far (a user refused a publish or subscription), one line each. */
  violations(): string[];
  stop(): Promise<void>;
}

async function fetchJson(url: string, timeoutMs = 2_000): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.json();
}

/**
 * Starts a 3-server NATS JetStream cluster from the local nats-server: each server with its own
 * store folder and free client, monitoring and route ports, the users of a single testkit server
 * (identities.ts) and `sync_interval: always`. Resolves once all three agree on a meta leader.
 */
export async function startNatsCluster(opts: ClusterOptions = {}): Promise<NatsClusterHandle> {
  const command = requireBinary('nats-server', HINT, opts.env);
  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const size = 3;
  const auth = natsServerAuth();
  const baseDir = await mkdtemp(join(tmpdir(), 'cds-nats-cluster-'));
  const ports = await findFreePorts(size * 3, HOST);
  const clientPort = (i: number) => ports[i * 3]!;
  const monitorPort = (i: number) => ports[i * 3 + 1]!;
  const routePort = (i: number) => ports[i * 3 + 2]!;
  const names = Array.from({ length: size }, (_, i) => `cds-n${i + 1}`);
  const routes = names.map((_, i) => `nats-route://${HOST}:${routePort(i)}`).join(', ');

  const procs: ManagedProcess[] = [];
  const violations: string[] = [];
  for (let i = 0; i < size; i++) {
    const dir = join(baseDir, names[i]!);
    await mkdir(join(dir, 'store'), { recursive: true });
    const config = [
      `server_name: ${names[i]}`,
      `listen: "${HOST}:${clientPort(i)}"`,
      `http: "${HOST}:${monitorPort(i)}"`,
      `jetstream {\n  store_dir: "${join(dir, 'store')}"\n  sync_interval: always\n}`,
      `cluster {\n  name: cds-cluster\n  listen: "${HOST}:${routePort(i)}"\n  routes: [${routes}]\n}`,
      auth.config,
    ].join('\n');
    const file = join(dir, 'nats.conf');
    await writeFile(file, config, { mode: 0o600 });
    procs.push(
      createManagedProcess({
        name: `nats-server ${names[i]}`,
        command,
        args: ['-c', file],
        // Ready to serve clients; the cluster as a whole is awaited below (meta leader).
        probe: async () => {
          await fetchJson(`http://${HOST}:${monitorPort(i)}/healthz?js-enabled-only=true`);
        },
        readyTimeoutMs,
        // As a single testkit server: `... - "$G/user:gateway" - Publish Violation - Subject "..."`.
        onLine: (line) => {
          if (/ Violation - /.test(line)) violations.push(`${names[i]}: ${line}`);
        },
        ...(opts.env !== undefined ? { env: opts.env } : {}),
      }),
    );
  }

  const address = names.map((_, i) => `nats://${HOST}:${clientPort(i)}`).join(',');
  // withUser() takes one URL: put the user on each address of the list.
  const url = names.map((_, i) => auth.url(`nats://${HOST}:${clientPort(i)}`)).join(',');
  const identities = {} as Record<NatsIdentity, string>;
  const perServer = names.map((_, i) => auth.identities(`nats://${HOST}:${clientPort(i)}`));
  for (const id of Object.keys(perServer[0]!) as NatsIdentity[]) {
    identities[id] = perServer.map((ids) => ids[id]).join(',');
  }

  const check = (index: number): ManagedProcess => {
    const p = procs[index];
    if (p === undefined) throw new Error(`no NATS cluster server ${index} (0..${size - 1})`);
    return p;
  };

  const waitForMetaLeader = async (timeoutMs = readyTimeoutMs): Promise<string> => {
    let leader = '';
    await waitUntil(
      'NATS cluster meta leader',
      async () => {
        const seen = new Set<string>();
        for (let i = 0; i < size; i++) {
          if (!procs[i]!.running) continue;
          const jsz = (await fetchJson(`http://${HOST}:${monitorPort(i)}/jsz`)) as {
            meta_cluster?: { leader?: string };
          };
          const l = jsz.meta_cluster?.leader ?? '';
          if (l === '') throw new Error(`${names[i]} sees no meta leader yet`);
          seen.add(l);
        }
        if (seen.size !== 1) throw new Error(`servers disagree on the meta leader: ${[...seen].join(', ')}`);
        leader = [...seen][0]!;
      },
      timeoutMs,
    );
    return leader;
  };

  const stop = async (): Promise<void> => {
    await Promise.allSettled(procs.map((p) => p.stop()));
    await rm(baseDir, { recursive: true, force: true });
  };

  try {
    // Together: a lone server of a cluster has no JetStream quorum.
    await Promise.all(procs.map((p) => p.start()));
    await waitForMetaLeader();
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    identities,
    members: names.map((serverName, index) => ({
      index,
      serverName,
      port: clientPort(index),
      get running() {
        return procs[index]!.running;
      },
      output: () => procs[index]!.output(),
    })),
    stopServer: (i) => check(i).stop(),
    killServer: (i) => check(i).kill('SIGKILL'),
    startServer: (i) => check(i).start(),
    // Each kill() sends its signal before its first await, so all three go out in this turn.
    killAll: async () => {
      await Promise.all(procs.map((p) => p.kill('SIGKILL')));
    },
    restartAll: async (timeoutMs = readyTimeoutMs) => {
      // Together, as at the first start: a lone server has no quorum to recover its streams with.
      await Promise.all(procs.filter((p) => !p.running).map((p) => p.start()));
      await waitForMetaLeader(timeoutMs);
    },
    streamLeader: async (stream, timeoutMs = 10_000) => {
      const { user, password } = urlCredentials(auth.url(`nats://${HOST}:1`));
      let index = -1;
      // Polled: right after a server loss the stream (or the meta group) may be electing a leader.
      await waitUntil(
        `the leader of stream ${stream}`,
        async () => {
          const nc = await connect({
            servers: address.split(','),
            ...(user !== undefined ? { user, pass: password ?? '' } : {}),
            timeout: 2_000,
            reconnect: false,
            name: 'cds-testkit-cluster',
          });
          try {
            const jsm = await jetstreamManager(nc, { timeout: 2_000 });
            const leader = (await jsm.streams.info(stream)).cluster?.leader ?? '';
            const found = names.indexOf(leader);
            if (found < 0) throw new Error(`stream ${stream} has no known leader (${leader || 'none'})`);
            index = found;
          } finally {
            await nc.close();
          }
        },
        timeoutMs,
      );
      return index;
    },
    waitForMetaLeader,
    violations: () => [...violations],
    stop,
  };
}

// ---------------------------------------------------------------------------------------------
// Redis with Sentinel

export interface RedisSentinelHandle {
  /** The primary's name the sentinels monitor (REDIS_SENTINEL_NAME). */
  readonly name: string;
  /** REDIS_SENTINELS: `host:port` of each sentinel. */
  readonly sentinels: readonly { host: string; port: number }[];
  /** The default user's REDIS_URL (its host:port is the first primary's; with sentinels only the credentials count). */
  readonly url: string;
  readonly identities: Readonly<Record<RedisIdentity, string>>;
  /** The port of the primary the sentinels currently name. */
  primaryPort(): Promise<number>;
  /** SIGKILLs the current primary; resolves with its port. */
  killPrimary(): Promise<number>;
  /** Waits until every sentinel names a primary other than `oldPort`, and that server answers. */
  waitForFailover(oldPort: number, timeoutMs?: number): Promise<number>;
  /** Restarts sentinel `index` (0..2). */
  restartSentinel(index: number): Promise<void>;
  /** Sends `signal` to sentinel `index` (0..2): SIGSTOP makes it a sentinel that accepts connections and never answers. */
  signalSentinel(index: number, signal: NodeJS.Signals): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts Redis with Sentinel from the local redis-server: a primary, a replica (`replicaof`) and
 * three sentinels (`--sentinel`, quorum 2, 1 s down-after), all servers with the testkit's ACL
 * users (identities.ts). Resolves once every sentinel names the primary and knows the replica and
 * the two other sentinels.
 */
export async function startRedisSentinel(opts: ClusterOptions = {}): Promise<RedisSentinelHandle> {
  const command = requireBinary('redis-server', HINT, opts.env);
  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const name = 'cds-redis';
  const auth = redisServerAuth();
  const { password } = urlCredentials(auth.url(`redis://${HOST}:1`));
  if (password === undefined) throw new Error('unreachable: the default Redis user has no password');
  const baseDir = await mkdtemp(join(tmpdir(), 'cds-redis-sentinel-'));
  const ports = await findFreePorts(5, HOST);
  const [primary, replica, ...sentinelPorts] = ports as [number, number, number, number, number];
  const env = opts.env !== undefined ? { env: opts.env } : {};

  const server = (port: number, replicaOf?: number): ManagedProcess => {
    const dir = join(baseDir, `redis-${port}`);
    return createManagedProcess({
      name: `redis-server :${port}`,
      command,
      args: [
        ...redisServerArgs(port, dir),
        // Both may become a replica after a failover: each reaches its primary as the default user.
        '--masteruser',
        'default',
        '--masterauth',
        password,
        ...(replicaOf !== undefined ? ['--replicaof', HOST, `${replicaOf}`] : []),
        ...auth.args,
      ],
      probe: () => probeRedis(auth.url(`redis://${HOST}:${port}`)),
      readyTimeoutMs,
      ...env,
    });
  };
  const servers = new Map<number, ManagedProcess>();
  const sentinels: ManagedProcess[] = [];

  const stop = async (): Promise<void> => {
    await Promise.allSettled([...sentinels, ...servers.values()].map((p) => p.stop()));
    await rm(baseDir, { recursive: true, force: true });
  };

  const sentinelView = async (port: number): Promise<{ primary: number; replicas: number; others: number }> => {
    const master = await redisCommand(port, ['SENTINEL', 'MASTER', name]);
    if (!Array.isArray(master)) throw new Error(`sentinel :${port} does not monitor ${name}`);
    const field = (key: string) => {
      const value = master[master.indexOf(key) + 1];
      return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
    };
    const flags = field('flags');
    if (/o_down|s_down/.test(flags)) throw new Error(`sentinel :${port} sees ${name} down (${flags})`);
    return {
      primary: Number(field('port')),
      replicas: Number(field('num-slaves')),
      others: Number(field('num-other-sentinels')),
    };
  };

  try {
    for (const p of [primary, replica]) await mkdir(join(baseDir, `redis-${p}`), { recursive: true });
    servers.set(primary, server(primary));
    servers.set(replica, server(replica, primary));
    await Promise.all([...servers.values()].map((p) => p.start()));
    for (const port of sentinelPorts) {
      const dir = join(baseDir, `sentinel-${port}`);
      await mkdir(dir, { recursive: true });
      const file = join(dir, 'sentinel.conf');
      // The sentinel rewrites this file as it learns the topology (it must be writable).
      await writeFile(
        file,
        [
          `port ${port}`,
          `bind ${HOST}`,
          `dir ${dir}`,
          `sentinel monitor ${name} ${HOST} ${primary} 2`,
          `sentinel auth-user ${name} default`,
          `sentinel auth-pass ${name} ${password}`,
          `sentinel down-after-milliseconds ${name} 1000`,
          `sentinel failover-timeout ${name} 5000`,
          `sentinel parallel-syncs ${name} 1`,
          '',
        ].join('\n'),
        { mode: 0o600 },
      );
      sentinels.push(
        createManagedProcess({
          name: `redis-sentinel :${port}`,
          command,
          args: [file, '--sentinel'],
          probe: () => probeRedis(`redis://${HOST}:${port}`),
          readyTimeoutMs,
          ...env,
        }),
      );
    }
    await Promise.all(sentinels.map((s) => s.start()));
    await waitUntil(
      'Redis sentinels agreeing on the primary',
      async () => {
        for (const port of sentinelPorts) {
          const v = await sentinelView(port);
          if (v.primary !== primary || v.replicas < 1 || v.others < 2) {
            throw new Error(
              `sentinel :${port} sees primary :${v.primary}, ${v.replicas} replica(s), ${v.others} other sentinel(s)`,
            );
          }
        }
      },
      readyTimeoutMs,
    );
  } catch (err) {
    await stop();
    throw err;
  }

  /** The primary the first sentinel that answers names (one may be stopped or paused). */
  const primaryPort = async (): Promise<number> => {
    let last: unknown;
    for (const port of sentinelPorts) {
      try {
        return (await sentinelView(port)).primary;
      } catch (err) {
        last = err;
      }
    }
    throw last;
  };

  return {
    name,
    sentinels: sentinelPorts.map((port) => ({ host: HOST, port })),
    url: auth.url(`redis://${HOST}:${primary}`),
    identities: auth.identities(`redis://${HOST}:${primary}`),
    primaryPort,
    killPrimary: async () => {
      const port = await primaryPort();
      const proc = servers.get(port);
      if (proc === undefined) throw new Error(`the sentinels name :${port}, which the testkit did not start`);
      await proc.kill('SIGKILL');
      return port;
    },
    waitForFailover: async (oldPort, timeoutMs = 20_000) => {
      let next = oldPort;
      await waitUntil(
        'Redis Sentinel failover',
        async () => {
          const seen = new Set<number>();
          for (const port of sentinelPorts) {
            const master = await redisCommand(port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name]);
            if (!Array.isArray(master)) throw new Error(`sentinel :${port} names no primary`);
            seen.add(Number(master[1]));
          }
          if (seen.size !== 1 || seen.has(oldPort)) {
            throw new Error(`sentinels name ${[...seen].map((p) => `:${p}`).join(', ')}`);
          }
          next = [...seen][0]!;
          await probeRedis(auth.url(`redis://${HOST}:${next}`));
        },
        timeoutMs,
      );
      return next;
    },
    restartSentinel: async (index) => {
      const s = sentinels[index];
      if (s === undefined) throw new Error(`no sentinel ${index} (0..2)`);
      await s.stop();
      await s.start();
    },
    signalSentinel: async (index, signal) => {
      const s = sentinels[index];
      if (s === undefined) throw new Error(`no sentinel ${index} (0..2)`);
      await s.kill(signal);
    },
    stop,
  };
}
