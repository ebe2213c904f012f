// The end-to-end harness: its own infrastructure (the stream names are fixed, so suites cannot share
// a NATS server), the whole application as processes, the real CLIs (the ingest CLI's code in this
// process), and helpers to call the API and check every answer against the OpenAPI document.
import { join } from 'node:path';
import { createOpenApiResponseValidator } from '@cds/contracts/testing';
import { connectMessaging, cotChecksBucketSpec, incidentsBucketSpec, releasesBucketSpec } from '@cds/messaging';
import { Kvm } from '@nats-io/kv';
import { REPO_ROOT, startInfra, startSystem, type Infra, type RunningSystem, type SystemOptions } from '@cds/testkit';

export const FIXTURES = join(REPO_ROOT, '..', 'shared', 'fixtures', 'real');
export const PLANS = ['free', 'professional', 'business', 'enterprise'] as const;
export type PlanName = (typeof PLANS)[number];

const validate = createOpenApiResponseValidator();

/** The OpenAPI path template of a concrete API path. */
export function templateOf(path: string): string {
  const p = path.split('?')[0]!.replace(/^\/api\/v1/, '');
  if (p === '/commodities') return p;
  if (/^\/commodities\/[^/]+$/.test(p)) return '/commodities/{slug}';
  if (/^\/commodities\/[^/]+\/series$/.test(p)) return '/commodities/{slug}/series';
  if (/^\/commodities\/[^/]+\/cot$/.test(p)) return '/commodities/{slug}/cot';
  if (/^\/commodities\/[^/]+\/supply-demand$/.test(p)) return '/commodities/{slug}/supply-demand';
  throw new Error(`no template for ${path}`);
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

export interface E2E {
  infra: Infra;
  system: RunningSystem;
  gatewayUrl: (replica?: number) => string;
  /** GET through a gateway replica with a key (header), validated against the OpenAPI document. */
  get(
    path: string,
    opts?: { key?: string; replica?: number; headers?: Record<string, string>; validate?: boolean },
  ): Promise<ApiResponse>;
  admin<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** A new account with one key; returns the key and ids. */
  account(plan: PlanName): Promise<{ accountId: string; keyId: string; key: string }>;
  /** `npm run ingest -- <args>` against this system's NATS (in this process; see below). */
  ingest(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }>;
  stop(): Promise<void>;
}

export interface E2EOptions {
  gateways?: number;
  /** Query replicas (gateway i forwards to query i mod n). Default 1. */
  queries?: number;
  /** Projector processes competing on the durable consumers. Default 1. */
  projectors?: number;
  /** Per-service extra environment (see SystemOptions.serviceEnv). */
  serviceEnv?: SystemOptions['serviceEnv'];
  /** Also start the developer dashboard (see SystemOptions.dashboard). */
  dashboard?: SystemOptions['dashboard'];
  /** Also start the webhook notifier (see SystemOptions.notifier). */
  notifier?: SystemOptions['notifier'];
  /**
   * Clustered infrastructure (test/cluster.e2e.spec.ts): a 3-server NATS JetStream cluster with every
   * stream and KV bucket at 3 replicas (the services' and the ingest CLI's replica settings), and
   * Redis with Sentinel (REDIS_SENTINELS / REDIS_SENTINEL_NAME for the gateway and the dashboard).
   */
  natsCluster?: boolean;
  redisSentinel?: boolean;
  /** A 3-primary Redis Cluster (REDIS_CLUSTER_NODES for the gateway and the dashboard); not with redisSentinel. */
  redisCluster?: boolean;
}

type ServiceEnv = NonNullable<SystemOptions['serviceEnv']>;

/** `extra` over `base`, service by service. */
function mergeServiceEnv(base: ServiceEnv, extra: ServiceEnv | undefined): ServiceEnv {
  const out: ServiceEnv = { ...base };
  for (const [service, env] of Object.entries(extra ?? {}) as [keyof ServiceEnv, Record<string, string>][]) {
    out[service] = { ...out[service], ...env };
  }
  return out;
}

/** The replica, Sentinel and Redis Cluster settings of every service on clustered infrastructure (E2EOptions.natsCluster / redisSentinel / redisCluster). */
function clusterServiceEnv(infra: Infra): ServiceEnv {
  let out: ServiceEnv = {};
  if (infra.natsCluster !== undefined) {
    const replicas = { JETSTREAM_REPLICAS: '3' };
    out = mergeServiceEnv(out, {
      accounts: { STREAM_REPLICAS: '3' },
      projector: { ...replicas, DEADLETTER_REPLICAS: '3' },
      gateway: replicas,
      notifier: replicas,
    });
  }
  const sentinel = infra.redisSentinel;
  if (sentinel !== undefined) {
    const env = {
      REDIS_SENTINELS: sentinel.sentinels.map((s) => `${s.host}:${s.port}`).join(','),
      REDIS_SENTINEL_NAME: sentinel.name,
    };
    out = mergeServiceEnv(out, { gateway: env, dashboard: env });
  }
  const redisCluster = infra.redisCluster;
  if (redisCluster !== undefined) {
    const env = { REDIS_CLUSTER_NODES: redisCluster.nodes.map((h) => `${h.host}:${h.port}`).join(',') };
    out = mergeServiceEnv(out, { gateway: env, dashboard: env });
  }
  return out;
}

/**
 * Creates the consistency failures bucket before the services start, as the projector does on the
 * first failing report, so the gateway follows it from its start: a gateway that starts before the
 * bucket exists looks for it again only every 30 s (services/gateway/src/status/cot-checks.ts; that
 * path has its own spec, cot-checks.int.spec.ts), which the suites waiting for a failure on
 * GET /status spent as a fixed wait. The projector's own create of the same bucket is idempotent.
 */
async function createConsistencyBucket(infra: Infra): Promise<void> {
  // A new NATS cluster may still be placing replicated streams (the services retry): there the
  // projector creates it, and no cluster suite waits for /status to list a failure.
  if (infra.natsCluster !== undefined) return;
  const messaging = await connectMessaging({ servers: infra.natsUrl, name: 'e2e-harness', timeoutMs: 10_000 });
  try {
    const kvm = new Kvm(messaging.js);
    await kvm.create(...cotChecksBucketSpec({ replicas: 1 }));
    // The incidents bucket too, as `npm run admin -- incident` creates it (services/accounts/src/cli/
    // incidents.ts): the gateway's GET /datasets follows it from its start, not 5 s after the first incident.
    await kvm.create(...incidentsBucketSpec({ replicas: 1 }));
    // And the release ledger, as the projector creates it on its first write.
    await kvm.create(...releasesBucketSpec({ replicas: 1 }));
  } finally {
    await messaging.close();
  }
}

export async function startE2E(opts: E2EOptions = {}): Promise<E2E> {
  // Own servers even when NATS_URL & co. are set: the suites must not share streams or windows.
  const { NATS_URL: _n, REDIS_URL: _r, MONGODB_URL: _m, ...env } = process.env;
  const infra = await startInfra({
    env,
    ...(opts.natsCluster === true ? { natsCluster: true } : {}),
    ...(opts.redisSentinel === true ? { redisSentinel: true } : {}),
    ...(opts.redisCluster === true ? { redisCluster: true } : {}),
  });
  try {
    await createConsistencyBucket(infra);
  } catch (err) {
    await infra.stop();
    throw err;
  }
  const clusterEnv = clusterServiceEnv(infra);
  const serviceEnv =
    Object.keys(clusterEnv).length > 0 ? mergeServiceEnv(clusterEnv, opts.serviceEnv) : opts.serviceEnv;
  // The ingest CLI creates CDS_DATA and its buckets like the accounts service: with the same replicas.
  const ingestEnv = infra.natsCluster !== undefined ? { STREAM_REPLICAS: '3' } : {};
  let system: RunningSystem;
  try {
    system = await startSystem({
      identities: infra.identities,
      mongoUrl: infra.mongoUrl,
      gateways: opts.gateways ?? 1,
      queries: opts.queries ?? 1,
      projectors: opts.projectors ?? 1,
      accountsBeside: true,
      ...(serviceEnv !== undefined ? { serviceEnv } : {}),
      ...(opts.dashboard !== undefined ? { dashboard: opts.dashboard } : {}),
      ...(opts.notifier !== undefined ? { notifier: opts.notifier } : {}),
      env: { LOG_LEVEL: 'warn' },
    });
  } catch (err) {
    await infra.stop();
    throw err;
  }
  const gatewayUrl = (replica = 0) => system.gateways[replica]!.url;

  const e2e: E2E = {
    infra,
    system,
    gatewayUrl,
    async get(path, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      if (o.key !== undefined) headers.authorization = `Bearer ${o.key}`;
      const res = await fetch(`${gatewayUrl(o.replica)}${path}`, { headers });
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (o.validate !== false && path.startsWith('/api/v1/commodities')) {
        const h: Record<string, string> = {};
        res.headers.forEach((v, k) => (h[k] = v));
        validate(templateOf(path), { statusCode: res.status, headers: h, body: text });
      }
      return { status: res.status, headers: res.headers, text, json };
    },
    async admin<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) {
      const res = await fetch(`${system.admin.url}/admin/v1${path}`, {
        method,
        headers: {
          authorization: `Bearer ${system.adminToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as T };
    },
    async account(plan) {
      const acc = await e2e.admin<{ account_id: string }>('POST', '/accounts', { name: `e2e ${plan}`, plan });
      if (acc.status !== 201) throw new Error(`create account: ${acc.status} ${JSON.stringify(acc.body)}`);
      const key = await e2e.admin<{ key_id: string; key: string }>('POST', `/accounts/${acc.body.account_id}/keys`, {});
      if (key.status !== 201) throw new Error(`create key: ${key.status} ${JSON.stringify(key.body)}`);
      // Every gateway replica learns the key from CDS_KEYS a few milliseconds later: wait for it, with a
      // request that does not count (If-None-Match: * is a 304, given back to the windows; an unknown
      // key is a 401, which never counts), so a spec's first request cannot race the key follower.
      for (let replica = 0; replica < system.gateways.length; replica += 1) {
        await eventually(
          `key of a new ${plan} account known on gateway ${replica}`,
          async () => {
            const res = await fetch(`${gatewayUrl(replica)}/api/v1/commodities`, {
              headers: { authorization: `Bearer ${key.body.key}`, 'if-none-match': '*' },
            });
            await res.arrayBuffer();
            return res.status !== 401;
          },
          5_000,
        );
      }
      return { accountId: acc.body.account_id, keyId: key.body.key_id, key: key.body.key };
    },
    async ingest(args) {
      // The CLI's own code (its arguments, the source, the publishing, the summary and the exit
      // code) run in this process: a Node.js start per call took 0.9 s, and an e2e run ingests some
      // 50 times. The CLI as a process, as `npm run ingest` runs it, has its own int specs
      // (services/ingest/src/cli/cli.int.spec.ts).
      const { runIngestCli } = await import('@cds/ingest/cli');
      let stdout = '';
      let stderr = '';
      try {
        const code = await runIngestCli([...args, '--nats-url', infra.identities.nats.ingest], {
          stdout: { write: (text: string) => (stdout += text) },
          stderr: { write: (text: string) => (stderr += text) },
          env: { ...process.env, ...ingestEnv, CDS_LOCAL_ENV: '/nonexistent' },
        });
        return { code, stdout, stderr };
      } catch (err) {
        // what the process would have died of: its stack on stderr, exit code 1
        return {
          code: 1,
          stdout,
          stderr: `${stderr}${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
        };
      }
    },
    async stop() {
      await system.stop();
      // Every service ran as its own NATS user (libs/testkit identities.ts): a refused publish or
      // subscription, even one a service only logged, fails the suite.
      const violations = [...(infra.servers.nats?.violations() ?? []), ...(infra.natsCluster?.violations() ?? [])];
      await infra.stop();
      if (violations.length > 0) {
        throw new Error(`NATS refused ${violations.length} operation(s) of the services:\n${violations.join('\n')}`);
      }
    },
  };
  return e2e;
}

/**
 * The status each gateway answers a request with `key` that no window counts (If-None-Match: *):
 * 304 once the gateway knows the key, 401 while it does not (or no longer).
 */
export async function keyStatuses(gatewayUrls: readonly string[], key: string): Promise<number[]> {
  return Promise.all(
    gatewayUrls.map(async (url) => {
      const res = await fetch(`${url}/api/v1/commodities`, {
        headers: { authorization: `Bearer ${key}`, 'if-none-match': '*' },
        signal: AbortSignal.timeout(5_000),
      });
      await res.arrayBuffer();
      return res.status;
    }),
  );
}

/** Polls until `probe` returns true (for eventual consistency: projections, key propagation). */
export async function eventually(label: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (await probe()) return Date.now() - start;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${label}: not reached within ${timeoutMs} ms`);
}
