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
//   bench serving, in its own process) on the same data, stored as that checkout's adapter stores it
//   (a database of its own), loaded in every round with the others, for a before/after in one run
//   (the checkout needs its node_modules).
//
// Point in time (issue #25): the buckets carry versions as the projector folds them (weekly
// releases, every fourth one revising the week before), and two more figures are printed: the
// series answer as of an instant half a year back (through the cache, like `series`), and a
// 20-year daily series (GOLD) read with the cache off, current and as of ten years back: an as_of
// read must cost the same order of time as a current one (`ratio long as_of / current`).
//
// Per-endpoint latency (issue #41, docs/slo.md): last, each endpoint the query service answers (list,
// detail, series, cot, supply-demand, bulk, a bulk file) timed request by request by a few sequential
// workers, a moderate load rather than a saturating one, as a cache hit, a miss with the read memo
// on (as deployed) and a miss with nothing kept; its table is printed after the others, and its
// non-200 answers are counted there (BENCH_ENDPOINT_REQUESTS=800 BENCH_ENDPOINT_WORKERS=4, the defaults).
//
// The servers run in a child process (one event loop, as a deployed replica), autocannon in this
// one, so the load generator does not share the servers' event loop. Bare and query run back to back
// in pairs (order swapped every round) and the ratio is the median over the pairs, so drift in
// machine load hits both sides alike. MongoDB is FerretDB (or mongod) from the
// testkit, loaded with one commodity: three years of daily prices and weekly legacy COT reports.
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import autocannon from 'autocannon';
import Fastify, { type FastifyReply } from 'fastify';
import { MongoClient } from 'mongodb';
import { Pool } from 'undici';
import {
  COLLECTIONS,
  firstPublished,
  foldRelease,
  type CotBucketDoc,
  type SeriesBucketDoc,
  type StoredCotReport,
  type StoredPoint,
} from '@cds/read-models';
import { createBulkFileStore, INDEXES, packCotBucket, packSeriesBucket, packSupplyDemandBucket } from '@cds/store';
import { COT_DATASETS, PLAN_NAMES, rateSeriesId, rateUnit, type BulkFile } from '@cds/contracts';
import { buildApp, createMongoRepository, createResponseCache } from '@cds/query';
import {
  catalogDoc,
  cotBuckets,
  cotDoc,
  dateRange,
  descriptorOf,
  seriesBuckets,
  supplyDemandSheet,
} from '@cds/query/testing';
import { startMongo, uniqueName } from '@cds/testkit';

const SLUG = 'CRUDE_OIL_WTI';
const LONG = 'GOLD';
const SCENARIOS = {
  series: `/api/v1/commodities/${SLUG}/series?type=price`,
  cot: `/api/v1/commodities/${SLUG}/cot`,
} as const;
const isoDay = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
/**
 * The whole COT history (issue #38): LONG holds every COT dataset a market outside the CIT
 * supplement has, each from its first year (legacy 1986, legacy combined 1995, disaggregated in
 * both scopes 2006) to today. A page of it with every analytic (cot_index over 520 weeks reads ten
 * years before the page), newest first and 25 pages deep in the oldest-first order, read with
 * nothing kept, against the same page of CRUDE_OIL_WTI's three years.
 */
const COT_FULL = {
  cot_short: `${SCENARIOS.cot}?include=changes,pct_of_oi,cot_index&index_weeks=52`,
  cot_full: `/api/v1/commodities/${LONG}/cot?scope=futures_and_options&include=changes,pct_of_oi,cot_index&index_weeks=520`,
  cot_full_deep: `/api/v1/commodities/${LONG}/cot?sort_order=asc&page=25&per_page=50&include=changes,cot_index&index_weeks=520`,
} as const;
const COT_FIRST_YEAR = {
  legacy: 1986,
  legacy_combined: 1995,
  disaggregated: 2006,
  disaggregated_combined: 2006,
} as const;

/**
 * Conversion (issue #40, docs/conversion.md): the same series in euros per cubic metre (crude oil is a
 * volume: EUR/m3 is its EUR/t), each day's point with its day's rate, beside the unconverted series in
 * back-to-back pairs, through the cache and with it off: a converted answer's latency must stay
 * within 1.2x the unconverted one's.
 */
