// The whole system spread over network namespaces (net.ts), one process per host, for the
// partition suite (docs/reliability.md "Partitions"): a 3-server NATS JetStream cluster, Redis
// primary + replica + 3 Sentinels, the MongoDB API server, the admin API, 2 gateways, 1 query
// service and 2 projectors, and a host for the ingest runs. Every stream and bucket at 3 replicas,
// every component with its own NATS and Redis user, as on clustered infrastructure
// (test/support/harness.ts, test/cluster.e2e.spec.ts).
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  NATS_IDENTITIES,
  NATS_PERMISSIONS,
  NATS_SYSTEM_USER,
  REDIS_IDENTITIES,
  REPO_ROOT,
  createManagedProcess,
  natsAuthorizationConfig,
  probeMongo,
  probeNats,
  probeRedis,
  redisCommand,
  redisUserLines,
  resolveMongoBinary,
  type ManagedProcess,
  type NatsIdentity,
  type RedisIdentity,
} from '@cds/testkit';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { createNetwork, nsOf, type Host, type Network } from './net.ts';

export const NATS = ['n1', 'n2', 'n3'] as const;
export const REDIS = ['r1', 'r2'] as const;
export const SENTINELS = ['s1', 's2', 's3'] as const;
export const GATEWAYS = ['gw1', 'gw2'] as const;
export const PROJECTORS = ['p1', 'p2'] as const;
export const QUERY = 'q1';
export const ADMIN = 'admin';
export const MONGO = 'mongo';
export const INGEST = 'ingest';

const HOSTS: Host[] = [
  ...NATS.map((name, i) => ({ name, octet: 11 + i })),
  ...REDIS.map((name, i) => ({ name, octet: 21 + i })),
  ...SENTINELS.map((name, i) => ({ name, octet: 31 + i })),
  { name: MONGO, octet: 40 },
  { name: ADMIN, octet: 50 },
  ...GATEWAYS.map((name, i) => ({ name, octet: 61 + i })),
  { name: QUERY, octet: 71 },
  ...PROJECTORS.map((name, i) => ({ name, octet: 81 + i })),
  { name: INGEST, octet: 90 },
];

const NATS_PORT = 4222;
const NATS_MONITOR = 8222;
const NATS_ROUTE = 6222;
const REDIS_PORT = 6379;
const SENTINEL_PORT = 26379;
const MONGO_PORT = 27017;
const SERVICE_PORT = 8080;
export const SENTINEL_NAME = 'cds-redis';
const READY_MS = 90_000;

const password = () => randomBytes(18).toString('base64url');
const withUser = (url: string, user: string, pass: string) => {
  const u = new URL(url);
  u.username = user;
  u.password = pass;
  return u.toString();
};

/** A process on a host: a ManagedProcess run through `ip netns exec`. */
export interface HostProcess extends ManagedProcess {
  readonly host: string;
}

/** A service of this repository on a host. */
export interface HostService extends HostProcess {
  readonly url: string;
}

export interface PartitionCluster {
  net: Network;
  /** The NATS system user's address over the three servers (the test's probes). */
  natsUrl: string;
  nats: Record<NatsIdentity, string>;
  mongoUrl: string;
  adminToken: string;
  admin: HostService;
  gateways: HostService[];
  query: HostService;
  projectors: HostService[];
  natsServers: HostProcess[];
  redisServers: HostProcess[];
  sentinels: HostProcess[];
  /** The host leading the JetStream meta group, as the first server that answers sees it. */
  metaLeader(): Promise<string>;
  /** The host every sentinel that answers names as the primary ('' while they disagree). */
  sentinelPrimary(): Promise<string>;
  /**
   * Why the NATS cluster is not whole yet ('' once it is): every server sees the same meta leader
   * and every stream (events and KV buckets) has a leader and two current replicas.
   */
  natsUnhealed(probe: Messaging): Promise<string>;
  /** Every process's last output lines, for a failure's message. */
  tails(): string;
  stop(): Promise<void>;
}

