import { urlCredentials } from '@cds/config';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { startNatsCluster, startRedisSentinel, type NatsClusterHandle, type RedisSentinelHandle } from './cluster.ts';
import { isContainerRuntimeAvailable } from './container-servers.ts';
import { NATS_IDENTITIES, REDIS_IDENTITIES, sharedIdentities, type InfraIdentities } from './identities.ts';
import { startRedisCluster, type RedisClusterHandle } from './redis-cluster.ts';
import { startMongo, startNats, startRedis } from './servers.ts';
import type { InfraSource, MongoFlavor, MongoHandle, NatsHandle, RedisHandle, ServerHandle } from './types.ts';
import { waitUntil } from './wait.ts';

/** `auto`: containers when a Docker engine answers, else local binaries. */
export type InfraMode = 'auto' | 'containers' | 'local';

/** One service: either an existing server from the environment, or one the testkit starts. */
export type ServicePlan = { source: 'env'; url: string } | { source: 'start' };

export interface InfraPlan {
  mode: InfraMode;
  nats: ServicePlan;
  redis: ServicePlan;
  mongo: ServicePlan;
}

const URL_SCHEMES = {
  nats: { variable: 'NATS_URL', schemes: ['nats:', 'tls:'] },
  redis: { variable: 'REDIS_URL', schemes: ['redis:', 'rediss:'] },
  mongo: { variable: 'MONGODB_URL', schemes: ['mongodb:', 'mongodb+srv:'] },
} as const;

function planFor(service: keyof typeof URL_SCHEMES, env: Readonly<Record<string, string | undefined>>): ServicePlan {
  const { variable, schemes } = URL_SCHEMES[service];
  const raw = env[variable]?.trim();
  if (raw === undefined || raw === '') return { source: 'start' };
  let scheme: string;
  try {
    scheme = new URL(raw).protocol;
  } catch {
    throw new Error(`${variable} is not a valid URL: ${JSON.stringify(raw)}`);
  }
  if (!(schemes as readonly string[]).includes(scheme)) {
    throw new Error(
      `${variable} must start with ${schemes.map((s) => `${s}//`).join(' or ')}, got ${JSON.stringify(raw)}`,
    );
  }
  return { source: 'env', url: raw };
}

/**
 * Decides, from environment variables only, what the test infrastructure will use: each of
 * NATS_URL, REDIS_URL, MONGODB_URL independently names an existing server; CDS_TESTKIT_MODE
 * (`auto` | `containers` | `local`) forces how missing ones are started. Pure, so unit-testable.
 */
export function resolveInfraPlan(env: Readonly<Record<string, string | undefined>>): InfraPlan {
  const rawMode = env.CDS_TESTKIT_MODE?.trim() || 'auto';
  if (rawMode !== 'auto' && rawMode !== 'containers' && rawMode !== 'local') {
    throw new Error(`CDS_TESTKIT_MODE must be auto, containers or local, got ${JSON.stringify(rawMode)}`);
  }
  return { mode: rawMode, nats: planFor('nats', env), redis: planFor('redis', env), mongo: planFor('mongo', env) };
}

export interface InfraOptions {
  /** Environment to resolve the plan from and to find binaries with. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Parent folder for server data; fresh temporary folders when omitted. */
  dir?: string;
  readyTimeoutMs?: number;
  /** How long to wait for a Docker engine to answer in `auto` mode. Default 3 s. */
  dockerProbeTimeoutMs?: number;
  /**
   * Opt-in: a 3-server NATS JetStream cluster (startNatsCluster, local binaries) instead of one
   * server; resolves once a 3-replica stream can be placed. Refused with NATS_URL set.
   */
  natsCluster?: boolean;
  /** Opt-in: Redis with Sentinel (startRedisSentinel, local binaries) instead of one server. Refused with REDIS_URL set. */
  redisSentinel?: boolean;
  /** Opt-in: a Redis Cluster of 3 primaries with a replica each (startRedisCluster, local binaries) instead of one server. Refused with REDIS_URL set or with redisSentinel. */
  redisCluster?: boolean;
}

