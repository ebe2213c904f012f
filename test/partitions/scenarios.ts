// The partitions (docs/reliability.md "Partitions"): each scenario says what it cuts from what, how
// long, and which gateways it cuts off from the admin API's revocations. run.ts and
// test/partitions-short.e2e.spec.ts run them through runScenario (run-scenario.ts).
import { GATEWAYS, MONGO, NATS, PROJECTORS, REDIS, SENTINELS, type PartitionCluster } from './hosts.ts';

export interface Cut {
  /** What was cut from what, in words. */
  cut: string;
  /** Gateways whose revocations may wait for the heal (their NATS server is on the far side). */
  cutOffGateways: number[];
  notes: string[];
}

export interface Scenario {
  name: string;
  title: string;
  /** How long the partition lasts. */
  holdMs: number;
  cut(c: PartitionCluster): Promise<Cut>;
}

const ALL_GATEWAYS = GATEWAYS.map((_, i) => i);

/** The hosts of the clients connected to NATS server `host` (its /connz, read from the test's side). */
async function clientsOf(c: PartitionCluster, host: string): Promise<string[]> {
  const res = await fetch(`http://${c.net.address(host)}:8222/connz?limit=1024`, {
    signal: AbortSignal.timeout(2_000),
  });
  const body = (await res.json()) as { connections?: { ip: string }[] };
  const ips = new Set((body.connections ?? []).map((x) => x.ip));
  return c.net.hosts.filter((h) => ips.has(c.net.address(h.name))).map((h) => h.name);
}

/** Gateways connected to NATS server `host`, by index. */
async function gatewaysOn(c: PartitionCluster, host: string): Promise<number[]> {
  const clients = await clientsOf(c, host);
  return ALL_GATEWAYS.filter((i) => clients.includes(GATEWAYS[i]!));
}

async function leader(c: PartitionCluster): Promise<string> {
  const l = await c.metaLeader();
  if (l === '') throw new Error('no JetStream meta leader to cut');
  return l;
}

export const SCENARIOS: Scenario[] = [
  {
    name: 'nats-minority',
    title: 'A NATS server (not the meta leader) cut from every other host',
    holdMs: 30_000,
    async cut(c) {
      const meta = await leader(c);
      // Of the two others, the one with more gateways (then more clients) on it: the harder cut.
      const others = await Promise.all(
        NATS.filter((h) => h !== meta).map(async (host) => ({
          host,
          clients: await clientsOf(c, host),
          gateways: await gatewaysOn(c, host),
        })),
      );
      others.sort((a, b) => b.gateways.length - a.gateways.length || b.clients.length - a.clients.length);
      const { host: victim, clients, gateways: cutOff } = others[0]!;
      await c.net.cut(
        [victim],
        c.net.hosts.map((h) => h.name),
      );
      return {
        cut: `${victim} cut from the other servers and every client (its clients: ${clients.join(', ') || 'none'})`,
        cutOffGateways: cutOff,
        notes: [`meta leader ${meta}`],
      };
    },
  },
  {
    name: 'nats-meta-leader',
    title: 'The JetStream meta leader cut from the other NATS servers',
    holdMs: 30_000,
    async cut(c) {
      const meta = await leader(c);
      const clients = await clientsOf(c, meta);
      const cutOff = await gatewaysOn(c, meta);
      await c.net.cut(
        [meta],
        NATS.filter((h) => h !== meta),
      );
      return {
        cut: `meta leader ${meta} cut from the other two servers; its clients (${clients.join(', ') || 'none'}) still reach it`,
        cutOffGateways: cutOff,
        notes: [],
      };
    },
  },
  {
    name: 'gateway-redis',
    title: 'A gateway cut from Redis (primary, replica, Sentinels)',
    holdMs: 20_000,
    async cut(c) {
      await c.net.cut([GATEWAYS[0]], [...REDIS, ...SENTINELS]);
      return { cut: `${GATEWAYS[0]} cut from ${[...REDIS, ...SENTINELS].join(', ')}`, cutOffGateways: [], notes: [] };
    },
  },
  {
    name: 'redis-primary-sentinels',
    title: 'The Redis primary cut from its Sentinels (failover)',
    holdMs: 20_000,
    async cut(c) {
      const primary = await c.sentinelPrimary();
      if (primary === '') throw new Error('the sentinels name no primary');
      await c.net.cut([primary], [...SENTINELS]);
      return {
        cut: `Redis primary ${primary} cut from ${SENTINELS.join(', ')} (the gateways and the replica still reach it)`,
        cutOffGateways: [],
        notes: [],
      };
    },
  },
  {
    name: 'projector-mongo',
    title: 'A projector cut from MongoDB',
    holdMs: 20_000,
    async cut(c) {
      await c.net.cut([PROJECTORS[0]], [MONGO]);
      return { cut: `${PROJECTORS[0]} cut from ${MONGO}`, cutOffGateways: [], notes: [] };
    },
  },
  {
    name: 'nats-bridge',
    title: 'A bridge: n1 sees n2, n2 sees n3, n1 does not see n3',
    holdMs: 30_000,
    async cut(c) {
      const meta = await leader(c);
      await c.net.cut([NATS[0]], [NATS[2]]);
      return {
        cut: `${NATS[0]} and ${NATS[2]} cut from each other, both see ${NATS[1]} and every client`,
        // Core NATS messages (the revocation notice) do not cross a missing route: any gateway may wait.
        cutOffGateways: ALL_GATEWAYS,
        notes: [`meta leader ${meta} at the cut`],
      };
    },
  },
];