/** `command args` in the host's namespace, with its readiness probe. */
function onHost(
  host: string,
  name: string,
  command: string,
  args: string[],
  probe: () => Promise<void>,
  env?: NodeJS.ProcessEnv,
): HostProcess {
  const proc = createManagedProcess({
    name: `${name} (${host})`,
    command: 'ip',
    args: ['netns', 'exec', nsOf(host), command, ...args],
    probe,
    readyTimeoutMs: READY_MS,
    stopTimeoutMs: 5_000,
    ...(env !== undefined ? { env } : {}),
  });
  return Object.assign(proc, { host });
}

async function fetchJson(url: string, timeoutMs = 2_000): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.json();
}

/** Writes each NATS server's config; returns the processes and the users' addresses. */
async function natsServers(net: Network, dir: string) {
  const system = password();
  const passwords = Object.fromEntries(NATS_IDENTITIES.map((id) => [id, password()])) as Record<NatsIdentity, string>;
  const auth = natsAuthorizationConfig([
    { user: NATS_SYSTEM_USER, password: system },
    ...NATS_IDENTITIES.map((id) => ({ user: id, password: passwords[id], permissions: NATS_PERMISSIONS[id] })),
  ]);
  const addresses = NATS.map((h) => `nats://${net.address(h)}:${NATS_PORT}`);
  const routes = NATS.map((h) => `nats-route://${net.address(h)}:${NATS_ROUTE}`).join(', ');
  const procs: HostProcess[] = [];
  for (const host of NATS) {
    const own = join(dir, host);
    await mkdir(join(own, 'store'), { recursive: true });
    const a = net.address(host);
    const file = join(own, 'nats.conf');
    await writeFile(
      file,
      [
        `server_name: cds-${host}`,
        `listen: "${a}:${NATS_PORT}"`,
        `http: "${a}:${NATS_MONITOR}"`,
        `jetstream {\n  store_dir: "${join(own, 'store')}"\n  sync_interval: always\n}`,
        `cluster {\n  name: cds-cluster\n  listen: "${a}:${NATS_ROUTE}"\n  routes: [${routes}]\n}`,
        auth,
      ].join('\n'),
      { mode: 0o600 },
    );
    procs.push(
      onHost(host, 'nats-server', 'nats-server', ['-c', file], async () => {
        await fetchJson(`http://${a}:${NATS_MONITOR}/healthz?js-enabled-only=true`);
      }),
    );
  }
  const ids = {} as Record<NatsIdentity, string>;
  for (const id of NATS_IDENTITIES) ids[id] = addresses.map((u) => withUser(u, id, passwords[id])).join(',');
  return { procs, ids, system: addresses.map((u) => withUser(u, NATS_SYSTEM_USER, system)).join(',') };
}