/** The running test infrastructure: URLs for clients, handles for what we started. */
export interface Infra {
  /** NATS and Redis: the user that may do everything (tests, stream setup), never a service's. */
  natsUrl: string;
  redisUrl: string;
  mongoUrl: string;
  mongoFlavor: MongoFlavor;
  /**
   * Each component's own address (its NATS user and Redis user, identities.ts), what startSystem
   * gives the services; a server from NATS_URL / REDIS_URL has only its given address for all.
   */
  identities: InfraIdentities;
  sources: { nats: InfraSource; redis: InfraSource; mongo: InfraSource };
  /** Handles of the servers the testkit started (env-provided ones are absent). */
  servers: { nats?: NatsHandle; redis?: RedisHandle; mongo?: MongoHandle };
  /** The NATS cluster, with InfraOptions.natsCluster (then `servers.nats` is absent). */
  natsCluster?: NatsClusterHandle;
  /** Redis with Sentinel, with InfraOptions.redisSentinel (then `servers.redis` is absent); services need its `sentinels` and `name`. */
  redisSentinel?: RedisSentinelHandle;
  /** Redis Cluster, with InfraOptions.redisCluster (then `servers.redis` is absent); services need its `nodes`. */
  redisCluster?: RedisClusterHandle;
  processes: ServerHandle[];
  /** Stops every server the testkit started; safe to call more than once. */
  stop(): Promise<void>;
}

/**
 * Provides NATS (JetStream), Redis and a MongoDB API server for a test run: environment URLs
 * first, then containers when a Docker engine answers, else local binaries on free ports.
 * If any server fails to start, the others are stopped before the error is thrown.
 */