const CONVERTED = `${SCENARIOS.series}&currency=EUR&unit=m3`;

/** A commodity with balance sheets, and the bulk file loaded, for the per-endpoint latencies. */
const SHEET = 'CORN';
const BULK_FILE = 'price.recent.csv.gz';
/** Per-endpoint latency (docs/slo.md): one request of each endpoint the query service answers. */
const ENDPOINTS = {
  list: '/api/v1/commodities',
  detail: `/api/v1/commodities/${SLUG}`,
  series: SCENARIOS.series,
  cot: SCENARIOS.cot,
  'supply-demand': `/api/v1/commodities/${SHEET}/supply-demand`,
  bulk: '/api/v1/bulk',
  'bulk file': `/api/v1/bulk/${BULK_FILE}`,
} as const;
const ENDPOINT_REQUESTS = Number(process.env.BENCH_ENDPOINT_REQUESTS ?? 800);
const ENDPOINT_WORKERS = Number(process.env.BENCH_ENDPOINT_WORKERS ?? 4);

/** Point-in-time reads, measured on the new service only (a base checkout does not know as_of). */
const AS_OF = {
  series_asof: `${SCENARIOS.series}&as_of=${isoDay(182)}`,
  long: `/api/v1/commodities/${LONG}/series?type=price&start_date=${isoDay(20 * 365)}`,
  long_asof: `/api/v1/commodities/${LONG}/series?type=price&start_date=${isoDay(20 * 365)}&as_of=${isoDay(10 * 365)}`,
} as const;

