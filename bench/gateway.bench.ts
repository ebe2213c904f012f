// The public gateway, measured in one run against real NATS, Redis and FerretDB (or mongod):
//   1. throughput on a one-year daily price series, as a ratio to a bare fastify server sending the
//      same bytes (`bare`: the body with fastify's default headers; `bare_headers`: the gateway's
//      whole answer, its ~16 headers included, so gateway / bare_headers is what the gateway costs
//      beyond writing its answer), and to a reference gateway assembled from off-the-shelf plugins
//      (fastify + @fastify/rate-limit on Redis + @fastify/reply-from) in front of the same query service;
//   2. the latency the gateway adds over calling the query service directly, at moderate load;
//   3. revocation propagation: from publishing key.revoked (the notice on core NATS, then the key
//      stream, as the admin API sends them) to the first 401 on each of 3 replicas, with the time the
//      stream took to acknowledge (store) the event beside it; with BENCH_GATEWAY_BASE, the base
//      checkout's own three replicas too, the two sides revoking in turns; each side's first
//      revocation is a warm-up, not timed.
// Two more loads of the same gateway, printed beside the others: `gw 304`, every request with
// If-None-Match of the current ETag (answered 304 from the gateway's cache, the windows checked
// without counting), and `gw csv`, every request with Accept: text/csv (kept by the gateway as
// bytes, like the JSON form); their req/s are printed as ratios to the gateway's JSON 200.
// Three loads of hostile but cheap headers (N1 of the second security review), each printed with
// the gateway's own CPU per request beside the plain request's: `gw ws-accept`, an Accept just under
// the 1 KiB bound made of `x<600-999 spaces>y, application/json` (the shape a regex trim is quadratic
// on; the number of spaces varies per request, so no memo helps); `gw etags`, an If-None-Match of
// 20 other ETags and the current one (304); `gw over`, an Accept of 1.1-1.9 KB of such spaces,
// refused 400 before authentication. With BENCH_GATEWAY_BASE, the same three go to `base` too.
// Per-endpoint latency (issue #41, docs/slo.md), last: the gateway's own public endpoints (status,
// datasets, releases) and the keyed list, detail and series through it, timed request by request by
// a few sequential workers (a moderate load), each as the same request again (`same`: what the
// gateway's and the query's caches answer) and, where the endpoint takes a date window, as a request
// not asked before (`new`: a window of its own each time, so no cache holds it and the series is
// read from the database); the non-200 answers are counted in its table
// (BENCH_ENDPOINT_REQUESTS=800 BENCH_ENDPOINT_WORKERS=4, the defaults).
//
//   node bench/gateway.bench.ts       (root script: npm run bench:gateway)
//   BENCH_DURATION_S=3 BENCH_CONNECTIONS=32 BENCH_ROUNDS=4 BENCH_REVOCATIONS=30 (the defaults);
//   BENCH_GATEWAY_NODE_ARGS adds Node flags to the gateways (for example --cpu-prof).
//   BENCH_GATEWAY_BASE=<another checkout> adds a target `base`: that checkout's gateway against the
//   same query service, Redis and NATS, loaded in every round with the others, for a before/after
//   in one run (the checkout needs its node_modules; figures of separate runs on a shared machine
//   differ more than most changes do).
//
// Every server runs in its own process (the gateways as the real services/gateway/src/main.ts), the
// load generator in this one. Targets alternate back to back each round (order rotated), and the
// ratios are medians over rounds, so drift in machine load hits every side alike.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { MongoClient } from 'mongodb';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import {
  DATASETS,
  KEY_REVOCATION_NOTICES,
  KEYS_STREAM,
  KEYS_SUBJECTS,
  subjectFor,
  type KeyEvent,
} from '@cds/contracts';
import { connectMessaging, encodeJson, type Messaging } from '@cds/messaging';
import { COLLECTIONS } from '@cds/read-models';
import { packSeriesBucket } from '@cds/store';
import { buildApp, createMongoRepository, createResponseCache } from '@cds/query';
import { catalogDoc, dateRange, descriptorOf, seriesBuckets } from '@cds/query/testing';
import { findFreePort, startMongo, startNats, startRedis, uniqueName } from '@cds/testkit';