export async function startInfra(opts: InfraOptions = {}): Promise<Infra> {
  const env = opts.env ?? process.env;
  const plan = resolveInfraPlan(env);
  if (opts.natsCluster === true && plan.nats.source === 'env') {
    throw new Error('natsCluster: the testkit starts its own NATS cluster; unset NATS_URL');
  }
  if (opts.redisSentinel === true && plan.redis.source === 'env') {
    throw new Error('redisSentinel: the testkit starts its own Redis with Sentinel; unset REDIS_URL');
  }
  if (opts.redisCluster === true && opts.redisSentinel === true) {
    throw new Error('redisCluster and redisSentinel: choose one Redis topology, not both');
  }
  if (opts.redisCluster === true && plan.redis.source === 'env') {
    throw new Error('redisCluster: the testkit starts its own Redis Cluster; unset REDIS_URL');
  }
  const natsSingle = plan.nats.source === 'start' && opts.natsCluster !== true;
  const redisSingle = plan.redis.source === 'start' && opts.redisSentinel !== true && opts.redisCluster !== true;
  const needsStart = natsSingle || redisSingle || plan.mongo.source === 'start';
  let source: 'process' | 'container' = 'process';
  if (needsStart && plan.mode !== 'local') {
    const docker = await isContainerRuntimeAvailable(opts.dockerProbeTimeoutMs);
    if (!docker && plan.mode === 'containers') {
      throw new Error(
        'CDS_TESTKIT_MODE=containers but no Docker-compatible engine answered (or testcontainers, a development ' +
          "dependency, is not installed: `npm start`'s production install leaves it out)",
      );
    }
    if (docker) source = 'container';
  }
  const serverOpts = { source, env, dir: opts.dir, readyTimeoutMs: opts.readyTimeoutMs };

  const none = Promise.resolve(undefined);
  const clusterOpts = { env, ...(opts.readyTimeoutMs !== undefined ? { readyTimeoutMs: opts.readyTimeoutMs } : {}) };
  const clustersStarting = Promise.allSettled([
    opts.natsCluster === true ? startNatsCluster(clusterOpts).then(awaitPlacement) : none,
    opts.redisSentinel === true ? startRedisSentinel(clusterOpts) : none,
    opts.redisCluster === true ? startRedisCluster({ ...clusterOpts, replicas: true }) : none,
  ] as const);
  const results = await Promise.allSettled([
    natsSingle ? startNats(serverOpts) : none,
    redisSingle ? startRedis(serverOpts) : none,
    plan.mongo.source === 'start' ? startMongo(serverOpts) : none,
  ] as const);
  const [natsClusterResult, redisSentinelResult, redisClusterResult] = await clustersStarting;
  const natsCluster = natsClusterResult.status === 'fulfilled' ? natsClusterResult.value : undefined;
  const redisSentinel = redisSentinelResult.status === 'fulfilled' ? redisSentinelResult.value : undefined;
  const redisCluster = redisClusterResult.status === 'fulfilled' ? redisClusterResult.value : undefined;
  const clusters = [natsCluster, redisSentinel, redisCluster].filter((c) => c !== undefined);
  const started = results.flatMap((r) => (r.status === 'fulfilled' && r.value !== undefined ? [r.value] : []));
  const failures = [natsClusterResult, redisSentinelResult, redisClusterResult, ...results].flatMap((r) =>
    r.status === 'rejected' ? [r.reason as unknown] : [],
  );
  if (failures.length > 0) {
    await Promise.allSettled([...started, ...clusters].map((s) => s.stop()));
    const messages = failures.map((f) => (f instanceof Error ? f.message : String(f)));
    throw new AggregateError(failures, `test infrastructure failed to start:\n${messages.join('\n\n')}`);
  }
  const [natsResult, redisResult, mongoResult] = results;
  const nats = natsResult.status === 'fulfilled' ? natsResult.value : undefined;
  const redis = redisResult.status === 'fulfilled' ? redisResult.value : undefined;
  const mongo = mongoResult.status === 'fulfilled' ? mongoResult.value : undefined;

  const urlOf = (p: ServicePlan, handle: ServerHandle | undefined): string =>
    p.source === 'env' ? p.url : (handle?.url ?? '');
  let stopped: Promise<void> | undefined;
  const natsUrl = natsCluster?.url ?? urlOf(plan.nats, nats);
  const redisUrl = redisSentinel?.url ?? redisCluster?.url ?? urlOf(plan.redis, redis);
  return {
    natsUrl,
    redisUrl,
    identities: {
      nats: natsCluster?.identities ?? nats?.identities ?? sharedIdentities(natsUrl, NATS_IDENTITIES),
      redis:
        redisSentinel?.identities ??
        redisCluster?.identities ??
        redis?.identities ??
        sharedIdentities(redisUrl, REDIS_IDENTITIES),
    },
    mongoUrl: urlOf(plan.mongo, mongo),
    mongoFlavor: mongo?.flavor ?? 'external',
    sources: {
      nats: natsCluster !== undefined ? 'process' : (nats?.source ?? 'env'),
      redis: redisSentinel !== undefined || redisCluster !== undefined ? 'process' : (redis?.source ?? 'env'),
      mongo: mongo?.source ?? 'env',
    },
    servers: { nats, redis, mongo },
    ...(natsCluster !== undefined ? { natsCluster } : {}),
    ...(redisSentinel !== undefined ? { redisSentinel } : {}),
    ...(redisCluster !== undefined ? { redisCluster } : {}),
    processes: started,
    stop: () => {
      stopped ??= Promise.allSettled([...started, ...clusters].map((s) => s.stop())).then((outcomes) => {
        const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
        if (errors.length > 0) throw new AggregateError(errors, 'some test servers did not stop cleanly');
      });
      return stopped;
    },
  };
}

/**
 * Resolves once the cluster places a 3-replica stream: right after the meta leader is elected a
 * peer may still count as offline ("no suitable peers for placement"), and a service creating its
 * streams at start would fail on it. Stops the cluster when it never does.
 */
async function awaitPlacement(cluster: NatsClusterHandle, timeoutMs = 30_000): Promise<NatsClusterHandle> {
  const servers = cluster.url.split(',');
  const { user, password } = urlCredentials(servers[0]!);
  const stream = 'CDS_TESTKIT_PLACEMENT';
  try {
    await waitUntil(
      'a 3-replica stream placed on the NATS cluster',
      async () => {
        const nc = await connect({
          servers: servers.map((s) => urlCredentials(s).address),
          ...(user !== undefined ? { user, pass: password ?? '' } : {}),
          timeout: 2_000,
          reconnect: false,
          name: 'cds-testkit-placement',
        });
        try {
          const jsm = await jetstreamManager(nc, { timeout: 5_000 });
          await jsm.streams.add({ name: stream, subjects: ['cds-testkit.placement'], num_replicas: 3 });
          await jsm.streams.delete(stream);
        } finally {
          await nc.close();
        }
      },
      timeoutMs,
    );
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}
