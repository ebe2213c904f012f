import { urlCredentials } from '@cds/config';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInfra } from './infra.ts';
import { startRedisCluster, type RedisClusterHandle } from './redis-cluster.ts';
import { waitUntil } from './wait.ts';

// One key per rate window, as the gateway writes them (a hash per account window).
const SCRIPT = "redis.call('HSET', KEYS[1], 'n', ARGV[1]); return redis.call('HMGET', KEYS[1], 'n')[1]";

/** How ioredis fails a command for a node that is down (after its redirections and retries), not our deadline. */
const LOST = /Too many Cluster redirections|Connection is closed|ECONNREFUSED|CLUSTERDOWN/;

/** `promise`, or a rejection after `ms`: a command to a dead node must not hang the spec. */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describe('Redis Cluster (3 primaries, no replicas)', () => {
  let cluster: RedisClusterHandle;
  let client: Cluster;
  /** One key under cds:rl:{acc_…} per node (index = node index). */
  const keys: string[] = [];

  const evalOn = (key: string, value: string) => within(3_000, client.eval(SCRIPT, 1, key, value));

  beforeAll(async () => {
    cluster = await startRedisCluster();
    for (let n = 0; keys.filter((k) => k !== undefined).length < 3; n++) {
      if (n > 1_000) throw new Error('no three hash tags on three nodes among 1000 accounts');
      const key = `cds:rl:{acc_${n}}:minute`;
      const slot = await cluster.command(0, ['CLUSTER', 'KEYSLOT', key]);
      const node = cluster.nodeOfSlot(Number(slot));
      keys[node] ??= key;
    }
    const gateway = urlCredentials(cluster.identities.gateway);
    // As a service would: REDIS_CLUSTER_NODES as startup nodes, the user and password from REDIS_URL.
    client = new Cluster([...cluster.nodes], {
      redisOptions: {
        username: gateway.user ?? '',
        password: gateway.password ?? '',
        connectTimeout: 1_000,
        maxRetriesPerRequest: 1,
      },
      slotsRefreshTimeout: 2_000,
      clusterRetryStrategy: () => 200,
    });
    await within(
      10_000,
      new Promise<void>((resolve, reject) => {
        client.once('ready', resolve);
        client.once('error', reject);
      }),
    );
  }, 60_000);

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('puts the slots of three hash tags on three different nodes', async () => {
    expect(cluster.nodes).toHaveLength(3);
    expect(new Set(cluster.nodes.map((n) => n.port)).size).toBe(3);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(3);
    expect([0, 5460, 5461, 10922, 10923, 16383].map((s) => cluster.nodeOfSlot(s))).toEqual([0, 0, 1, 1, 2, 2]);
    expect(() => cluster.nodeOfSlot(16384)).toThrow(/0\.\.16383/);
    await expect(cluster.command(3, ['PING'])).rejects.toThrow(/no Redis Cluster node 3/);
  });

  it('runs a script as the gateway user on each node, following MOVED from a node that does not own the key', async () => {
    const gateway = urlCredentials(cluster.identities.gateway);
    const single = new Redis({
      host: cluster.nodes[0]!.host,
      port: cluster.nodes[0]!.port,
      username: gateway.user ?? '',
      password: gateway.password ?? '',
      connectTimeout: 1_000,
      maxRetriesPerRequest: 1,
      lazyConnect: true,
    });
    try {
      await within(3_000, single.connect());
      // A plain client on node 0 is redirected for the keys of nodes 1 and 2...
      for (const node of [1, 2]) {
        await expect(within(3_000, single.eval(SCRIPT, 1, keys[node]!, 'x'))).rejects.toThrow(
          new RegExp(`^MOVED \\d+ ${cluster.nodes[node]!.host}:${cluster.nodes[node]!.port}$`),
        );
      }
    } finally {
      single.disconnect();
    }
    // ...which the cluster client follows, and every write lands on the node that owns the slot.
    for (const [node, key] of keys.entries()) {
      expect(await evalOn(key, `v${node}`)).toBe(`v${node}`);
      const stored = await cluster.command(node, ['HGET', key, 'n']);
      expect(stored).toBe(`v${node}`);
    }
  });

  it('keeps serving the other nodes’ slots while one node is down, and its own once it is back', async () => {
    const down = 1;
    await cluster.killNode(down);
    // No replicas: nothing takes over the dead node's slots, so its keys fail until it returns.
    await expect(evalOn(keys[down]!, 'lost')).rejects.toThrow(LOST);
    for (const node of [0, 2]) expect(await evalOn(keys[node]!, `still${node}`)).toBe(`still${node}`);
    // Also once the others have marked it failed (2 s node timeout): only its own slots are lost.
    await waitUntil(
      'the other nodes marking node 1 failed',
      async () => {
        const nodes = await cluster.command(0, ['CLUSTER', 'NODES']);
        if (typeof nodes !== 'string') throw new Error(`CLUSTER NODES answered ${JSON.stringify(nodes)}`);
        const line = nodes.split('\n').find((l) => l.includes(`:${cluster.nodes[down]!.port}@`));
        if (!/\bfail\b/.test(line?.split(' ')[2] ?? '')) throw new Error(`node 0 sees ${line}`);
      },
      10_000,
    );
    for (const node of [0, 2]) expect(await evalOn(keys[node]!, `failed${node}`)).toBe(`failed${node}`);
    await expect(evalOn(keys[down]!, 'lost')).rejects.toThrow(LOST);

    await cluster.startNode(down);
    // The client reconnects on its own; persistence is off, so the node came back empty.
    await waitUntil(
      'the restarted node answering through the cluster client',
      async () => {
        expect(await evalOn(keys[down]!, 'back')).toBe('back');
      },
      15_000,
    );
    for (const node of [0, 2]) expect(await evalOn(keys[node]!, `after${node}`)).toBe(`after${node}`);
  }, 60_000);

  it('is refused together with Redis Sentinel, or with REDIS_URL set, before anything starts', async () => {
    await expect(startInfra({ env: {}, redisCluster: true, redisSentinel: true })).rejects.toThrow(
      /redisCluster and redisSentinel/,
    );
    await expect(startInfra({ env: { REDIS_URL: 'redis://127.0.0.1:1' }, redisCluster: true })).rejects.toThrow(
      /unset REDIS_URL/,
    );
  });
});
