// Query-service throughput against a bare fastify server sending the same bytes, measured in the
// same run: a one-year daily price series and one COT page, plus the series with the response
// cache off (every request reads MongoDB and serializes) for context. Two bare servers: `bare`
// sends the body with fastify's default headers only (the figure issue #15 set its target on,
// before issue #13 gave every answer ETag, Last-Modified, Cache-Control and Vary), `bare_headers`
// sends the query's whole answer (the same headers and body bytes, a fixed request id of the same
// length), so query / bare_headers is what the query service costs beyond writing its answer.
//
//   node bench/query.bench.ts            (root script: npm run bench:query)
//   BENCH_DURATION_S=3 BENCH_CONNECTIONS=16 BENCH_ROUNDS=8 node bench/query.bench.ts  (the defaults)
//   BENCH_QUERY_BASE=<another checkout> adds a target `base`: that checkout's query service (its own
//   bench serving, in its own process) on the same database, loaded in every round with the others,
//   for a before/after in one run (the checkout needs its node_modules).
//
// The servers run in a child process (one event loop, as a deployed replica), autocannon in this
// one, so the load generator does not share the servers' event loop. Bare and query run back to back
// in pairs (order swapped every round) and the ratio is the median over the pairs, so drift in
// machine load hits both sides alike. MongoDB is FerretDB (or mongod) from the
// testkit, loaded with one commodity: three years of daily prices and weekly legacy COT reports.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import Fastify, { type FastifyReply } from 'fastify';
import { MongoClient } from 'mongodb';
import { COLLECTIONS } from '@cds/read-models';
import { INDEXES, packCotBucket, packSeriesBucket } from '@cds/store';
import { buildApp, createMongoRepository, createResponseCache } from '@cds/query';
import { catalogDoc, cotBuckets, cotDoc, dateRange, descriptorOf, seriesBuckets } from '@cds/query/testing';
import { startMongo, uniqueName } from '@cds/testkit';

const SLUG = 'CRUDE_OIL_WTI';
const SCENARIOS = {
  series: `/api/v1/commodities/${SLUG}/series?type=price`,
  cot: `/api/v1/commodities/${SLUG}/cot`,
} as const;
type Scenario = keyof typeof SCENARIOS;
type Target = 'bare' | 'bare_headers' | 'query' | 'query_nocache';
const BASE_DIR = process.env.BENCH_QUERY_BASE;
type Loaded = 'bare' | 'bare_headers' | 'query' | 'base';
const PAIRED: readonly Loaded[] = [
  'bare',
  'bare_headers',
  'query',
  ...(BASE_DIR === undefined ? [] : ['base' as const]),
];

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);

interface ServeMessage {
  ports: Record<Target, number>;
  bytes: Record<Scenario, number>;
}

