import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { urlCredentials } from '@cds/config';
import { requireBinary } from './binaries.ts';
import type { ClusterOptions } from './cluster.ts';
import { redisServerAuth, type RedisIdentity } from './identities.ts';
import { redisServerArgs } from './local-servers.ts';
import { createManagedProcess, type ManagedProcess } from './managed-process.ts';
import { findFreePorts } from './ports.ts';
import { probeRedis } from './probes.ts';
import { redisCommand, type RedisReply } from './resp.ts';
import { waitUntil } from './wait.ts';

const HOST = '127.0.0.1';
const HINT = 'run `bash scripts/bootstrap.sh` (through `bash scripts/run.sh`)';
const SLOTS = 16_384;
const SIZE = 3;

export interface RedisClusterOptions extends ClusterOptions {
  /** One replica per primary (nodes 3..5 replicate 0..2): a lost primary's replica takes its slots. */
  replicas?: boolean;
}

export interface RedisClusterHandle {
  /** REDIS_CLUSTER_NODES: `host:port` of each node (index = node index; primaries 0..2 first, then their replicas). */
  readonly nodes: readonly { host: string; port: number }[];
  /** The default user's URL of node 0 (with REDIS_CLUSTER_NODES only its credentials count). */
  readonly url: string;
  /** Each component's REDIS_URL (its own user, on node 0). */
  readonly identities: Readonly<Record<RedisIdentity, string>>;
  /** Runs one command on node `index` as the default user (CLUSTER KEYSLOT, a look at a node's keys); an error reply rejects. */
  command(index: number, words: readonly string[], timeoutMs?: number): Promise<RedisReply>;
  /** The index of the node serving `slot` (0..16383), as CLUSTER SLOTS answered when the cluster formed. */
  nodeOfSlot(slot: number): number;
  /** SIGKILLs node `index`; with no replicas its slots stay unserved until startNode. */
  killNode(index: number): Promise<void>;
  /**
   * With replicas: waits until the slots of the killed primary `index` are served by another node
   * (its replica, promoted by the cluster) as every running node sees it; that node's index.
   */
  waitForFailover(index: number, timeoutMs?: number): Promise<number>;
  /** Starts node `index` again on its port and cluster config file, and waits until every node sees it back. */
  startNode(index: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** `field:value` lines of CLUSTER INFO. */
function infoFields(reply: RedisReply): Map<string, string> {
  if (typeof reply !== 'string') throw new Error(`CLUSTER INFO answered ${JSON.stringify(reply)}`);
  const out = new Map<string, string>();
  for (const line of reply.split('\r\n')) {
    const at = line.indexOf(':');
    if (at > 0) out.set(line.slice(0, at), line.slice(at + 1));
  }
  return out;
}

/** CLUSTER SLOTS as `[start, end, port]` ranges (the primary of each; no replicas here). */
function slotRanges(reply: RedisReply): [number, number, number][] {
  if (!Array.isArray(reply)) throw new Error(`CLUSTER SLOTS answered ${JSON.stringify(reply)}`);
  return reply.map((entry) => {
    const [start, end, primary] = Array.isArray(entry) ? entry : [];
    const port = Array.isArray(primary) ? primary[1] : undefined;
    if (typeof start !== 'number' || typeof end !== 'number' || typeof port !== 'number') {
      throw new Error(`unexpected CLUSTER SLOTS entry ${JSON.stringify(entry)}`);
    }
    return [start, end, port];
  });
}

/**
 * Starts a Redis Cluster of three primaries (and with `replicas`, one replica each, by CLUSTER
 * REPLICATE) from the local redis-server: each with
 * its own cluster config file and bus port, a 2 s node timeout, the testkit's ACL users
 * (identities.ts) and persistence off. Assigns a third of the slots to each node and introduces them
 * (CLUSTER ADDSLOTSRANGE / MEET, no redis-cli), then resolves once every node reports the cluster ok
 * with three known nodes and CLUSTER SLOTS covering all 16384 slots.
 */
export async function startRedisCluster(opts: RedisClusterOptions = {}): Promise<RedisClusterHandle> {
  // Six free ports are found, then bound by six processes: another suite starting servers side by
  // side (the soak) can take one in between. A node that could not bind starts the cluster again on
  // other ports, twice at most; any other failure is thrown at once.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisClusterOnce(opts);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof Error) || !/Address already in use/.test(err.message)) throw err;
    }
  }
}