const SLUG = 'CRUDE_OIL_WTI';
const PATH = `/api/v1/commodities/${SLUG}/series?type=price`;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const REVOCATIONS = Number(process.env.BENCH_REVOCATIONS ?? 30);
// Windows are per account: spread the load over enough enterprise accounts (1,000/min each) that
// no request is refused, so every target does the same work per request.
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 3000);
const ENDPOINT_REQUESTS = Number(process.env.BENCH_ENDPOINT_REQUESTS ?? 800);
const ENDPOINT_WORKERS = Number(process.env.BENCH_ENDPOINT_WORKERS ?? 4);

const keyOf = (i: number) => createHash('sha1').update(`bench-key-${i}`).digest('hex');
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

/** CPU time (user + system) a process has used so far, in microseconds (Linux /proc; 100 ticks/s). */
function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return 0;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

// ---- child roles -------------------------------------------------------------------------------

async function serveQuery(mongoUrl: string, db: string): Promise<void> {
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 2000 });
  const app = buildApp({
    repository: createMongoRepository({ db: client.db(db), maxTimeMs: 5000 }),
    cache: createResponseCache({ maxEntries: 1000, maxBytes: 64 * 1024 * 1024, ttlMs: 600_000 }),
    publicBaseUrl: 'http://localhost:8080',
    requestLogging: false,
  });
  const port = Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
  process.send?.({ port });
}

/** Sends the body; with `headers` (JSON), the gateway's whole answer: the same headers and bytes. */
async function serveBare(body: string, headers?: string): Promise<void> {
  const bytes = Buffer.from(body);
  const answer = headers === undefined ? { 'content-type': 'application/json; charset=utf-8' } : JSON.parse(headers);
  const app = Fastify();
  app.get('/api/v1/commodities/:slug/series', (_req, reply) => {
    void reply.headers(answer).send(bytes);
  });
  const port = Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
  process.send?.({ port });
}

/** The reference: what one would assemble from off-the-shelf plugins in an afternoon. */
async function serveReference(queryUrl: string, redisUrl: string): Promise<void> {
  const { default: rateLimit } = await import('@fastify/rate-limit');
  const { default: replyFrom } = await import('@fastify/reply-from');
  const redis = new Redis(redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 1 });
  const app = Fastify();
  await app.register(rateLimit, {
    redis,
    max: 1000,
    timeWindow: 60_000,
    keyGenerator: (req) => req.headers.authorization ?? req.ip,
    nameSpace: 'ref-rl-',
  });
  await app.register(replyFrom, { base: queryUrl, undici: { connections: 64, pipelining: 1 } });
  app.get('/api/v1/*', (req, reply) => reply.from(req.url));
  const port = Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
  process.send?.({ port });
}

// ---- orchestration -----------------------------------------------------------------------------

const children: ChildProcess[] = [];

const pidByPort = new Map<number, number | undefined>();

async function forkRole(args: string[]): Promise<number> {
  const child = fork(process.argv[1]!, args, { stdio: 'inherit' });
  children.push(child);
  const [msg] = (await once(child, 'message')) as [{ port: number }];
  pidByPort.set(msg.port, child.pid);
  return msg.port;
}

async function spawnGateway(env: Record<string, string>, cwd = process.cwd()): Promise<number> {
  const port = await findFreePort();
  // BENCH_GATEWAY_NODE_ARGS: extra Node flags for the gateways, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const extra = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((a) => a !== '');
  const child = spawn(
    process.execPath,
    [...extra, '--disable-warning=ExperimentalWarning', 'services/gateway/src/main.ts'],
    {
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
      cwd,
    },
  );
  children.push(child);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) {
      pidByPort.set(port, child.pid);
      return port;
    }
    if (Date.now() > deadline) throw new Error('gateway did not become ready');
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function seed(mongoUrl: string, db: string): Promise<void> {
  const client = new MongoClient(mongoUrl);
  const today = new Date().toISOString().slice(0, 10);
  const from = `${Number(today.slice(0, 4)) - 2}${today.slice(4)}`;
  const prices = dateRange(from, today, true).map((d, i) => {
    const c = Math.round((70 + Math.sin(i / 9) * 5 + i / 100) * 100) / 100;
    return { d, v: c, o: c - 0.4, h: c + 1.1, l: c - 1.3, c, vol: 150_000 + ((i * 7919) % 50_000) };
  });
  const d = client.db(db);
  await d.collection(COLLECTIONS.catalog).insertOne(
    catalogDoc(SLUG, {
      name: 'Crude Oil WTI',
      category: 'energy',
      unit: 'USD/bbl',
      series: [descriptorOf('price', prices, 'daily', 'USD/bbl')],
    }) as never,
  );
  await d
    .collection(COLLECTIONS.series)
    .insertMany(seriesBuckets(SLUG, 'price', prices, { unit: 'USD/bbl' }).map(packSeriesBucket) as never[]);
  await client.close();
}