async function serve(mongoUrl: string, dbName: string): Promise<void> {
  const client = new MongoClient(mongoUrl, { serverSelectionTimeoutMS: 2000 });
  const db = client.db(dbName);
  const repository = createMongoRepository({ db, maxTimeMs: 2000 });
  const common = { repository, publicBaseUrl: 'http://localhost:8080', requestLogging: false };
  const query = buildApp({
    ...common,
    cache: createResponseCache({ maxEntries: 5000, maxBytes: 256 * 1024 * 1024, ttlMs: 60_000 }),
  });
  // maxBytes 1: no body fits, so every request queries MongoDB and serializes.
  const uncached = buildApp({ ...common, cache: createResponseCache({ maxEntries: 1, maxBytes: 1, ttlMs: 1 }) });

  const bodies = {} as Record<Scenario, Buffer>;
  const answerHeaders = {} as Record<Scenario, Record<string, string>>;
  for (const [name, url] of Object.entries(SCENARIOS) as [Scenario, string][]) {
    const res = await query.inject(url);
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    bodies[name] = res.rawPayload;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) {
      if (typeof v === 'string' && !['content-length', 'date', 'connection', 'keep-alive'].includes(k)) headers[k] = v;
    }
    answerHeaders[name] = headers;
  }
  const bare = Fastify();
  const sendBytes = (bytes: Buffer) => (_req: unknown, reply: FastifyReply) => {
    void reply.header('content-type', 'application/json; charset=utf-8').send(bytes);
  };
  bare.get('/api/v1/commodities/:slug/series', sendBytes(bodies.series));
  bare.get('/api/v1/commodities/:slug/cot', sendBytes(bodies.cot));
  const bareHeaders = Fastify();
  const sendAnswer = (bytes: Buffer, headers: Record<string, string>) => (_req: unknown, reply: FastifyReply) => {
    void reply.headers(headers).send(bytes);
  };
  bareHeaders.get('/api/v1/commodities/:slug/series', sendAnswer(bodies.series, answerHeaders.series));
  bareHeaders.get('/api/v1/commodities/:slug/cot', sendAnswer(bodies.cot, answerHeaders.cot));

  const listen = async (app: { listen: (o: { host: string; port: number }) => Promise<string> }) =>
    Number(new URL(await app.listen({ host: '127.0.0.1', port: 0 })).port);
  const msg: ServeMessage = {
    ports: {
      bare: await listen(bare),
      bare_headers: await listen(bareHeaders),
      query: await listen(query),
      query_nocache: await listen(uncached),
    },
    bytes: { series: bodies.series.length, cot: bodies.cot.length },
  };
  process.send?.(msg);
  // The parent asks for this process's CPU time around each run: CPU per request is the figure that
  // does not depend on whether the load generator or the machine is the bottleneck.
  process.on('message', (m: unknown) => {
    if (m === 'cpu') process.send?.({ cpu: process.cpuUsage() });
  });
  process.on('disconnect', () => {
    void Promise.all([bare.close(), bareHeaders.close(), query.close(), uncached.close()]).finally(() => {
      void client.close().finally(() => process.exit(0));
    });
  });
}