async function startRedisClusterOnce(opts: RedisClusterOptions): Promise<RedisClusterHandle> {
  const command = requireBinary('redis-server', HINT, opts.env);
  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const auth = redisServerAuth();
  const { password } = urlCredentials(auth.url(`redis://${HOST}:1`));
  if (password === undefined) throw new Error('unreachable: the default Redis user has no password');
  const admin = { user: 'default', password };
  const total = opts.replicas === true ? SIZE * 2 : SIZE;
  const baseDir = await mkdtemp(join(tmpdir(), 'cds-redis-cluster-'));
  const procs: ManagedProcess[] = [];

  const stop = async (): Promise<void> => {
    await Promise.allSettled(procs.map((p) => p.stop()));
    await rm(baseDir, { recursive: true, force: true });
  };

  const ports: number[] = [];
  const busPorts: number[] = [];
  // Slots [from, to] of each node as redis-cli splits them: 0-5460, 5461-10922, 10923-16383.
  const ranges = Array.from(
    { length: SIZE },
    (_, i) => [Math.round((i * SLOTS) / SIZE), Math.round(((i + 1) * SLOTS) / SIZE) - 1] as const,
  );
  const slotOwner = new Int8Array(SLOTS).fill(-1);
  const cmd = (i: number, words: readonly string[]) => redisCommand(ports[i]!, words, { auth: admin });

  /** Every running node sees the cluster ok, all three nodes known and none failing, and every slot served by one of ours. */
  const checkCluster = async (): Promise<void> => {
    for (let i = 0; i < total; i++) {
      if (!procs[i]!.running) continue;
      const info = infoFields(await cmd(i, ['CLUSTER', 'INFO']));
      if (info.get('cluster_state') !== 'ok' || info.get('cluster_known_nodes') !== `${total}`) {
        throw new Error(
          `node ${i} (:${ports[i]}) reports cluster_state:${info.get('cluster_state')}, cluster_known_nodes:${info.get('cluster_known_nodes')}`,
        );
      }
      const nodes = await cmd(i, ['CLUSTER', 'NODES']);
      if (typeof nodes !== 'string') throw new Error(`CLUSTER NODES answered ${JSON.stringify(nodes)}`);
      const failing = nodes.split('\n').filter((line) => /\bfail\??\b|handshake|noaddr/.test(line.split(' ')[2] ?? ''));
      if (failing.length > 0) throw new Error(`node ${i} (:${ports[i]}) sees ${failing.join('; ')}`);
      let covered = 0;
      for (const [start, end, port] of slotRanges(await cmd(i, ['CLUSTER', 'SLOTS']))) {
        const owner = ports.indexOf(port);
        if (owner < 0)
          throw new Error(`node ${i} names :${port}, not a node of this cluster, for slots ${start}-${end}`);
        covered += end - start + 1;
        slotOwner.fill(owner, start, end + 1);
      }
      if (covered !== SLOTS) throw new Error(`node ${i} (:${ports[i]}) sees ${covered} of ${SLOTS} slots served`);
    }
  };

  try {
    ports.push(...(await findFreePorts(total * 2, HOST)));
    // An explicit bus port: the default (port + 10000) may be taken or beyond 65535.
    busPorts.push(...ports.splice(total));
    for (let i = 0; i < total; i++) {
      const dir = join(baseDir, `node-${i}`);
      await mkdir(dir, { recursive: true });
      procs.push(
        createManagedProcess({
          name: `redis-server cluster ${i < SIZE ? 'primary' : 'replica'} ${i} :${ports[i]}`,
          command,
          args: [
            ...redisServerArgs(ports[i]!, dir),
            '--cluster-enabled',
            'yes',
            // Rewritten by the node as it learns the topology: a restart rejoins from it.
            '--cluster-config-file',
            join(dir, 'nodes.conf'),
            '--cluster-port',
            `${busPorts[i]}`,
            '--cluster-node-timeout',
            '2000',
            // No replicas: without this, one node down would take the whole cluster down (CLUSTERDOWN)
            // instead of only its own slots.
            '--cluster-require-full-coverage',
            'no',
            // A replica (and a primary demoted after a failover) syncs as the default user.
            '--masteruser',
            'default',
            '--masterauth',
            password,
            ...auth.args,
          ],
          probe: () => probeRedis(auth.url(`redis://${HOST}:${ports[i]}`)),
          readyTimeoutMs,
          ...(opts.env !== undefined ? { env: opts.env } : {}),
        }),
      );
    }
    await Promise.all(procs.map((p) => p.start()));
    for (let i = 0; i < SIZE; i++) {
      await cmd(i, ['CLUSTER', 'ADDSLOTSRANGE', `${ranges[i]![0]}`, `${ranges[i]![1]}`]);
    }
    for (let i = 1; i < total; i++) await cmd(0, ['CLUSTER', 'MEET', HOST, `${ports[i]}`, `${busPorts[i]}`]);
    for (let i = SIZE; i < total; i++) {
      const primaryId = await cmd(i - SIZE, ['CLUSTER', 'MYID']);
      if (typeof primaryId !== 'string') throw new Error(`CLUSTER MYID answered ${JSON.stringify(primaryId)}`);
      // Refused until the replica has heard of the primary through the MEETs.
      await waitUntil(
        `Redis Cluster node ${i} replicating node ${i - SIZE}`,
        async () => {
          await cmd(i, ['CLUSTER', 'REPLICATE', primaryId]);
        },
        readyTimeoutMs,
      );
    }
    await waitUntil('Redis Cluster formed', checkCluster, readyTimeoutMs);
  } catch (err) {
    await stop();
    throw err;
  }

  const check = (index: number): ManagedProcess => {
    const p = Number.isInteger(index) ? procs[index] : undefined;
    if (p === undefined) throw new Error(`no Redis Cluster node ${index} (0..${total - 1})`);
    return p;
  };

  return {
    nodes: ports.map((port) => ({ host: HOST, port })),
    url: auth.url(`redis://${HOST}:${ports[0]}`),
    identities: auth.identities(`redis://${HOST}:${ports[0]}`),
    command: async (i, words, timeoutMs) => {
      check(i);
      return redisCommand(ports[i]!, words, { auth: admin, timeoutMs: timeoutMs ?? 2_000 });
    },
    nodeOfSlot: (slot) => {
      if (!Number.isInteger(slot) || slot < 0 || slot >= SLOTS) {
        throw new Error(`a Redis Cluster slot is an integer 0..${SLOTS - 1}, got ${slot}`);
      }
      return slotOwner[slot]!;
    },
    killNode: (i) => check(i).kill('SIGKILL'),
    waitForFailover: async (i, timeoutMs = readyTimeoutMs) => {
      check(i);
      const [from] = ranges[i] ?? [];
      if (from === undefined || opts.replicas !== true) throw new Error(`node ${i} is not a primary with a replica`);
      let owner = -1;
      await waitUntil(
        `the slots of node ${i} served by its replica`,
        async () => {
          for (let n = 0; n < total; n++) {
            if (!procs[n]!.running) continue;
            for (const [start, end, port] of slotRanges(await cmd(n, ['CLUSTER', 'SLOTS']))) {
              if (from < start || from > end) continue;
              owner = ports.indexOf(port);
              if (owner === i || !procs[owner]?.running) throw new Error(`node ${n} still names node ${owner}`);
              slotOwner.fill(owner, start, end + 1);
            }
          }
        },
        timeoutMs,
      );
      return owner;
    },
    startNode: async (i, timeoutMs = readyTimeoutMs) => {
      await check(i).start();
      // The others clear their FAIL flag on a primary with slots only some node timeouts after it came back.
      await waitUntil(`Redis Cluster node ${i} rejoined`, checkCluster, timeoutMs);
    },
    stop,
  };
}