async function publishKeys(messaging: Messaging): Promise<void> {
  await messaging.ensureStream({
    name: KEYS_STREAM,
    subjects: [KEYS_SUBJECTS],
    replicas: 1,
    duplicateWindowMs: 120_000,
  });
  const at = new Date().toISOString();
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < ACCOUNTS; i += 1) {
    const account = `acc_bench${String(i).padStart(6, '0')}`;
    const events: KeyEvent[] = [
      {
        id: `a${i}`,
        type: 'account.created',
        version: 1,
        occurred_at: at,
        source: 'bench',
        data: { account_id: account, name: `b${i}`, plan: 'enterprise' },
      },
      {
        id: `k${i}`,
        type: 'key.created',
        version: 1,
        occurred_at: at,
        source: 'bench',
        data: {
          key_id: `key_bench${String(i).padStart(6, '0')}`,
          account_id: account,
          key_hash: sha256(keyOf(i)),
          plan: 'enterprise',
        },
      },
    ];
    for (const e of events) pending.push(messaging.publish(subjectFor(e), e, { msgID: e.id }));
    if (pending.length >= 500) await Promise.all(pending.splice(0));
  }
  await Promise.all(pending);
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Server-side CPU per request: the target's process plus the ones it calls (query, Redis). */
  cpuPerRequest: number;
  /** CPU per request of the target's own process alone. */
  ownCpuPerRequest: number;
}

/** Processes whose CPU a target's request costs, by target port. */
const costOf = new Map<number, (number | undefined)[]>();

/** A load's extra request headers (fixed, or made per request from a counter) and the status class its answers should have. */
interface Variant {
  headers: Record<string, string> | ((i: number) => Record<string, string>);
  expect: '2xx' | '3xx' | '4xx';
}
let variantCounter = 0;
const PLAIN: Variant = { headers: {}, expect: '2xx' };

let nextKey = 0;
async function load(port: number, duration: number, withKeys: boolean, variant: Variant = PLAIN): Promise<Sample> {
  const pids = costOf.get(port) ?? [pidByPort.get(port)];
  const cpu0 = pids.reduce<number>((a, p) => a + cpuMicros(p), 0);
  const own0 = cpuMicros(pidByPort.get(port));
  const r = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'GET',
        path: PATH,
        setupRequest: (req) => {
          if (!withKeys) return req;
          nextKey = (nextKey + 1) % LOADED_KEYS;
          const extra = typeof variant.headers === 'function' ? variant.headers(variantCounter++) : variant.headers;
          return { ...req, headers: { ...extra, authorization: `Bearer ${keyOf(nextKey)}` } };
        },
      },
    ],
  });
  const cpu = pids.reduce<number>((a, p) => a + cpuMicros(p), 0) - cpu0;
  const own = cpuMicros(pidByPort.get(port)) - own0;
  return {
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors:
      r.errors +
      r.timeouts +
      (variant.expect === '2xx' ? r.non2xx : r.requests.total - (variant.expect === '3xx' ? r['3xx'] : r['4xx'])),
    cpuPerRequest: cpu / Math.max(1, r.requests.total),
    ownCpuPerRequest: own / Math.max(1, r.requests.total),
  };
}

/** Sequential requests from a few concurrent workers, timed one by one (sub-millisecond precision). */
async function latencies(port: number, workers: number, ms: number, withKeys: boolean): Promise<number[]> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: workers });
  const out: number[] = [];
  const end = Date.now() + ms;
  let k = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < end) {
        k = (k + 1) % LOADED_KEYS;
        const t0 = process.hrtime.bigint();
        const res = await pool.request({
          method: 'GET',
          path: PATH,
          headers: withKeys ? { authorization: `Bearer ${keyOf(k)}` } : {},
        });
        await res.body.arrayBuffer();
        if (res.statusCode === 200) out.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  await pool.close();
  return out;
}