/** The Redis primary, its replica and the three sentinels (quorum 2, 1 s down-after, as the testkit's). */
async function redisServers(net: Network, dir: string) {
  const passwords = Object.fromEntries(['default', ...REDIS_IDENTITIES].map((id) => [id, password()])) as Record<
    RedisIdentity | 'default',
    string
  >;
  const users = redisUserLines(passwords).flatMap((line) => ['--user', ...line.split(' ').slice(1)]);
  const primary = net.address(REDIS[0]);
  const servers = REDIS.map((host, i) => {
    const a = net.address(host);
    const args = [
      ...['--port', `${REDIS_PORT}`, '--bind', a, '--save', '', '--appendonly', 'no', '--dir', join(dir, host)],
      ...['--masteruser', 'default', '--masterauth', passwords.default],
      ...(i > 0 ? ['--replicaof', primary, `${REDIS_PORT}`] : []),
      ...users,
    ];
    return onHost(host, 'redis-server', 'redis-server', args, () =>
      probeRedis(withUser(`redis://${a}:${REDIS_PORT}`, 'default', passwords.default)),
    );
  });
  const sentinels: HostProcess[] = [];
  for (const host of SENTINELS) {
    const a = net.address(host);
    const own = join(dir, host);
    await mkdir(own, { recursive: true });
    const file = join(own, 'sentinel.conf');
    await writeFile(
      file,
      [
        `port ${SENTINEL_PORT}`,
        `bind ${a}`,
        `dir ${own}`,
        `sentinel monitor ${SENTINEL_NAME} ${primary} ${REDIS_PORT} 2`,
        `sentinel auth-user ${SENTINEL_NAME} default`,
        `sentinel auth-pass ${SENTINEL_NAME} ${passwords.default}`,
        `sentinel down-after-milliseconds ${SENTINEL_NAME} 1000`,
        `sentinel failover-timeout ${SENTINEL_NAME} 5000`,
        `sentinel parallel-syncs ${SENTINEL_NAME} 1`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    sentinels.push(
      onHost(host, 'redis-sentinel', 'redis-server', [file, '--sentinel'], () =>
        probeRedis(`redis://${a}:${SENTINEL_PORT}`),
      ),
    );
  }
  for (const host of REDIS) await mkdir(join(dir, host), { recursive: true });
  const gateway = withUser(`redis://${primary}:${REDIS_PORT}`, 'gateway', passwords.gateway);
  return {
    servers,
    sentinels,
    gateway,
    sentinelList: SENTINELS.map((h) => `${net.address(h)}:${SENTINEL_PORT}`).join(','),
  };
}

/** A service's process on its host (services/<service>/src/main.ts), ready when `/readyz` answers 2xx. */
function service(net: Network, host: string, name: string, dir: string, env: Record<string, string>): HostService {
  const a = net.address(host);
  const url = `http://${a}:${SERVICE_PORT}`;
  const { NATS_URL: _n, REDIS_URL: _r, MONGODB_URL: _m, ...inherited } = process.env;
  const proc = onHost(
    host,
    name,
    process.execPath,
    ['--disable-warning=ExperimentalWarning', join(REPO_ROOT, 'services', dir, 'src', 'main.ts')],
    async () => {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`${url}/readyz answered ${res.status}`);
    },
    { ...inherited, LOG_LEVEL: 'warn', CDS_LOCAL_ENV: '/nonexistent', ...env, HOST: a, PORT: String(SERVICE_PORT) },
  );
  return Object.assign(proc, { url });
}

/** Starts every host and process; stops what it started when any of it fails. */
export async function startPartitionCluster(): Promise<PartitionCluster> {
  const net = await createNetwork(HOSTS);
  const dir = await mkdtemp(join(tmpdir(), 'cds-partitions-'));
  const all: HostProcess[] = [];
  const stop = async () => {
    await Promise.allSettled([...all].reverse().map((p) => p.stop()));
    await net.destroy();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const nats = await natsServers(net, dir);
    const redis = await redisServers(net, dir);
    const mongoBinary = resolveMongoBinary();
    if (mongoBinary === undefined) throw new Error('no MongoDB API server (run through `bash scripts/run.sh`)');
    const mongoAddress = `${net.address(MONGO)}:${MONGO_PORT}`;
    const mongoUrl = `mongodb://${mongoAddress}/`;
    await mkdir(join(dir, MONGO), { recursive: true });
    const mongoArgs =
      mongoBinary.flavor === 'mongod'
        ? ['--dbpath', join(dir, MONGO), '--bind_ip', net.address(MONGO), '--port', `${MONGO_PORT}`, '--quiet']
        : ['-listen', mongoAddress, '-data', join(dir, MONGO), '-log-level', 'warn'];
    const mongo = onHost(MONGO, 'mongo', mongoBinary.path, mongoArgs, () => probeMongo(mongoUrl));
    all.push(...nats.procs, ...redis.servers, mongo);
    await Promise.all([...nats.procs, ...redis.servers, mongo].map((p) => p.start()));
    all.push(...redis.sentinels);
    await Promise.all(redis.sentinels.map((p) => p.start()));
    await awaitPlacement(nats.system);

    const adminToken = randomBytes(24).toString('hex');
    const common = { MONGODB_URL: mongoUrl, MONGODB_DB: 'cds', PUBLIC_BASE_URL: 'http://localhost:8080' };
    const replicas = { JETSTREAM_REPLICAS: '3' };
    const admin = service(net, ADMIN, 'accounts', 'accounts', {
      ...common,
      NATS_URL: nats.ids.admin,
      ADMIN_TOKEN: adminToken,
      STREAM_REPLICAS: '3',
    });
    all.push(admin);
    await admin.start();
    const query = service(net, QUERY, 'query', 'query', { ...common, NATS_URL: nats.ids.query });
    const projectors = PROJECTORS.map((h) =>
      service(net, h, `projector ${h}`, 'projector', {
        ...common,
        ...replicas,
        NATS_URL: nats.ids.projector,
        DEADLETTER_REPLICAS: '3',
        // What a pull had delivered to a projector cut off is redelivered after this (30 s by default).
        ACK_WAIT_MS: '10000',
      }),
    );
    const gateways = GATEWAYS.map((h) =>
      service(net, h, `gateway ${h}`, 'gateway', {
        ...common,
        ...replicas,
        NATS_URL: nats.ids.gateway,
        REDIS_URL: redis.gateway,
        REDIS_SENTINELS: redis.sentinelList,
        REDIS_SENTINEL_NAME: SENTINEL_NAME,
        QUERY_URL: `http://${net.address(QUERY)}:${SERVICE_PORT}`,
        // The suite polls refused keys from one address (the test's): past 30 a minute they would be 429.
        FAILED_AUTH_MAX: '100000',
      }),
    );
    all.push(query, ...projectors, ...gateways);
    await Promise.all([query, ...projectors, ...gateways].map((p) => p.start()));

    const monitor = (host: string) => `http://${net.address(host)}:${NATS_MONITOR}`;
    return {
      net,
      natsUrl: nats.system,
      nats: nats.ids,
      mongoUrl,
      adminToken,
      admin,
      gateways,
      query,
      projectors,
      natsServers: nats.procs,
      redisServers: redis.servers,
      sentinels: redis.sentinels,
      async metaLeader() {
        for (const host of NATS) {
          const jsz = (await fetchJson(`${monitor(host)}/jsz`).catch(() => undefined)) as
            { meta_cluster?: { leader?: string } } | undefined;
          const leader = jsz?.meta_cluster?.leader ?? '';
          if (leader.startsWith('cds-')) return leader.slice(4);
        }
        return '';
      },
      async sentinelPrimary() {
        const seen = new Set<string>();
        for (const host of SENTINELS) {
          const reply = await redisCommand(SENTINEL_PORT, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', SENTINEL_NAME], {
            host: net.address(host),
            timeoutMs: 1_000,
          }).catch(() => undefined);
          if (Array.isArray(reply) && typeof reply[0] === 'string') seen.add(reply[0]);
        }
        if (seen.size !== 1) return '';
        const address = [...seen][0]!;
        return net.hosts.find((h) => net.address(h.name) === address)?.name ?? '';
      },
      async natsUnhealed(probe) {
        const leaders = new Set<string>();
        for (const host of NATS) {
          const jsz = (await fetchJson(`${monitor(host)}/jsz`).catch(() => undefined)) as
            { meta_cluster?: { leader?: string } } | undefined;
          leaders.add(jsz?.meta_cluster?.leader ?? '');
        }
        if (leaders.size !== 1 || leaders.has('')) return `meta leaders seen: ${[...leaders].join(', ') || 'none'}`;
        const streams = await probe.jsm.streams.list().next();
        for (const info of streams) {
          const cluster = info.cluster;
          const current = (cluster?.replicas ?? []).filter((r) => r.current && !r.offline).length;
          if ((cluster?.leader ?? '') === '' || current < 2) {
            return `${info.config.name}: leader ${cluster?.leader ?? 'none'}, ${current} current replicas`;
          }
        }
        return '';
      },
      tails: () => all.map((p) => `--- ${p.name}\n${p.output().split('\n').slice(-8).join('\n')}`).join('\n'),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Resolves once the cluster places a 3-replica stream (as the testkit's awaitPlacement). */
async function awaitPlacement(systemUrl: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      await probeNats(systemUrl.split(',')[0]!, 5_000);
      const m = await connectMessaging({ servers: systemUrl, name: 'partitions-placement', timeoutMs: 5_000 });
      try {
        await m.jsm.streams.add({
          name: 'CDS_PARTITIONS_PLACEMENT',
          subjects: ['cds-partitions.placement'],
          num_replicas: 3,
        });
        await m.jsm.streams.delete('CDS_PARTITIONS_PLACEMENT');
        return;
      } finally {
        await m.close();
      }
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`the NATS cluster did not place a 3-replica stream within 60 s: ${String(last)}`);
}