/** The Friday on or after a date, 21:00 UTC: when the bench's weekly release carrying it is published. */
function weeklyRelease(date: string): string {
  const d = new Date(`${date}T21:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + ((5 - d.getUTCDay() + 7) % 7));
  return d.toISOString();
}
const laterBy = (instant: string, ms: number) => new Date(Date.parse(instant) + ms).toISOString();

/** A series bucket as the projector folds it: weekly releases, every fourth revising the week before. */
function versionedSeries(bucket: SeriesBucketDoc): SeriesBucketDoc {
  const weeks = new Map<string, StoredPoint[]>();
  for (const p of bucket.points) weeks.set(weeklyRelease(p.d), [...(weeks.get(weeklyRelease(p.d)) ?? []), p]);
  let parts = {
    current: [] as StoredPoint[],
    revised: [] as StoredPoint[],
    releases: [] as SeriesBucketDoc['releases'] & object,
  };
  let previous: StoredPoint[] = [];
  let n = 0;
  const kind = {
    dateOf: (p: StoredPoint) => p.d,
    same: (a: StoredPoint, b: StoredPoint) =>
      a.v === b.v && a.o === b.o && a.h === b.h && a.l === b.l && a.c === b.c && a.vol === b.vol,
  };
  for (const [at, points] of [...weeks].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const stamp = { publishedAt: at, firstSeenAt: laterBy(at, 60_000), estimated: false };
    const revision = n++ % 4 === 3 ? previous.map((p) => ({ ...p, v: p.v + 0.25, c: (p.c ?? p.v) + 0.25 })) : [];
    parts = foldRelease(parts, stamp, [...revision, ...points], kind);
    previous = points;
  }
  return { ...bucket, points: parts.current, revised: parts.revised, releases: parts.releases };
}

/** A COT bucket as the projector folds it: each report published on its Friday, 20:30 UTC. */
function versionedCot(bucket: CotBucketDoc): CotBucketDoc {
  let parts = {
    current: [] as StoredCotReport[],
    revised: [] as StoredCotReport[],
    releases: [] as CotBucketDoc['releases'] & object,
  };
  const kind = {
    dateOf: (r: StoredCotReport) => r.report_date,
    same: (a: StoredCotReport, b: StoredCotReport) => a.open_interest === b.open_interest,
  };
  for (const report of bucket.reports) {
    const at = weeklyRelease(report.report_date).replace('T21:00', 'T20:30');
    parts = foldRelease(parts, { publishedAt: at, firstSeenAt: laterBy(at, 60_000), estimated: true }, [report], kind);
  }
  return { ...bucket, reports: parts.current, revised: parts.revised, releases: parts.releases };
}
type Scenario = keyof typeof SCENARIOS;
type Target = 'bare' | 'bare_headers' | 'query' | 'query_nocache' | 'query_cold';
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
  // As main.ts makes it: with the read memo (repository/read-memo.ts), which nothing invalidates here.
  const repository = createMongoRepository({ db, maxTimeMs: 2000, readMemo: { maxBuckets: 512, ttlMs: 600_000 } });
  const bulk = createBulkFileStore(db, { timeoutMs: 2000 });
  const common = { repository, bulk, publicBaseUrl: 'http://localhost:8080', requestLogging: false };
  const query = buildApp({
    ...common,
    cache: createResponseCache({ maxEntries: 5000, maxBytes: 256 * 1024 * 1024, ttlMs: 60_000 }),
  });
  // maxBytes 1: no body fits, so every request queries MongoDB and serializes.
  const uncached = buildApp({ ...common, cache: createResponseCache({ maxEntries: 1, maxBytes: 1, ttlMs: 1 }) });
  // Nothing kept: no response cache and no read memo, so every request reads the database.
  const cold = buildApp({
    ...common,
    repository: createMongoRepository({ db, maxTimeMs: 2000 }),
    cache: createResponseCache({ maxEntries: 1, maxBytes: 1, ttlMs: 1 }),
  });

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
      query_cold: await listen(cold),
    },
    bytes: { series: bodies.series.length, cot: bodies.cot.length },
  };
  process.send?.(msg);
  // The parent asks for this process's CPU time around each run: CPU per request is the figure that
  // does not depend on whether the load generator or the machine is the bottleneck.
  // BENCH_QUERY_PROFILE=<folder>: the parent brackets the cold reads with 'profile-start' and
  // 'profile-stop', and this process writes their CPU profile there (the hot loads left out).
  const profiler = new Session();
  process.on('message', (m: unknown) => {
    if (m === 'cpu') process.send?.({ cpu: process.cpuUsage() });
    if (m === 'profile-start') {
      profiler.connect();
      profiler.post('Profiler.enable', () =>
        profiler.post('Profiler.start', () => process.send?.({ profiling: true })),
      );
    }
    if (m === 'profile-stop') {
      profiler.post('Profiler.stop', (err, r) => {
        const file = `${process.env.BENCH_QUERY_PROFILE}/cold-${process.pid}.cpuprofile`;
        if (err === null) writeFileSync(file, JSON.stringify(r.profile));
        profiler.disconnect();
        process.send?.({ profiled: file });
      });
    }
  });
  process.on('disconnect', () => {
    void Promise.all([bare.close(), bareHeaders.close(), query.close(), uncached.close(), cold.close()]).finally(() => {
      void client.close().finally(() => process.exit(0));
    });
  });
}

/** How a checkout's FerretDB adapter stores buckets (the base checkout's may differ: it reads only its own). */
interface Packing {
  packSeriesBucket: typeof packSeriesBucket;
  packCotBucket: typeof packCotBucket;
}

async function load(
  mongoUrl: string,
  dbName: string,
  packing: Packing = { packSeriesBucket, packCotBucket },
): Promise<void> {
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
    const series = seriesBuckets(SLUG, 'price', prices, { unit: 'USD/bbl' }).map(versionedSeries);
    const cot = cotBuckets(tuesdays.map((d, i) => cotDoc(SLUG, 'legacy', d, 1 + (i % 7)))).map(versionedCot);
    const longFrom = `${Number(today.slice(0, 4)) - 20}${today.slice(4)}`;
    const longPrices = dateRange(longFrom, today, true).map((d, i) => ({
      d,
      v: Math.round((1200 + Math.sin(i / 30) * 80 + i / 20) * 100) / 100,
    }));
    const long = seriesBuckets(LONG, 'price', longPrices, { unit: 'USD/troy oz' }).map(versionedSeries);
    const fullCot = Object.entries(COT_FIRST_YEAR).map(([dataset, firstYear]) => {
      const { format, scope } = COT_DATASETS[dataset as keyof typeof COT_FIRST_YEAR];
      const dates = dateRange(`${firstYear}-01-01`, today).filter((d) => new Date(`${d}T00:00:00Z`).getUTCDay() === 2);
      const buckets = cotBuckets(dates.map((d, i) => cotDoc(LONG, format, d, 1 + (i % 11), scope))).map(versionedCot);
      return { dataset, dates, buckets };
    });
    const firstOf = (buckets: { releases?: SeriesBucketDoc['releases'] }[]) =>
      buckets.map((b) => firstPublished(b.releases)!).sort()[0]!;
    // The US dollar's reference rate on the price days (an unlisted catalog document, as the ingest keeps it).
    const usdRates = prices.map(({ d }, i) => ({
      d,
      v: Math.round((1.08 + Math.sin(i / 40) * 0.04) * 10_000) / 10_000,
    }));
    const fx = seriesBuckets(rateSeriesId('USD'), 'price', usdRates, { unit: rateUnit('USD') }).map(versionedSeries);
    await db.collection(COLLECTIONS.catalog).insertMany([
      catalogDoc(SLUG, {
        name: 'Crude Oil WTI',
        symbol: 'CL',
        category: 'energy',
        exchange: 'NYMEX',
        unit: 'USD/bbl',
        series: [
          { ...descriptorOf('price', prices, 'daily', 'USD/bbl'), first_published_at: firstOf(series) },
          {
            ...descriptorOf(
              'cot_legacy',
              tuesdays.map((d) => ({ d })),
              'weekly',
            ),
            first_published_at: firstOf(cot),
          },
        ],
      }),
      catalogDoc(LONG, {
        name: 'Gold',
        category: 'metals',
        unit: 'USD/troy oz',
        series: [
          { ...descriptorOf('price', longPrices, 'daily', 'USD/troy oz'), first_published_at: firstOf(long) },
          ...fullCot.map(({ dataset, dates, buckets }) => ({
            ...descriptorOf(
              `cot_${dataset}` as 'cot_legacy',
              dates.map((d) => ({ d })),
              'weekly',
            ),
            first_published_at: firstOf(buckets),
          })),
        ],
      }),
      catalogDoc(rateSeriesId('USD'), {
        listed: false,
        series: [{ ...descriptorOf('price', usdRates, 'daily', rateUnit('USD')), first_published_at: firstOf(fx) }],
      }),
    ] as never[]);
    await db
      .collection(COLLECTIONS.series)
      .insertMany([...series, ...long, ...fx].map((b) => packing.packSeriesBucket(b)) as never[]);
    await db
      .collection(COLLECTIONS.cot)
      .insertMany([...cot, ...fullCot.flatMap((f) => f.buckets)].map((b) => packing.packCotBucket(b)) as never[]);
    for (const [name, specs] of Object.entries(INDEXES)) {
      for (const s of specs) await db.collection(name).createIndex(s.key, { name: s.name, unique: s.unique ?? false });
    }
    const revised = [...series, ...long].reduce((n, b) => n + (b.revised?.length ?? 0), 0);
    console.log(
      `loaded ${SLUG}: ${prices.length} daily prices (${from} .. ${today}), ${tuesdays.length} COT reports; ` +
        `${LONG}: ${longPrices.length} daily prices (${longFrom} .. ${today}), COT ` +
        fullCot.map((f) => `${f.dataset} ${f.dates.length}`).join(', ') +
        ` reports; weekly releases, ${revised} revised versions`,
    );
  } finally {
    await client.close();
  }
}

const SHEET_ROWS = [
  'area_planted',
  'area_harvested',
  'yield_per_harvested_acre',
  'beginning_stocks',
  'production',
  'imports',
  'supply_total',
  'feed_and_residual',
  'food_seed_and_industrial',
  'exports',
  'use_total',
  'ending_stocks',
] as const;

/**
 * What the per-endpoint latencies read beyond `load`'s data: SHEET's balance sheets (United States
 * and world, ten marketing years, each with its 18 monthly editions, every third one revising a
 * figure) and one bulk file (SLUG's last year of prices, gzipped CSV) in the bulk file store.
 */
async function loadEndpoints(mongoUrl: string, dbName: string): Promise<void> {
  const client = new MongoClient(mongoUrl);
  try {
    const db = client.db(dbName);
    const year = new Date().getUTCFullYear();
    const sheets = ['united_states', 'world'].flatMap((region) =>
      Array.from({ length: 10 }, (_, k) => {
        const y = year - 10 + k;
        const marketingYear = `${y}/${String((y + 1) % 100).padStart(2, '0')}`;
        const editions = Array.from({ length: 18 }, (_, e) => ({
          p: new Date(Date.UTC(y, 4 + e, 12, 16)).toISOString(),
          figures: SHEET_ROWS.map((a, i) => [a, 'Million Bushels', 1000 + i * 37 + (e % 3 === 2 ? e : 0)] as const),
        }));
        return supplyDemandSheet(SHEET, region, marketingYear, editions);
      }),
    );
    const editions = sheets.flatMap((s) => s.releases ?? []).map((r) => r.p);
    const first = editions.reduce((a, b) => (a < b ? a : b));
    const last = editions.reduce((a, b) => (a > b ? a : b));
    await db.collection(COLLECTIONS.catalog).insertOne(
      catalogDoc(SHEET, {
        name: 'Corn',
        category: 'agriculture',
        series: [
          {
            type: 'supply_demand',
            frequency: 'monthly',
            first_date: first.slice(0, 10),
            last_date: last.slice(0, 10),
            source: 'wasde:wasde0626.xml',
            last_updated: last,
            first_published_at: first,
            regions: ['united_states', 'world'],
          },
        ],
      }) as never,
    );
    await db.collection(COLLECTIONS.supply_demand).insertMany(sheets.map(packSupplyDemandBucket) as never[]);
    const today = new Date().toISOString().slice(0, 10);
    const days = dateRange(`${year - 1}${today.slice(4)}`, today, true);
    const csv = [
      'commodity,date,value',
      ...days.map((d, i) => `${SLUG},${d},${(70 + Math.sin(i / 9) * 5).toFixed(2)}`),
    ];
    const bytes = gzipSync(csv.join('\n') + '\n');
    const entry: BulkFile = {
      file: BULK_FILE,
      dataset: 'price',
      span: 'recent',
      format: 'csv.gz',
      rows: days.length,
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      first_date: days[0]!,
      last_date: today,
      generated_at: new Date().toISOString(),
      columns: ['commodity', 'date', 'value'],
      licence: [],
      attribution: [],
      plans: [...PLAN_NAMES],
    };
    await createBulkFileStore(db).publish([{ entry, bytes }], entry.generated_at);
  } finally {
    await client.close();
  }
}

/** The p-th percentile of ascending samples (nearest rank). */
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

/**
 * `count` GETs of one path by `workers` sequential workers (each sends its next request when its
 * last answer's body is read), each timed in ms: the times of the 200s, ascending, and how many
 * answers were not 200 (or failed, each within 10 s).
 */
async function timedRequests(
  port: number,
  path: string,
  count: number,
  workers: number,
): Promise<{ ms: number[]; failed: number }> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: workers });
  const ms: number[] = [];
  let failed = 0;
  let left = count;
  try {
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (left-- > 0) {
          const t0 = process.hrtime.bigint();
          try {
            const res = await pool.request({ method: 'GET', path, headersTimeout: 10_000, bodyTimeout: 10_000 });
            await res.body.arrayBuffer();
            if (res.statusCode === 200) ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
            else failed++;
          } catch {
            failed++;
          }
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return { ms: ms.sort((a, b) => a - b), failed };
}

/**
 * The per-endpoint latency table (docs/slo.md): each endpoint as a cache hit (`query`, answered from
 * the response cache after one request filled it), a miss with the read memo on (`query_nocache`, as
 * a deployed replica misses) and a miss with nothing kept (`query_cold`: every request reads the
 * database), the three back to back per endpoint.
 */
async function endpointLatencies(ports: Record<Target, number>): Promise<void> {
  const modes = [
    ['hit', 'query'],
    ['miss (memo)', 'query_nocache'],
    ['miss (cold)', 'query_cold'],
  ] as const;
  console.log(
    `\nper-endpoint latency, ms (${ENDPOINT_REQUESTS} requests each, ${ENDPOINT_WORKERS} sequential workers; ` +
      'hit: from the response cache; miss (memo): response cache off, read memo on; miss (cold): nothing kept)',
  );
  console.log(
    `endpoint       cache          ${['p50', 'p95', 'p99', 'max'].map((h) => h.padStart(8)).join('')}  non-200`,
  );
  for (const [name, path] of Object.entries(ENDPOINTS)) {
    for (const [mode, target] of modes) {
      // warm-up: one request alone (it fills the cache), then one per worker
      await timedRequests(ports[target], path, 1, 1);
      await timedRequests(ports[target], path, ENDPOINT_WORKERS, ENDPOINT_WORKERS);
      const { ms, failed } = await timedRequests(ports[target], path, ENDPOINT_REQUESTS, ENDPOINT_WORKERS);
      const cells = [50, 95, 99, 100].map((p) => percentile(ms, p).toFixed(2).padStart(8)).join('');
      console.log(`${name.padEnd(14)} ${mode.padEnd(14)} ${cells}  ${String(failed).padStart(7)}`);
    }
  }
}

function run(port: number, path: string, duration: number): Promise<autocannon.Result> {
  return autocannon({ url: `http://127.0.0.1:${port}${path}`, connections: CONNECTIONS, duration, pipelining: 1 });
}

interface Sample {
  rps: number;
  requests: number;
  /** The database server's CPU time per request (cold reads), microseconds. */
  dbCpuUs?: number;
  /** Server CPU time (user + system) per request, microseconds. */
  cpuUs: number;
  p50: number;
  p99: number;
  errors: number;
}

const sample = (r: autocannon.Result, cpuUs: number): Sample => ({
  rps: r.requests.total / r.duration,
  requests: r.requests.total,
  cpuUs: cpuUs / Math.max(1, r.requests.total),
  p50: r.latency.p50,
  p99: r.latency.p99,
  errors: r.errors + r.non2xx + r.timeouts,
});
/** CPU time (user + system) a process has used so far, in microseconds (Linux /proc; 100 ticks/s). */
function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The median p50 latency ratio, or why there is none (every pair's p50 under autocannon's 1 ms resolution). */
const p50Ratio = (ratios: number[]) =>
  ratios.length === 0 ? 'p50 latency under 1 ms both ways' : `p50 latency x${median(ratios).toFixed(3)}`;

async function main(): Promise<void> {
  if (process.argv[2] === '--serve') return serve(process.argv[3]!, process.argv[4]!);

  const mongo = await startMongo();
  let child: ChildProcess | undefined;
  let baseChild: ChildProcess | undefined;
  let baseNocachePort: number | undefined;
  try {
    const dbName = uniqueName('bench_query');
    await load(mongo.url, dbName);
    await loadEndpoints(mongo.url, dbName);
    child = fork(process.argv[1]!, ['--serve', mongo.url, dbName], { stdio: 'inherit' });
    const [msg] = (await once(child, 'message')) as [ServeMessage];
    const ports: Record<Loaded, number> = { ...msg.ports, base: 0 };
    const processOf: Record<Loaded, ChildProcess> = { bare: child, bare_headers: child, query: child, base: child };
    if (BASE_DIR !== undefined) {
      // The same data in the base checkout's own stored form, in a database of its own.
      const baseDb = `${dbName}_base`;
      await load(mongo.url, baseDb, (await import(`${BASE_DIR}/libs/store/src/index.ts`)) as Packing);
      baseChild = fork(`${BASE_DIR}/bench/query.bench.ts`, ['--serve', mongo.url, baseDb], {
        stdio: 'inherit',
        cwd: BASE_DIR,
      });
      const [baseMsg] = (await once(baseChild, 'message')) as [ServeMessage];
      ports.base = baseMsg.ports.query;
      baseNocachePort = baseMsg.ports.query_nocache;
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
    // the cold read (cache off), and the base's, in back-to-back pairs; with the database server's
    // CPU per request beside the service's (a local FerretDB or mongod: /proc)
    const withDbCpu = async (read: () => Promise<Sample>): Promise<Sample> => {
      const before = cpuMicros(mongo.pid);
      const s = await read();
      return { ...s, dbCpuUs: (cpuMicros(mongo.pid) - before) / Math.max(1, s.requests) };
    };
    const profiling = process.env.BENCH_QUERY_PROFILE !== undefined;
    if (profiling) {
      child.send('profile-start');
      await once(child, 'message');
    }
    const coldBaseRatios: number[] = [];
    // Each cold run right after a bare one: the ratios are the medians of these pairs.
    const coldRatios: number[] = [];
    const coldestRatios: number[] = [];
    for (let round = 0; round < Math.max(2, ROUNDS / 2); round++) {
      const bare = await measured(ports.bare, SCENARIOS.series);
      const cold = await withDbCpu(() => measured(msg.ports.query_nocache, SCENARIOS.series));
      add('series/query_nocache', cold);
      const coldest = await withDbCpu(() => measured(msg.ports.query_cold, SCENARIOS.series));
      add('series/query_cold', coldest);
      coldRatios.push(cold.rps / bare.rps);
      coldestRatios.push(coldest.rps / bare.rps);
      const basePort = baseNocachePort;
      if (basePort !== undefined) {
        const base = await withDbCpu(() => measured(basePort, SCENARIOS.series, baseChild));
        add('series/base_nocache', base);
        coldBaseRatios.push(cold.rps / base.rps);
      }
    }
    if (profiling) {
      child.send('profile-stop');
      const [m] = (await once(child, 'message')) as [{ profiled: string }];
      console.log(`cold reads' CPU profile: ${m.profiled}`);
    }
    // point in time: the hot as_of answer, and the 20-year series cold, current and as_of, in pairs
    await run(ports.query, AS_OF.series_asof, 1);
    const longRatios: number[] = [];
    for (let round = 0; round < Math.max(2, ROUNDS / 2); round++) {
      add('series_asof/query', await measured(ports.query, AS_OF.series_asof));
      const current = await measured(msg.ports.query_cold, AS_OF.long);
      const asOf = await measured(msg.ports.query_cold, AS_OF.long_asof);
      add('long/query_cold', current);
      add('long_asof/query_cold', asOf);
      longRatios.push(asOf.rps / current.rps);
    }

    // conversion: the converted series beside the unconverted one, through the cache and with it off
    const converted = await run(msg.ports.query_nocache, CONVERTED, 1);
    if (converted.non2xx > 0) throw new Error(`${CONVERTED}: ${converted.non2xx} answers not 2xx`);
    const convertedRatios = { query: [] as number[], query_nocache: [] as number[] };
    const convertedLatency = { query: [] as number[], query_nocache: [] as number[] };
    for (let round = 0; round < Math.max(2, ROUNDS / 2); round++) {
      for (const target of ['query', 'query_nocache'] as const) {
        const plain = await measured(msg.ports[target], SCENARIOS.series);
        const conv = await measured(msg.ports[target], CONVERTED);
        add(`series_plain/${target}`, plain);
        add(`series_eur/${target}`, conv);
        convertedRatios[target].push(conv.rps / plain.rps);
        // autocannon reports whole milliseconds: a p50 of 0 ms has no ratio.
        if (plain.p50 > 0) convertedLatency[target].push(conv.p50 / plain.p50);
      }
    }

    // the whole COT history: a page with every analytic, nothing kept, beside the same page of three years
    const fullRatios: number[] = [];
    const deepRatios: number[] = [];
    for (let round = 0; round < Math.max(2, ROUNDS / 2); round++) {
      const short = await measured(msg.ports.query_cold, COT_FULL.cot_short);
      const full = await measured(msg.ports.query_cold, COT_FULL.cot_full);
      const deep = await measured(msg.ports.query_cold, COT_FULL.cot_full_deep);
      add('cot_short/query_cold', short);
      add('cot_full/query_cold', full);
      add('cot_deep/query_cold', deep);
      fullRatios.push(full.rps / short.rps);
      deepRatios.push(deep.rps / short.rps);
    }

    const cols = (...xs: [string, number][]) => xs.map(([v, w]) => v.padStart(w)).join(' ');
    console.log(
      `scenario    target        ${cols(['req/s', 8], ['p50 ms', 7], ['p99 ms', 7], ['CPU us/req', 11], ['errors', 7])}`,
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
      console.log(`${scenario.padEnd(11)} ${target.padEnd(13)} ${row}`);
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
    for (const target of ['query_nocache', 'query_cold', 'base_nocache']) {
      const cold = samples.get(`series/${target}`);
      if (cold === undefined) continue;
      console.log(
        `cold series read (${target}), CPU per request: the service ${median(cold.map((s) => s.cpuUs)).toFixed(1)} us, ` +
          `the database server ${median(cold.map((s) => s.dbCpuUs ?? NaN)).toFixed(1)} us`,
      );
    }
    const range = (xs: number[]) =>
      `median of ${xs.length} pairs with bare; min ${Math.min(...xs).toFixed(3)}, max ${Math.max(...xs).toFixed(3)}`;
    const nocache = median(coldRatios);
    console.log(
      `ratio series with the cache off (the read memo on, as deployed): query / bare = ${nocache.toFixed(3)} ` +
        `(${range(coldRatios)}; target >= 0.25: ${nocache >= 0.25 ? 'met' : 'NOT met'})`,
    );
    console.log(
      `ratio series with nothing kept (no response cache, no read memo: every request reads the database): ` +
        `query / bare = ${median(coldestRatios).toFixed(3)} (${range(coldestRatios)})`,
    );
    if (coldBaseRatios.length > 0) {
      console.log(
        `ratio series with the cache off: query / base = ${median(coldBaseRatios).toFixed(3)} in req/s ` +
          `(median of ${coldBaseRatios.length} pairs; min ${Math.min(...coldBaseRatios).toFixed(3)}, ` +
          `max ${Math.max(...coldBaseRatios).toFixed(3)})`,
      );
    }
    const hotAsOf = median(samples.get('series_asof/query')!.map((s) => s.rps));
    const hot = median(samples.get('series/query')!.map((s) => s.rps));
    console.log(`ratio series as_of / current, through the cache: ${(hotAsOf / hot).toFixed(3)} in req/s`);
    console.log(
      `ratio long as_of / current (20 years daily, nothing kept) = ${median(longRatios).toFixed(3)} in req/s ` +
        `(median of ${longRatios.length} pairs; min ${Math.min(...longRatios).toFixed(3)}, max ${Math.max(...longRatios).toFixed(3)})`,
    );
    console.log(
      `ratio COT page of the whole history / of three years (nothing kept, changes + cot_index over 520 weeks): ` +
        `newest first ${median(fullRatios).toFixed(3)}, 25 pages deep oldest first ${median(deepRatios).toFixed(3)} ` +
        `in req/s (medians of ${fullRatios.length} rounds)`,
    );
    for (const target of ['query', 'query_nocache'] as const) {
      const rs = convertedRatios[target];
      console.log(
        `ratio converted (currency=EUR&unit=m3) / unconverted series, ${target === 'query' ? 'through the cache' : 'cache off (read memo on)'}: ` +
          `${median(rs).toFixed(3)} in req/s (median of ${rs.length} pairs; min ${Math.min(...rs).toFixed(3)}, ` +
          `max ${Math.max(...rs).toFixed(3)}), ${p50Ratio(convertedLatency[target])} ` +
          `(target <= 1.2: ${1 / median(rs) <= 1.2 ? 'met' : 'NOT met'} in time per request)`,
      );
    }
    const errors = [...samples.values()].flat().reduce((n, s) => n + s.errors, 0);
    if (errors > 0) process.exitCode = 1;
    await endpointLatencies(msg.ports);
  } finally {
    for (const c of [child, baseChild]) {
      c?.disconnect();
      if (c !== undefined && c.exitCode === null) await once(c, 'exit');
    }
    await mongo.stop();
  }
}

await main();