/** A revocation's phases, ms from publishing: JetStream's acknowledgement (stored), and the first 401 on each replica. */
interface Revocation {
  acked: number;
  firstUnauthorized: number[];
}

/**
 * Revocations per side: one untimed first (the replicas' and the stream's first revocation runs
 * code paths nothing has run yet: measured, it was the slowest sample of almost every run, and
 * with 90 samples the p99 is the largest), then REVOCATIONS timed.
 */
const REVOKED_PER_SIDE = REVOCATIONS + 1;
/** Keys the loads never use: the last 2 × REVOKED_PER_SIDE accounts' (one set for the gateway's replicas, one for the base's). */
const LOADED_KEYS = ACCOUNTS - 2 * REVOKED_PER_SIDE;

/**
 * Publishes key.revoked for keys the loads never used and times the first 401 on each replica of
 * each side: sides take turns, one revocation each, so a before/after shares the machine's moments.
 */
async function revocations(messaging: Messaging, sides: number[][]): Promise<Revocation[][]> {
  const pools = sides.map((ports) => ports.map((p) => new Pool(`http://127.0.0.1:${p}`, { connections: 2 })));
  const status = async (pool: Pool, key: string) => {
    const res = await pool.request({
      method: 'GET',
      path: '/api/v1/commodities',
      headers: { authorization: `Bearer ${key}` },
    });
    await res.body.dump();
    return res.statusCode;
  };
  const samples: Revocation[][] = sides.map(() => []);
  for (let r = 0; r < REVOKED_PER_SIDE; r += 1) {
    for (const [side, replicas] of pools.entries()) {
      const i = ACCOUNTS - 1 - (side * REVOKED_PER_SIDE + r);
      const key = keyOf(i);
      for (const pool of replicas)
        if ((await status(pool, key)) === 401) throw new Error('key rejected before revocation');
      const account = `acc_bench${String(i).padStart(6, '0')}`;
      const event: KeyEvent = {
        id: `revoke-${i}`,
        type: 'key.revoked',
        version: 1,
        occurred_at: new Date().toISOString(),
        source: 'bench',
        data: { key_id: `key_bench${String(i).padStart(6, '0')}`, account_id: account, key_hash: sha256(key) },
      };
      const t0 = process.hrtime.bigint();
      const since = () => Number(process.hrtime.bigint() - t0) / 1e6;
      // As the admin API revokes (services/accounts commands/publish.ts): the notice, then the stream.
      messaging.nc.publish(KEY_REVOCATION_NOTICES, encodeJson(event));
      const published = messaging.publish(subjectFor(event), event, { msgID: event.id }).then(since);
      const firstUnauthorized = await Promise.all(
        replicas.map(async (pool) => {
          while ((await status(pool, key)) !== 401) {
            if (since() > 5e3) throw new Error('revocation not applied within 5 s');
          }
          return since();
        }),
      );
      const sample = { acked: await published, firstUnauthorized };
      if (r > 0) samples[side]!.push(sample); // r = 0: the warm-up
    }
  }
  await Promise.all(pools.flat().map((p) => p.close()));
  return samples;
}

const isoDaysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/**
 * One endpoint of the per-endpoint table: its path for request `i` (the same each time, or a date
 * window of its own), and whether it needs a key.
 */
interface Endpoint {
  name: string;
  mode: 'same' | 'new';
  keyed: boolean;
  path: (i: number) => string;
}