async function load(mongoUrl: string, dbName: string): Promise<void> {
  const client = new MongoClient(mongoUrl);
  try {
    const db = client.db(dbName);
    const today = new Date().toISOString().slice(0, 10);
    const from = `${Number(today.slice(0, 4)) - 3}${today.slice(4)}`;
    const prices = dateRange(from, today, true).map((d, i) => {
      const c = 70 + Math.sin(i / 9) * 5 + i / 100;
      const r = (x: number) => Math.round(x * 100) / 100;
      return { d, v: r(c), o: r(c - 0.4), h: r(c + 1.1), l: r(c - 1.3), c: r(c), vol: 150_000 + ((i * 7919) % 50_000) };
    });
    const tuesdays = dateRange(from, today).filter((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 2);
    await db.collection(COLLECTIONS.catalog).insertOne(
      catalogDoc(SLUG, {
        name: 'Crude Oil WTI',
        symbol: 'CL',
        category: 'energy',
        exchange: 'NYMEX',
        unit: 'USD/bbl',
        series: [
          descriptorOf('price', prices, 'daily', 'USD/bbl'),
          descriptorOf(
            'cot_legacy',
            tuesdays.map((d) => ({ d })),
            'weekly',
          ),
        ],
      }) as never,
    );
    await db
      .collection(COLLECTIONS.series)
      .insertMany(seriesBuckets(SLUG, 'price', prices, { unit: 'USD/bbl' }).map(packSeriesBucket) as never[]);
    await db
      .collection(COLLECTIONS.cot)
      .insertMany(
        cotBuckets(tuesdays.map((d, i) => cotDoc(SLUG, 'legacy', d, 1 + (i % 7)))).map(packCotBucket) as never[],
      );
    for (const [name, specs] of Object.entries(INDEXES)) {
      for (const s of specs) await db.collection(name).createIndex(s.key, { name: s.name, unique: s.unique ?? false });
    }
    console.log(`loaded ${SLUG}: ${prices.length} daily prices (${from} .. ${today}), ${tuesdays.length} COT reports`);
  } finally {
    await client.close();
  }
}

function run(port: number, path: string, duration: number): Promise<autocannon.Result> {
  return autocannon({ url: `http://127.0.0.1:${port}${path}`, connections: CONNECTIONS, duration, pipelining: 1 });
}

interface Sample {
  rps: number;
  /** Server CPU time (user + system) per request, microseconds. */
  cpuUs: number;
  p50: number;
  p99: number;
  errors: number;
}

const sample = (r: autocannon.Result, cpuUs: number): Sample => ({
  rps: r.requests.total / r.duration,
  cpuUs: cpuUs / Math.max(1, r.requests.total),
  p50: r.latency.p50,
  p99: r.latency.p99,
  errors: r.errors + r.non2xx + r.timeouts,
});
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

async function main(): Promise<void> {
  if (process.argv[2] === '--serve') return serve(process.argv[3]!, process.argv[4]!);

  const mongo = await startMongo();
  let child: ChildProcess | undefined;
  let baseChild: ChildProcess | undefined;
  try {
    const dbName = uniqueName('bench_query');
    await load(mongo.url, dbName);
    child = fork(process.argv[1]!, ['--serve', mongo.url, dbName], { stdio: 'inherit' });
    const [msg] = (await once(child, 'message')) as [ServeMessage];
    const ports: Record<Loaded, number> = { ...msg.ports, base: 0 };
    const processOf: Record<Loaded, ChildProcess> = { bare: child, bare_headers: child, query: child, base: child };
    if (BASE_DIR !== undefined) {
      baseChild = fork(`${BASE_DIR}/bench/query.bench.ts`, ['--serve', mongo.url, dbName], {
        stdio: 'inherit',
        cwd: BASE_DIR,
      });
      const [baseMsg] = (await once(baseChild, 'message')) as [ServeMessage];
      ports.base = baseMsg.ports.query;
      processOf.base = baseChild;
    }
    console.log(`bodies: series ${msg.bytes.series} B, cot ${msg.bytes.cot} B`);
    console.log(
      `autocannon: ${CONNECTIONS} connections, ${DURATION_S} s per run, ${ROUNDS} rounds; ` +
        'bare, bare_headers and query run back to back (order reversed each round)\n',
    );

    for (const scenario of ['series', 'cot'] as const) {
      for (const target of PAIRED) await run(ports[target], SCENARIOS[scenario], 2); // warm-up
    }
    const samples = new Map<string, Sample[]>();
    const ratios: Record<Scenario, number[]> = { series: [], cot: [] };
    const cpuRatios: Record<Scenario, number[]> = { series: [], cot: [] };
    const headerRatios: Record<Scenario, number[]> = { series: [], cot: [] };
    const headerCpuRatios: Record<Scenario, number[]> = { series: [], cot: [] };
    const baseRatios: Record<Scenario, number[]> = { series: [], cot: [] };
    const baseCpuRatios: Record<Scenario, number[]> = { series: [], cot: [] };
    const cpu = async (server: ChildProcess): Promise<number> => {
      server.send('cpu');
      const [m] = (await once(server, 'message')) as [{ cpu: NodeJS.CpuUsage }];
      return m.cpu.user + m.cpu.system;
    };
    const measured = async (port: number, path: string, server: ChildProcess = child!): Promise<Sample> => {
      const before = await cpu(server);
      const result = await run(port, path, DURATION_S);
      return sample(result, (await cpu(server)) - before);
    };
    const add = (key: string, s: Sample) => samples.set(key, [...(samples.get(key) ?? []), s]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of ['series', 'cot'] as const) {
        const order: readonly Loaded[] = round % 2 === 0 ? PAIRED : [...PAIRED].reverse();
        const pair: Partial<Record<Loaded, Sample>> = {};
        for (const target of order) {
          const s = await measured(ports[target], SCENARIOS[scenario], processOf[target]);
          pair[target] = s;
          add(`${scenario}/${target}`, s);
        }
        ratios[scenario].push(pair.query!.rps / pair.bare!.rps);
        cpuRatios[scenario].push(pair.bare!.cpuUs / pair.query!.cpuUs);
        headerRatios[scenario].push(pair.query!.rps / pair.bare_headers!.rps);
        headerCpuRatios[scenario].push(pair.bare_headers!.cpuUs / pair.query!.cpuUs);
        if (pair.base !== undefined) {
          baseRatios[scenario].push(pair.query!.rps / pair.base.rps);
          baseCpuRatios[scenario].push(pair.base.cpuUs / pair.query!.cpuUs);
        }
      }
    }
    add('series/query_nocache', await measured(msg.ports.query_nocache, SCENARIOS.series));

    const cols = (...xs: [string, number][]) => xs.map(([v, w]) => v.padStart(w)).join(' ');
    console.log(
      `scenario  target        ${cols(['req/s', 8], ['p50 ms', 7], ['p99 ms', 7], ['CPU us/req', 11], ['errors', 7])}`,
    );
    for (const [key, ss] of samples) {
      const [scenario, target] = key.split('/') as [string, string];
      const med = (f: (s: Sample) => number, digits: number) => median(ss.map(f)).toFixed(digits);
      const errors = String(ss.reduce((n, s) => n + s.errors, 0));
      const row = cols(
        [med((s) => s.rps, 0), 8],
        [med((s) => s.p50, 1), 7],
        [med((s) => s.p99, 1), 7],
        [med((s) => s.cpuUs, 1), 11],
        [errors, 7],
      );
      console.log(`${scenario.padEnd(9)} ${target.padEnd(13)} ${row}`);
    }
    console.log('');
    for (const scenario of ['series', 'cot'] as const) {
      const rs = ratios[scenario];
      console.log(
        `ratio ${scenario}: query / bare = ${median(rs).toFixed(3)} (median of ${rs.length} back-to-back pairs; ` +
          `min ${Math.min(...rs).toFixed(3)}, max ${Math.max(...rs).toFixed(3)})`,
      );
      console.log(
        `  server CPU efficiency ${scenario}: bare CPU/req / query CPU/req = ${median(cpuRatios[scenario]).toFixed(3)} ` +
          '(the throughput ratio when the server, not the load generator, is the bottleneck)',
      );
      const hs = headerRatios[scenario];
      console.log(
        `ratio ${scenario}: query / bare_headers (the same answer, headers included) = ${median(hs).toFixed(3)} ` +
          `(min ${Math.min(...hs).toFixed(3)}, max ${Math.max(...hs).toFixed(3)}); CPU efficiency ` +
          median(headerCpuRatios[scenario]).toFixed(3),
      );
      if (BASE_DIR !== undefined) {
        console.log(
          `ratio ${scenario}: query / base (${BASE_DIR}) = ${median(baseRatios[scenario]).toFixed(3)} in req/s, ` +
            `${median(baseCpuRatios[scenario]).toFixed(3)} in CPU per request (base CPU/req / query CPU/req)`,
        );
      }
    }
    const nocache = median(samples.get('series/query_nocache')!.map((s) => s.rps));
    const bare = median(samples.get('series/bare')!.map((s) => s.rps));
    console.log(`ratio series with the cache off: query / bare = ${(nocache / bare).toFixed(3)}`);
    const errors = [...samples.values()].flat().reduce((n, s) => n + s.errors, 0);
    if (errors > 0) process.exitCode = 1;
  } finally {
    for (const c of [child, baseChild]) {
      c?.disconnect();
      if (c !== undefined && c.exitCode === null) await once(c, 'exit');
    }
    await mongo.stop();
  }
}

await main();
