import { startRedisCluster, waitUntil, type RedisClusterHandle } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, defineScript, isRedisUnavailable, type RedisClient } from './index.ts';

// createRedis with REDIS_CLUSTER_NODES (clusterNodes) on a real 3-primary Redis Cluster (no
// replicas), as the gateway's ACL user and with the gateway's fail-fast settings.

// A counter with what the gateway's user may run (HMGET, HSET).
const COUNT = `
local n = tonumber(redis.call('HMGET', KEYS[1], 'n')[1] or '0') + 1
redis.call('HSET', KEYS[1], 'n', n)
return n
`;

describe('Redis Cluster through createRedis', () => {
  let cluster: RedisClusterHandle;
  let client: RedisClient;
  /** Three accounts whose window keys sit on three different nodes. */
  const onNode: string[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = createRedis({
      url: cluster.identities.gateway,
      name: 'gateway',
      // One node is enough: the client learns the others from it.
      clusterNodes: cluster.nodes.slice(0, 1),
      maxRetriesPerRequest: 0,
      offlineQueue: false,
    });
    await waitUntil('the cluster client ready', () => Promise.resolve(expect(client.status).toBe('ready')), 15_000);
    for (let i = 0; onNode.filter(Boolean).length < 3 && i < 1_000; i += 1) {
      const key = `cds:rl:{acc_cluster${i}}`;
      const slot = Number(await cluster.command(0, ['CLUSTER', 'KEYSLOT', key]));
      const node = cluster.nodeOfSlot(slot);
      onNode[node] ??= key;
    }
  }, 60_000);

  afterAll(async () => {
    client?.disconnect();
    await cluster?.stop();
  });

  it('refuses Sentinel with Cluster, and a db other than 0', () => {
    const nodes = [{ host: '127.0.0.1', port: 1 }];
    expect(() =>
      createRedis({ url: 'redis://127.0.0.1:1', name: 'x', clusterNodes: nodes, sentinels: nodes, sentinelName: 'm' }),
    ).toThrow(/REDIS_SENTINELS, REDIS_CLUSTER_NODES/);
    expect(() => createRedis({ url: 'redis://127.0.0.1:1/2', name: 'x', clusterNodes: nodes })).toThrow(/only db 0/);
  });

  it('runs a script on keys of every node, following MOVED from the one node it was given', async () => {
    expect(onNode.filter(Boolean)).toHaveLength(3);
    const count = defineScript<number>(client, { name: 'clusterCount', lua: COUNT, numberOfKeys: 1 });
    for (const key of onNode) {
      expect(await count([key], [])).toBe(1);
      expect(await count([key], [])).toBe(2);
    }
  });

  it("fails fast, as unavailable, on a lost node's keys while the others answer; back when it is", async () => {
    const count = defineScript<number>(client, { name: 'clusterCount2', lua: COUNT, numberOfKeys: 1 });
    const lost = 2;
    await cluster.killNode(lost);
    try {
      // With no replica nothing takes the node's slots over: the client's retries end within
      // about a second, with an error the callers read as Redis unavailable.
      let failure: { err: unknown; ms: number } = { err: undefined, ms: 0 };
      await waitUntil(
        "the lost node's keys refused",
        async () => {
          const started = Date.now();
          const err = await count([onNode[lost]!], []).then(
            () => undefined,
            (e: unknown) => e,
          );
          if (err === undefined) throw new Error('the lost node answered');
          failure = { err, ms: Date.now() - started };
        },
        15_000,
      );
      expect(isRedisUnavailable(failure.err), String(failure.err)).toBe(true);
      expect(failure.ms).toBeLessThan(2_500);
      await waitUntil('the other nodes answering', () => count([onNode[0]!], []).then(() => undefined), 15_000);
      expect(await count([onNode[1]!], [])).toBeGreaterThan(0);
    } finally {
      await cluster.startNode(lost);
    }
    // No persistence in the test cluster: the restarted node's count starts again.
    let back = 0;
    await waitUntil(
      'the restarted node answering',
      async () => {
        back = await count([onNode[lost]!], []);
      },
      20_000,
    );
    expect(back).toBeGreaterThan(0);
  }, 90_000);
});