function endpoints(): Endpoint[] {
  const dataset = DATASETS[0]!.id;
  const releases = `/api/v1/releases?dataset=${dataset}`;
  const fixed = (name: string, keyed: boolean, path: string): Endpoint => ({
    name,
    mode: 'same',
    keyed,
    path: () => path,
  });
  return [
    fixed('status', false, '/api/v1/status'),
    fixed('datasets', false, '/api/v1/datasets'),
    fixed('releases', false, releases),
    // a window of its own per request: start 30-729 days back, 0-29 days long
    {
      name: 'releases',
      mode: 'new',
      keyed: false,
      path: (i) =>
        `${releases}&start_date=${isoDaysAgo(30 + (i % 700))}&end_date=${isoDaysAgo(Math.max(0, 30 + (i % 700) - (i % 30)))}`,
    },
    fixed('list', true, '/api/v1/commodities'),
    fixed('detail', true, `/api/v1/commodities/${SLUG}`),
    fixed('series', true, PATH),
    // a window of its own per request (start 1-700 days back, end 0-4 days back: 3,500 windows)
    {
      name: 'series',
      mode: 'new',
      keyed: true,
      path: (i) => `${PATH}&start_date=${isoDaysAgo(1 + (i % 700))}&end_date=${isoDaysAgo(Math.floor(i / 700) % 5)}`,
    },
  ];
}

/**
 * The per-endpoint latency table (docs/slo.md): ENDPOINT_REQUESTS GETs of each endpoint through the
 * gateway by ENDPOINT_WORKERS sequential workers (each sends its next request when its last answer's
 * body is read), timed one by one; the percentiles of the 200s, and how many answers were not 200.
 */
async function endpointLatencies(port: number): Promise<void> {
  console.log(
    `\nper-endpoint latency through the gateway, ms (${ENDPOINT_REQUESTS} requests each, ${ENDPOINT_WORKERS} sequential ` +
      'workers; same: the same request again, from the caches; new: a date window not asked before)',
  );
  console.log(`endpoint   request ${['p50', 'p95', 'p99', 'max'].map((h) => h.padStart(8)).join('')}  non-200`);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: ENDPOINT_WORKERS });
  let k = 0;
  const get = async (e: Endpoint, i: number): Promise<number | undefined> => {
    k = (k + 1) % LOADED_KEYS;
    const t0 = process.hrtime.bigint();
    try {
      const res = await pool.request({
        method: 'GET',
        path: e.path(i),
        headers: e.keyed ? { authorization: `Bearer ${keyOf(k)}` } : {},
        headersTimeout: 10_000,
        bodyTimeout: 10_000,
      });
      await res.body.arrayBuffer();
      return res.statusCode === 200 ? Number(process.hrtime.bigint() - t0) / 1e6 : undefined;
    } catch {
      return undefined;
    }
  };
  try {
    for (const e of endpoints()) {
      // warm-up of a fixed request (it fills the caches); a new window's is never asked again
      if (e.mode === 'same') for (let w = 0; w <= ENDPOINT_WORKERS; w++) await get(e, 0);
      const ms: number[] = [];
      let failed = 0;
      let next = 0;
      await Promise.all(
        Array.from({ length: ENDPOINT_WORKERS }, async () => {
          for (let i = next++; i < ENDPOINT_REQUESTS; i = next++) {
            const t = await get(e, i);
            if (t === undefined) failed++;
            else ms.push(t);
          }
        }),
      );
      const cells = [50, 95, 99, 100].map((p) => (ms.length === 0 ? NaN : pct(ms, p)).toFixed(2).padStart(8)).join('');
      console.log(`${e.name.padEnd(10)} ${e.mode.padEnd(7)} ${cells}  ${String(failed).padStart(7)}`);
    }
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const role = process.argv[2];
  if (role === '--query') return serveQuery(process.argv[3]!, process.argv[4]!);
  if (role === '--bare') return serveBare(process.argv[3]!, process.argv[4]);
  if (role === '--reference') return serveReference(process.argv[3]!, process.argv[4]!);

  const [nats, redis, mongo] = await Promise.all([startNats(), startRedis(), startMongo()]);
  const messaging = await connectMessaging({ servers: nats.url, name: 'bench' });
  try {
    const db = uniqueName('bench_gateway');
    await seed(mongo.url, db);
    await publishKeys(messaging);
    const queryPort = await forkRole(['--query', mongo.url, db]);
    const queryUrl = `http://127.0.0.1:${queryPort}`;
    const body = await (await fetch(`${queryUrl}${PATH}`)).text();
    // Every revocation's polls end on 401s from this one address: past FAILED_AUTH_MAX (30 a minute)
    // they would be 429s, and BENCH_REVOCATIONS above 30 could never finish.
    const env = {
      NATS_URL: nats.url,
      REDIS_URL: redis.url,
      QUERY_URL: queryUrl,
      FAILED_AUTH_MAX: String(10 * REVOKED_PER_SIDE + 30),
    };
    const gateways = [await spawnGateway(env), await spawnGateway(env), await spawnGateway(env)];
    const redisPid = redis.pid;
    const baseDir = process.env.BENCH_GATEWAY_BASE;
    // The gateway's answer as sent (its body is the query's with the gateway's request id, of the
    // same length), for a bare server that writes exactly that: headers and bytes.
    const sample = await fetch(`http://127.0.0.1:${gateways[0]}${PATH}`, {
      headers: { authorization: `Bearer ${keyOf(0)}` },
    });
    const answerBody = await sample.text();
    // The CSV form's size, for the `gw csv` load (fewer bytes to write than the JSON form).
    const csvBytes = (
      await (
        await fetch(`http://127.0.0.1:${gateways[0]}${PATH}`, {
          headers: { authorization: `Bearer ${keyOf(1)}`, accept: 'text/csv' },
        })
      ).arrayBuffer()
    ).byteLength;
    const answerHeaders: Record<string, string> = {};
    sample.headers.forEach((v, k) => {
      if (!['content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k))
        answerHeaders[k] = v;
    });
    const targets = {
      bare: await forkRole(['--bare', body]),
      bare_headers: await forkRole(['--bare', answerBody, JSON.stringify(answerHeaders)]),
      gateway: gateways[0]!,
      reference: await forkRole(['--reference', queryUrl, redis.url]),
      query: queryPort,
      base: baseDir === undefined ? 0 : await spawnGateway(env, baseDir),
    };
    for (const n of ['gateway', 'reference', 'base'] as const) {
      costOf.set(targets[n], [pidByPort.get(targets[n]), pidByPort.get(queryPort), redisPid]);
    }
    console.log(
      `one-year daily series: ${Buffer.byteLength(body)} B (CSV ${csvBytes} B); ${ACCOUNTS} enterprise accounts; autocannon ${CONNECTIONS} connections, ` +
        `${DURATION_S} s per run, ${ROUNDS} rounds (order rotated)\n`,
    );

    const etag = answerHeaders.etag;
    if (etag === undefined) throw new Error('the gateway sent no ETag');
    const HEADER_LOADS = ['ws-accept', 'etags', 'over'] as const;
    type HeaderLoad = (typeof HEADER_LOADS)[number];
    type Name =
      | 'bare'
      | 'bare_headers'
      | 'gateway'
      | 'reference'
      | 'query'
      | 'base'
      | 'gw 304'
      | 'gw csv'
      | `gw ${HeaderLoad}`
      | `base ${HeaderLoad}`;
    const keyed = (n: Name) => n !== 'bare' && n !== 'bare_headers' && n !== 'query';
    // `x<spaces>y`: one element no media range parses, so the rest decides (JSON).
    const spaced = (spaces: number) => `x${' '.repeat(spaces)}y`;
    const otherTags = Array.from({ length: 20 }, (_, i) => `"${String(i).padStart(43, 'o')}"`).join(', ');
    const headerLoads: Record<HeaderLoad, (overBoundAnswer: '2xx' | '4xx') => Variant> = {
      'ws-accept': () => ({
        headers: (i) => ({ accept: `${spaced(600 + (i % 400))}, application/json` }),
        expect: '2xx',
      }),
      etags: () => ({ headers: { 'if-none-match': `${otherTags}, ${etag}` }, expect: '3xx' }),
      over: (answer) => ({ headers: (i) => ({ accept: spaced(1100 + (i % 800)) }), expect: answer }),
    };
    const variants: Partial<Record<Name, Variant>> = {
      'gw 304': { headers: { 'if-none-match': etag }, expect: '3xx' },
      'gw csv': { headers: { accept: 'text/csv' }, expect: '2xx' },
    };
    for (const h of HEADER_LOADS) {
      variants[`gw ${h}`] = headerLoads[h]('4xx');
      // The base checkout has no bound: it serves the over-long Accept (as JSON).
      variants[`base ${h}`] = headerLoads[h]('2xx');
    }
    const port = (n: Name) =>
      n.startsWith('gw ') ? targets.gateway : n.startsWith('base ') ? targets.base : targets[n as keyof typeof targets];
    // BENCH_TARGETS=bare,gateway loads only those (e.g. to profile one path); the ratios need bare,
    // gateway and reference.
    const only = process.env.BENCH_TARGETS?.split(',');
    const names = (
      [
        'bare',
        'bare_headers',
        'gateway',
        'reference',
        'query',
        ...(baseDir === undefined ? [] : ['base' as const]),
        'gw 304',
        'gw csv',
        ...HEADER_LOADS.map((h) => `gw ${h}` as const),
        ...(baseDir === undefined ? [] : HEADER_LOADS.map((h) => `base ${h}` as const)),
      ] satisfies Name[]
    ).filter((n) => only === undefined || only.includes(n));
    for (const n of names) await load(port(n), 1, keyed(n), variants[n]);
    const samples: Record<Name, Sample[]> = {
      bare: [],
      bare_headers: [],
      gateway: [],
      reference: [],
      query: [],
      base: [],
      'gw 304': [],
      'gw csv': [],
      'gw ws-accept': [],
      'gw etags': [],
      'gw over': [],
      'base ws-accept': [],
      'base etags': [],
      'base over': [],
    };
    const vsBare: number[] = [];
    const vsBareHeaders: number[] = [];
    const vsReference: number[] = [];
    const vsBase: number[] = [];
    const notModifiedVsOk: number[] = [];
    const csvVsJson: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = [...names.slice(round % names.length), ...names.slice(0, round % names.length)];
      const got: Partial<Record<Name, Sample>> = {};
      for (const n of order) {
        got[n] = await load(port(n), DURATION_S, keyed(n), variants[n]);
        samples[n].push(got[n]);
      }
      const gw = got.gateway?.rps ?? NaN;
      if (got.bare !== undefined) vsBare.push(gw / got.bare.rps);
      if (got.bare_headers !== undefined) vsBareHeaders.push(gw / got.bare_headers.rps);
      if (got.reference !== undefined) vsReference.push(gw / got.reference.rps);
      if (got.base !== undefined) vsBase.push(gw / got.base.rps);
      if (got['gw 304'] !== undefined) notModifiedVsOk.push(got['gw 304'].rps / gw);
      if (got['gw csv'] !== undefined) csvVsJson.push(got['gw csv'].rps / gw);
    }
    const col = (n: Name, f: (s: Sample) => number, digits: number, width: number) =>
      median(samples[n].map(f)).toFixed(digits).padStart(width);
    console.log(
      'target      req/s (median)   p50 ms   p99 ms   errors   server CPU us/req (incl. query + Redis)   own process',
    );
    for (const n of names) {
      const errors = String(samples[n].reduce((a, s) => a + s.errors, 0)).padStart(8);
      console.log(
        `${n.padEnd(11)} ${col(n, (s) => s.rps, 0, 14)} ${col(n, (s) => s.p50, 1, 8)} ${col(n, (s) => s.p99, 1, 8)} ` +
          `${errors} ${col(n, (s) => s.cpuPerRequest, 1, 12)} ${col(n, (s) => s.ownCpuPerRequest, 1, 41)}`,
      );
    }
    const cpu = (n: Name) => median(samples[n].map((s) => s.cpuPerRequest));
    const rb = median(vsBare);
    const rr = median(vsReference);
    if (vsBare.length > 0 && vsReference.length > 0)
      console.log(
        `\nserver CPU per request, bare / gateway: ${(cpu('bare') / cpu('gateway')).toFixed(2)}; ` +
          `reference / gateway: ${(cpu('reference') / cpu('gateway')).toFixed(2)} (capacity ratios, robust to other load)`,
      );
    if (vsBare.length > 0) {
      console.log(
        `\ngateway / bare fastify:      ${rb.toFixed(2)}  (target >= 0.75: ${rb >= 0.75 ? 'met' : 'NOT met'})`,
      );
    }
    if (vsBareHeaders.length > 0) {
      const rh = median(vsBareHeaders);
      console.log(
        `gateway / bare_headers:      ${rh.toFixed(2)}  (target >= 0.90: ${rh >= 0.9 ? 'met' : 'NOT met'}; the bare ` +
          `server writing the gateway's whole answer: its ${Object.keys(answerHeaders).length} headers and the same bytes)`,
      );
    }
    if (notModifiedVsOk.length > 0) {
      const r = median(notModifiedVsOk);
      console.log(`gw 304 / gateway 200:        ${r.toFixed(2)}  (target >= 1.00: ${r >= 1 ? 'met' : 'NOT met'})`);
    }
    if (csvVsJson.length > 0) {
      const r = median(csvVsJson);
      console.log(`gw csv / gateway JSON 200:   ${r.toFixed(2)}  (target >= 0.80: ${r >= 0.8 ? 'met' : 'NOT met'})`);
    }
    const own = (n: Name) => median(samples[n].map((s) => s.ownCpuPerRequest));
    if (samples.gateway.length > 0 && samples['gw ws-accept'].length > 0) {
      console.log('\nhostile headers, each gateway process: its own CPU per request (us), beside a plain request:');
      const sides: ['gateway' | 'base', string][] = [['gateway', 'gw']];
      if (baseDir !== undefined) sides.push(['base', 'base']);
      for (const [plain, prefix] of sides) {
        const cells = HEADER_LOADS.map((h) => `${h} ${own(`${prefix} ${h}` as Name).toFixed(1)}`).join(', ');
        console.log(`  ${plain.padEnd(8)} plain ${own(plain).toFixed(1)}, ${cells}`);
      }
    }
    if (vsReference.length > 0)
      console.log(`gateway / reference gateway: ${rr.toFixed(2)}  (target >= 1.00: ${rr >= 1 ? 'met' : 'NOT met'})`);
    if (vsBase.length > 0) {
      console.log(
        `gateway / base (${baseDir}): ${median(vsBase).toFixed(3)} in req/s, ${(cpu('base') / cpu('gateway')).toFixed(3)} in CPU per request`,
      );
    }

    const direct = await latencies(queryPort, 4, 4000, false);
    const via = await latencies(gateways[0]!, 4, 4000, true);
    const added = pct(via, 50) - pct(direct, 50);
    if (baseDir !== undefined) {
      const viaBase = await latencies(targets.base, 4, 4000, true);
      console.log(`\nbase added latency p50:      ${(pct(viaBase, 50) - pct(direct, 50)).toFixed(3)} ms`);
    }
    console.log(
      `\nlatency at moderate load (4 sequential workers): query direct p50 ${pct(direct, 50).toFixed(3)} ms, ` +
        `via gateway p50 ${pct(via, 50).toFixed(3)} ms (p99 ${pct(direct, 99).toFixed(2)} / ${pct(via, 99).toFixed(2)} ms)`,
    );
    console.log(
      `gateway added latency p50:   ${added.toFixed(3)} ms  (target < 0.3 ms: ${added < 0.3 ? 'met' : 'NOT met'})`,
    );

    // The base's revocations go to three replicas of its own, beside the gateway's three.
    const baseGateways =
      baseDir === undefined ? [] : [targets.base, await spawnGateway(env, baseDir), await spawnGateway(env, baseDir)];
    const sides = await revocations(messaging, baseDir === undefined ? [gateways] : [gateways, baseGateways]);
    for (const [side, rev] of sides.entries()) {
      const all = rev.flatMap((s) => s.firstUnauthorized);
      const acked = rev.map((s) => s.acked);
      const last = rev.map((s) => Math.max(...s.firstUnauthorized));
      const p99 = pct(all, 99);
      console.log(
        `\n${side === 0 ? 'revocation' : `base (${baseDir}) revocation`} -> 401 on 3 replicas, ${all.length} samples: ` +
          `p50 ${pct(all, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, max ${Math.max(...all).toFixed(2)} ms  ` +
          `(target p99 < 10 ms: ${p99 < 10 ? 'met' : 'NOT met'})`,
      );
      console.log(
        `  phases: publish acknowledged (stored by JetStream) p50 ${pct(acked, 50).toFixed(2)} ms, p99 ${pct(acked, 99).toFixed(2)} ms; ` +
          `the last replica's 401 p50 ${pct(last, 50).toFixed(2)} ms, p99 ${pct(last, 99).toFixed(2)} ms`,
      );
    }
    await endpointLatencies(gateways[0]!);
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await messaging.close().catch(() => {});
    await Promise.allSettled([nats.stop(), redis.stop(), mongo.stop()]);
  }
}

await main();
