// Projection benchmark (issue 4, item 5): throughput of the catalog, series and cot projections
// (events/s and points/s written into the read models) over a pre-published stream, and lag from
// publish to queryable (p50/p99) under a steady publish rate (default 1,000 events/s for 20 s).
// Servers: a private nats-server (JetStream, file storage) and the MongoDB API server the testkit
// provides (mongod if installed, else FerretDB 1.24 on SQLite). Queryable = the projector has
// written the document (it publishes the `projected` notification after the write), measured
// from just before the JetStream publish. Run: npm run bench:projection
// (BENCH_SERIES_EVENTS, BENCH_COT_EVENTS, BENCH_RATE, BENCH_SECONDS, BENCH_CLAIMS=off|on|both, BENCH_LAG_SHAPES=live,spread, BENCH_BATCH (default: each projector's own),
// BENCH_DRAIN_MS override the sizes; BENCH_LOG=warn shows retries and watchdog reports). A throughput phase that
// makes no progress for BENCH_STALL_MS (default 120 s) fails the bench with what the worker's watchdog saw.
//   The whole COT history (issue #38; BENCH_COT_HISTORY=off skips it): every COT dataset of 30 markets
// from its first year (legacy 1986, legacy combined 1995, disaggregated in both scopes and the CIT
// supplement of 13 markets 2006) to 2026, one event per market, dataset and year as a backfill
// publishes them, published as fast as NATS takes them while the COT projector (its own process)
// folds them (BENCH_HISTORY_MARKETS scales it down): the time to project it all, the publish -> queryable lag p99, the worker's peak RSS
// against the chart's 384 MiB limit, and every report read back from the read model (this checkout's
// projector only, also with BENCH_PROJECTION_BASE).
//   BENCH_PROJECTION_BASE=<another checkout> (made with its own node_modules or links to these) adds a
// target `base`: that checkout's projector, run over the same stream and servers, each phase right
// before this one's, so one run compares them. Each target reads into databases of its own. Where a
// projector reports its time per phase (load, fold, write, after), the bench prints it.
import { COT_DATASETS, DATA_STREAM, subjectFor, type CotDataset, type DataEvent } from '@cds/contracts';
import { connectMessaging, encodeJson, type Messaging } from '@cds/messaging';
import * as headProjector from '@cds/projector';
import type { Projection, ProjectedDoc } from '@cds/projector';
import { COLLECTIONS, PROJECTED_SUBJECT_PREFIX } from '@cds/read-models';
import { startMongo, startNats } from '@cds/testkit';
import { MongoClient, type Db } from 'mongodb';
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';

/** A projector to measure: this checkout's (`head`) or the one at BENCH_PROJECTION_BASE (`base`). */
interface Target {
  name: 'head' | 'base';
  /** The checkout's directory (undefined: this one). */
  root: string | undefined;
  projector: Pick<
    typeof headProjector,
    'catalogProjection' | 'cotProjection' | 'seriesProjection' | 'createProjectorMetrics' | 'startProjectionWorker'
  >;
}

async function loadTarget(root: string | undefined): Promise<Target> {
  if (root === undefined) return { name: 'head', root, projector: headProjector };
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  return {
    name: 'base',
    root,
    projector: (await load('services/projector/src/index.ts')) as Target['projector'],
  };
}

/**
 * A target's connection to the bench's NATS server: this checkout's messaging for both (an older
 * checkout's may not read the user out of the URL, and the testkit's server has users).
 */
function connectTarget(_t: Target, url: string, name: string): Promise<Messaging> {
  return connectMessaging({ servers: url, name });
}

const BASE_DIR = process.env.BENCH_PROJECTION_BASE;
/** Time per phase, when the projector keeps it (ProjectionStats.phaseMs). */
type Phases = Record<string, number> | undefined;
const PHASES = ['load', 'fold', 'write', 'after'] as const;

const SERIES_EVENTS = Number(process.env.BENCH_SERIES_EVENTS ?? 1_000);
const POINTS_PER_SERIES_EVENT = 20;
const COT_EVENTS = Number(process.env.BENCH_COT_EVENTS ?? 60);
/** `off`, `on` or `both`: runs with and without FerretDB write claims. */
const CLAIMS = process.env.BENCH_CLAIMS ?? 'both';
const CLAIM_MODES = CLAIMS === 'both' ? [false, true] : [CLAIMS === 'on'];
/** How long the lag phase waits for the backlog to drain after publishing. */
const DRAIN_MS = Number(process.env.BENCH_DRAIN_MS ?? 60_000);
const REPORTS_PER_COT_EVENT = 100;
const RATE = Number(process.env.BENCH_RATE ?? 1_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
/** The workers' batch (messages pulled ahead, handled together): BENCH_BATCH, else each projector's own default. */
const BATCH = process.env.BENCH_BATCH === undefined ? undefined : Number(process.env.BENCH_BATCH);
const BATCH_OPTION = BATCH === undefined ? {} : { batchSize: BATCH };
const BATCH_LABEL = BATCH === undefined ? "each projector's default batch" : `batch ${BATCH}`;
/**
 * Lag shapes: `live` spreads the events over the current-year buckets of 20 commodities (a live
 * feed appends to this year), `spread` over 8 years of them (160 buckets, like a backfill).
 */
const LAG_SHAPES = (process.env.BENCH_LAG_SHAPES ?? 'live,spread').split(',').map((s) => s.trim());
const SHAPE_YEARS: Record<string, number> = { live: 1, spread: 8 };
/** The p99 lag each shape is held to (issue #37): a live feed 250 ms, a backfill 1 s. */
const SHAPE_TARGET_P99_MS: Record<string, number> = { live: 250, spread: 1_000 };
const COMMODITIES = Array.from({ length: 20 }, (_, i) => `BENCH_C${i}`);
const logger = pino({ level: process.env.BENCH_LOG ?? 'silent' });
const STALL_MS = Number(process.env.BENCH_STALL_MS ?? 120_000);
/** Every connection of the bench gives up on a server that stops answering. */
const MONGO_OPTIONS = { socketTimeoutMS: 60_000 };

let seed = 42;
function rand(): number {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
}

function day(year: number, dayOfYear: number): string {
  return new Date(Date.UTC(year, 0, 1 + dayOfYear)).toISOString().slice(0, 10);
}

function seriesEvent(i: number, points: number, tag = 'tp', years = 8): DataEvent {
  const commodity = COMMODITIES[i % COMMODITIES.length]!;
  const year = 2015 + (Math.floor(i / COMMODITIES.length) % years);
  const start = Math.floor(rand() * (365 - points));
  return {
    id: `bench.${tag}.series.${i}`,
    type: 'series.points.recorded',
    version: 1,
    occurred_at: '2024-06-01T00:00:00Z',
    source: 'bench',
    data: {
      commodity_id: commodity,
      series_type: 'price',
      frequency: 'daily',
      unit: 'USD/bbl',
      period: String(year),
      points: Array.from({ length: points }, (_, k) => ({ date: day(year, start + k), value: 50 + rand() * 10 })),
    },
  };
}

function cotEvent(i: number): DataEvent {
  const commodity = COMMODITIES[i % COMMODITIES.length]!;
  const block = Math.floor(i / COMMODITIES.length);
  return {
    id: `bench.cot.${i}`,
    type: 'cot.reports.recorded',
    version: 1,
    occurred_at: '2024-06-01T00:00:00Z',
    source: 'bench',
    data: {
      commodity_id: commodity,
      format: 'legacy',
      reports: Array.from({ length: REPORTS_PER_COT_EVENT }, (_, k) => {
        const d = new Date(Date.UTC(1990, 0, 2 + 7 * (block * REPORTS_PER_COT_EVENT + k))).toISOString().slice(0, 10);
        const oi = 1_000 + Math.floor(rand() * 1_000);
        return {
          report_date: d,
          open_interest: oi,
          commercial: { long: oi, short: 10 },
          non_commercial: { long: 1, short: 2, spreading: 3 },
          non_reportable: { long: 4, short: 5 },
        };
      }),
    },
  };
}

/** The whole-history phase (issue #38): on unless BENCH_COT_HISTORY=off. */
const HISTORY = (process.env.BENCH_COT_HISTORY ?? 'on') !== 'off';
const HISTORY_MARKETS = Number(process.env.BENCH_HISTORY_MARKETS ?? 30);
/** The CIT supplement covers 13 agricultural markets. */
const CIT_MARKETS = Math.min(13, HISTORY_MARKETS);
const HISTORY_LAST_YEAR = 2026;
/** Each dataset's first year in the CFTC's history files. */
const HISTORY_FIRST_YEAR: Record<CotDataset, number> = {
  legacy: 1986,
  legacy_combined: 1995,
  disaggregated: 2006,
  disaggregated_combined: 2006,
  cit: 2006,
};
/** How long the history phase waits for the projector after the last publish. */
const HISTORY_DRAIN_MS = Number(process.env.BENCH_HISTORY_DRAIN_MS ?? 900_000);
/** The projector's memory limit in the chart (services.projector.resources.limits.memory). */
const PROJECTOR_LIMIT_MIB = 384;
/** Its V8 heap limit there (services.projector.heapMiB), the worker's here. */
const PROJECTOR_HEAP_MIB = Number(process.env.BENCH_PROJECTOR_HEAP_MIB ?? 192);

const split = (total: number, parts: number): number[] => {
  const out: number[] = [];
  let left = total;
  for (let i = 0; i < parts - 1; i++) {
    const v = Math.floor(left * (0.1 + rand() * 0.3));
    out.push(v);
    left -= v;
  }
  return [...out, left];
};

/** One report of a dataset's format: positions that add up to something like the CFTC's. */
function historyReport(format: 'legacy' | 'disaggregated' | 'cit', report_date: string, scale: number) {
  const oi = Math.floor(scale * (0.8 + rand() * 0.4));
  const [a, b, c, d] = split(oi, 4) as [number, number, number, number];
  const [e, f, g, h] = split(oi, 4) as [number, number, number, number];
  const base = { report_date, open_interest: oi };
  if (format === 'legacy') {
    return {
      ...base,
      commercial: { long: a, short: e },
      non_commercial: { long: b, short: f, spreading: c + g },
      non_reportable: { long: d, short: h },
    };
  }
  if (format === 'cit') {
    return {
      ...base,
      commercial: { long: a, short: e },
      non_commercial: { long: b, short: f, spreading: Math.floor(c / 2) },
      index_traders: { long: c, short: g },
      non_reportable: { long: d, short: h },
    };
  }
  return {
    ...base,
    producer_merchant: { long: a, short: e },
    swap_dealer: { long: b, short: f, spreading: Math.floor(b / 5) },
    managed_money: { long: c, short: g, spreading: Math.floor(c / 5) },
    other_reportable: { long: d, short: h, spreading: Math.floor(d / 5) },
  };
}

/** The Tuesdays of a year, YYYY-MM-DD. */
function tuesdaysOf(year: number): string[] {
  const out: string[] = [];
  const d = new Date(Date.UTC(year, 0, 1));
  d.setUTCDate(1 + ((2 - d.getUTCDay() + 7) % 7));
  for (; d.getUTCFullYear() === year; d.setUTCDate(d.getUTCDate() + 7)) out.push(d.toISOString().slice(0, 10));
  return out;
}

/** The whole history, as `ingest backfill` publishes it: a market's dataset a year per event, each report on its Friday. */
function historyEvents(): { events: DataEvent[]; reports: Record<CotDataset, number> } {
  const events: DataEvent[] = [];
  const reports = Object.fromEntries(Object.keys(COT_DATASETS).map((d) => [d, 0])) as Record<CotDataset, number>;
  for (const [dataset, { format, scope }] of Object.entries(COT_DATASETS) as [
    CotDataset,
    (typeof COT_DATASETS)[CotDataset],
  ][]) {
    const markets = dataset === 'cit' ? CIT_MARKETS : HISTORY_MARKETS;
    for (let m = 0; m < markets; m++) {
      const scale = 20_000 + m * 15_000;
      for (let year = HISTORY_FIRST_YEAR[dataset]; year <= HISTORY_LAST_YEAR; year++) {
        const rows = tuesdaysOf(year).map((day) => ({
          ...historyReport(format, day, scope === 'futures_only' ? scale : scale * 1.3),
          published_at: weeklyFriday(day),
        }));
        reports[dataset] += rows.length;
        events.push({
          id: `bench.history.${dataset}.${m}.${year}`,
          type: 'cot.reports.recorded',
          version: 1,
          occurred_at: '2026-12-01T00:00:00Z',
          source: 'bench',
          data: {
            commodity_id: `BENCH_M${m}`,
            format,
            ...(scope === 'futures_only' ? {} : { scope }),
            reports: rows,
          } as never,
        });
      }
    }
  }
  // A backfill runs its files one after the other, each in date order: the events already are.
  return { events, reports };
}

/** The Friday after a Tuesday report date, 20:30 UTC (15:30 New York in winter). */
function weeklyFriday(tuesday: string): string {
  const d = new Date(`${tuesday}T20:30:00.000Z`);
  d.setUTCDate(d.getUTCDate() + 3);
  return d.toISOString();
}

async function publishAll(messaging: Messaging, events: DataEvent[]): Promise<number> {
  let last = 0;
  // Pipelined in windows of 200 un-acked publishes.
  for (let i = 0; i < events.length; i += 200) {
    const acks = await Promise.all(
      events.slice(i, i + 200).map((e) => messaging.js.publish(subjectFor(e), encodeJson(e), { msgID: e.id })),
    );
    last = Math.max(last, ...acks.map((a) => a.seq));
  }
  return last;
}

async function runProjection(
  target: Target,
  messaging: Messaging,
  db: Db,
  projection: Projection<ProjectedDoc>,
  lastSeq: number,
  expectedEvents: number,
  writeClaims: boolean,
): Promise<{ ms: number; events: number; docs: number; phases: Phases }> {
  const metrics = target.projector.createProjectorMetrics();
  const started = performance.now();
  const worker = await target.projector.startProjectionWorker(
    { messaging: messaging, db, logger, metrics, clock: () => new Date() },
    projection,
    {
      durable: `bench_${target.name}_${projection.name}_${writeClaims ? 'claims' : 'plain'}`,
      ...BATCH_OPTION,
      writeClaims,
    },
  );
  const s = metrics.of(projection.name);
  const handled = () => s.events.applied + s.events.ignored;
  let seen = 0;
  let movedAt = performance.now();
  try {
    while (handled() < expectedEvents) {
      await sleep(20);
      if (handled() !== seen) {
        seen = handled();
        movedAt = performance.now();
      } else if (performance.now() - movedAt > STALL_MS) {
        throw new Error(
          `${projection.name} (write claims ${writeClaims ? 'on' : 'off'}): no progress for ${STALL_MS} ms at ` +
            `${seen}/${expectedEvents} events; retries ${s.retries}, watchdog stalls ${s.stalls}; ` +
            `stuck: ${JSON.stringify(worker.stall()?.report ?? 'nothing reported')}`,
        );
      }
    }
  } catch (err) {
    await worker.stop();
    throw err;
  }
  const ms = performance.now() - started;
  await worker.stop();
  void lastSeq;
  return { ms, events: s.events.applied + s.events.ignored, docs: s.documents, phases: phasesOf(s) };
}

function phasesOf(stats: object): Phases {
  return 'phaseMs' in stats ? { ...(stats.phaseMs as Record<string, number>) } : undefined;
}

/** `load 12% · fold 3% ...` of a wall time, or n/a when the projector keeps no phases. */
function phaseShares(phases: Phases, wallMs: number): string {
  if (phases === undefined) return 'n/a';
  return PHASES.map((p) => `${p} ${(((phases[p] ?? 0) / wallMs) * 100).toFixed(0)}%`).join(' ');
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** The lag phase's projection worker, in its own process: started by the parent, stopped by 'stop'. */
async function lagWorker(
  root: string | undefined,
  natsUrl: string,
  mongoUrl: string,
  dbName: string,
  durable: string,
  writeClaims: boolean,
  projectionName: 'series' | 'cot' = 'series',
) {
  const target = await loadTarget(root);
  const messaging = await connectTarget(target, natsUrl, 'bench-projection-worker');
  const client = await new MongoClient(mongoUrl, MONGO_OPTIONS).connect();
  const metrics = target.projector.createProjectorMetrics();
  let peakRss = process.memoryUsage().rss;
  /** process.memoryUsage() when the RSS peaked: where the memory was. */
  let atPeak = process.memoryUsage();
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    if (m.rss > peakRss) [peakRss, atPeak] = [m.rss, m];
  }, 250);
  const deps = { messaging: messaging, db: client.db(dbName), logger, metrics, clock: () => new Date() };
  const options = { durable, ...BATCH_OPTION, writeClaims };
  const worker =
    projectionName === 'cot'
      ? await target.projector.startProjectionWorker(deps, target.projector.cotProjection, options)
      : await target.projector.startProjectionWorker(deps, target.projector.seriesProjection, options);
  process.send?.('ready');
  process.on('message', () => {
    const s = metrics.of(projectionName);
    clearInterval(sampler);
    void worker
      .stop()
      .then(
        () =>
          new Promise((resolve) =>
            process.send?.(
              { phases: phasesOf(s), docs: s.documents, peakRss, atPeak, events: s.events.applied },
              resolve,
            ),
          ),
      )
      .then(() => messaging.close())
      .then(() => client.close())
      .finally(() => process.exit(0));
  });
}

/**
 * Publish -> queryable, per event: the projector announces per commodity and batch the highest
 * position it wrote, so an event is queryable once its commodity was announced at or past its
 * sequence. `published` records an event's sequence (acks arrive in publish order per subject, so
 * each queue stays sorted) and the time it was sent.
 */
function trackQueryable(messaging: Messaging, projection: 'series' | 'cot') {
  const waiting = new Map<string, { seq: number; t: number }[]>();
  const announced = new Map<string, number>();
  const lags: number[] = [];
  const settle = (commodity: string, at: number) => {
    const upTo = announced.get(commodity) ?? 0;
    const queue = waiting.get(commodity) ?? [];
    while (queue.length > 0 && queue[0]!.seq <= upTo) lags.push(at - queue.shift()!.t);
  };
  const sub = messaging.nc.subscribe(`${PROJECTED_SUBJECT_PREFIX}.${projection}.>`, {
    callback: (_err, m) => {
      const at = performance.now();
      const commodity = m.subject.slice(m.subject.lastIndexOf('.') + 1);
      const { position } = m.json<{ position: number }>();
      announced.set(commodity, Math.max(announced.get(commodity) ?? 0, position));
      settle(commodity, at);
    },
  });
  return {
    lags,
    published(commodity: string, seq: number, t: number) {
      let queue = waiting.get(commodity);
      if (queue === undefined) waiting.set(commodity, (queue = []));
      queue.push({ seq, t });
      settle(commodity, performance.now());
    },
    stop: () => sub.unsubscribe(),
  };
}

/** A durable consumer for a projection worker from the stream's end: only the events published after count. */
async function consumerFromEnd(messaging: Messaging, durable: string, filterSubject: string): Promise<void> {
  const info = await messaging.jsm.streams.info(DATA_STREAM);
  await messaging.jsm.consumers.add(DATA_STREAM, {
    durable_name: durable,
    ack_policy: 'explicit',
    deliver_policy: 'by_start_sequence',
    opt_start_seq: info.state.last_seq + 1,
    filter_subject: filterSubject,
    ack_wait: 30_000_000_000,
    max_ack_pending: 1_000,
  });
}

async function main(): Promise<void> {
  if (process.argv[2] === '--lag-worker') {
    const [root, natsUrl, mongoUrl, dbName, durable, claims, projection] = process.argv.slice(3) as [
      string,
      string,
      string,
      string,
      string,
      string,
      string | undefined,
    ];
    return lagWorker(
      root === '' ? undefined : root,
      natsUrl,
      mongoUrl,
      dbName,
      durable,
      claims === '1',
      projection === 'cot' ? 'cot' : 'series',
    );
  }
  const targets = [...(BASE_DIR === undefined ? [] : [await loadTarget(BASE_DIR)]), await loadTarget(undefined)];
  const { catalogProjection, cotProjection, seriesProjection } = headProjector;
  const nats = await startNats();
  const mongoServer = await startMongo();
  const messaging = await connectMessaging({ servers: nats.url, name: 'bench-projection' });
  const client = await new MongoClient(mongoServer.url, MONGO_OPTIONS).connect();
  try {
    await messaging.ensureStream({
      name: DATA_STREAM,
      subjects: ['cds.data.>'],
      replicas: 1,
      duplicateWindowMs: 120_000,
    });
    await messaging.ensureStream({
      name: 'CDS_DEADLETTER',
      subjects: ['cds.deadletter.>'],
      replicas: 1,
      duplicateWindowMs: 120_000,
    });
    console.log(
      `projection benchmark: ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}, MongoDB API: ${mongoServer.flavor}` +
        (BASE_DIR === undefined ? '' : `; base: ${BASE_DIR}`),
    );
    const connections = new Map<Target['name'], Messaging>();
    for (const t of targets) {
      connections.set(
        t.name,
        t.name === 'head' ? messaging : await connectTarget(t, nats.url, 'bench-projection-base'),
      );
    }
    /** The figures of the issue's table, per target. */
    const figures = new Map<string, string>();

    // --- throughput over a pre-published stream ---
    const series = Array.from({ length: SERIES_EVENTS }, (_, i) => seriesEvent(i, POINTS_PER_SERIES_EVENT));
    const cot = Array.from({ length: COT_EVENTS }, (_, i) => cotEvent(i));
    const lastSeq = await publishAll(messaging, [...series, ...cot]);
    const rows: string[][] = [];
    for (const writeClaims of CLAIM_MODES) {
      const runs: [Projection<ProjectedDoc>, number, number][] = [
        [seriesProjection, SERIES_EVENTS, SERIES_EVENTS * POINTS_PER_SERIES_EVENT],
        [cotProjection, COT_EVENTS, COT_EVENTS * REPORTS_PER_COT_EVENT],
        [
          catalogProjection,
          SERIES_EVENTS + COT_EVENTS,
          SERIES_EVENTS * POINTS_PER_SERIES_EVENT + COT_EVENTS * REPORTS_PER_COT_EVENT,
        ],
      ];
      for (const [headProjection, events, points] of runs) {
        for (const t of targets) {
          const db = client.db(`bench_tp_${t.name}_${writeClaims ? 'claims' : 'plain'}`);
          // the three projections every compared checkout has (a base may have no supply_demand)
          const name = headProjection.name as 'catalog' | 'series' | 'cot';
          const projection = t.projector[`${name}Projection`] as unknown as Projection<ProjectedDoc>;
          const r = await runProjection(t, connections.get(t.name)!, db, projection, lastSeq, events, writeClaims);
          const eventsPerS = ((r.events / r.ms) * 1000).toFixed(0);
          if (writeClaims || CLAIM_MODES.length === 1)
            figures.set(`${projection.name} ${t.name}`, `${eventsPerS} events/s`);
          rows.push([
            t.name,
            projection.name,
            writeClaims ? 'on' : 'off',
            String(r.events),
            String(points),
            (r.ms / 1000).toFixed(2),
            eventsPerS,
            ((points / r.ms) * 1000).toFixed(0),
            String(r.docs),
            phaseShares(r.phases, r.ms),
          ]);
        }
      }
    }
    console.log(`\nThroughput (stream pre-published, one worker per projection, ${BATCH_LABEL})`);
    printTable(
      [
        'target',
        'projection',
        'write claims',
        'events',
        'points/reports',
        'seconds',
        'events/s',
        'points/s',
        'docs written',
        'time per phase (of the wall time)',
      ],
      rows,
    );

    // --- lag publish -> queryable at a steady rate ---
    const lagRows: string[][] = [];
    const lagRuns = CLAIM_MODES.flatMap((c) => LAG_SHAPES.flatMap((s) => targets.map((t) => [c, s, t] as const)));
    for (const [writeClaims, shape, target] of lagRuns) {
      const years = SHAPE_YEARS[shape];
      if (years === undefined) throw new Error(`BENCH_LAG_SHAPES: unknown shape ${shape} (live, spread)`);
      const mode = `${target.name}_${writeClaims ? 'claims' : 'plain'}_${shape}`;
      const db = client.db(`bench_lag_${mode}`);
      const tracker = trackQueryable(messaging, 'series');
      const { lags } = tracker;
      const durable = `bench_lag_${mode}`;
      await consumerFromEnd(messaging, durable, seriesProjection.filterSubject);
      // The worker runs in a process of its own, as a deployed projector does: in this one it would
      // share the event loop with the publisher and only get the gaps between its ticks.
      const worker = fork(
        process.argv[1]!,
        [
          '--lag-worker',
          target.root ?? '',
          nats.url,
          mongoServer.url,
          db.databaseName,
          durable,
          writeClaims ? '1' : '0',
        ],
        {
          stdio: 'inherit',
        },
      );
      await once(worker, 'message');
      const total = RATE * SECONDS;
      const tickMs = 10;
      const perTick = (RATE * tickMs) / 1000;
      const started = performance.now();
      let sent = 0;
      const inflight: Promise<void>[] = [];
      // A publish that timed out (an overloaded machine) is counted, not fatal: its event is not waited for.
      let lost = 0;
      while (sent < total) {
        const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE) + perTick);
        while (sent < due) {
          const e = seriesEvent(sent, 5, `lag_${mode}`, years);
          const commodity = e.type === 'series.points.recorded' ? e.data.commodity_id : '';
          const t = performance.now();
          inflight.push(
            messaging.js.publish(subjectFor(e), encodeJson(e), { msgID: e.id }).then(
              (ack) => tracker.published(commodity, ack.seq, t),
              () => void lost++,
            ),
          );
          sent++;
        }
        if (inflight.length > 500) await Promise.all(inflight.splice(0));
        await sleep(tickMs);
      }
      await Promise.all(inflight.splice(0));
      const publishSeconds = (performance.now() - started) / 1000;
      const deadline = performance.now() + DRAIN_MS;
      while (lags.length < total - lost && performance.now() < deadline) await sleep(50);
      if (lost > 0) console.log(`${mode}: ${lost} publishes timed out (not counted)`);
      const drainSeconds = (performance.now() - started) / 1000;
      const report = once(worker, 'message') as Promise<[{ phases: Phases; docs: number }]>;
      worker.send('stop');
      const [{ phases, docs }] = await report;
      await once(worker, 'exit');
      tracker.stop();
      const sorted = [...lags].sort((a, b) => a - b);
      if (writeClaims || CLAIM_MODES.length === 1) {
        figures.set(`${shape} ${target.name}`, `p99 ${percentile(sorted, 99).toFixed(0)} ms (${lags.length}/${total})`);
      }
      lagRows.push([
        target.name,
        `${shape} (${years * COMMODITIES.length} buckets)`,
        writeClaims ? 'on' : 'off',
        String(total),
        (total / publishSeconds).toFixed(0),
        String(lags.length),
        (lags.length / drainSeconds).toFixed(0),
        percentile(sorted, 50).toFixed(1),
        percentile(sorted, 99).toFixed(1),
        percentile(sorted, 100).toFixed(1),
        `${percentile(sorted, 99) < SHAPE_TARGET_P99_MS[shape]! ? 'yes' : 'NO'} (< ${SHAPE_TARGET_P99_MS[shape]} ms)`,
        String(docs),
        phaseShares(phases, drainSeconds * 1000),
      ]);
    }
    console.log(
      `\nLag publish -> queryable (series, ${RATE} events/s of 5 points for ${SECONDS} s, one worker in its own process, ${BATCH_LABEL})`,
    );
    printTable(
      [
        'target',
        'shape',
        'write claims',
        'published',
        'publish ev/s',
        'projected',
        'projected ev/s',
        'p50 ms',
        'p99 ms',
        'max ms',
        'p99 within target',
        'docs written',
        'time per phase (of the wall time)',
      ],
      lagRows,
    );
    // --- the whole COT history (issue #38) ---
    if (HISTORY) {
      const { events, reports } = historyEvents();
      const expected = Object.values(reports).reduce((a, b) => a + b, 0);
      const historyRows: string[][] = [];
      const writeClaims = CLAIM_MODES[CLAIM_MODES.length - 1]!;
      // This checkout only: a base checkout may not know the datasets (one before CIT cannot fold a
      // cit event and retries it for ever), and its events would be the same messages again.
      for (const target of targets.filter((t) => t.name === 'head')) {
        const r = await historyRun(target, nats.url, mongoServer.url, client, messaging, events, writeClaims);
        figures.set(`history ${target.name}`, `${r.seconds.toFixed(1)} s, p99 ${r.p99.toFixed(0)} ms`);
        historyRows.push([
          target.name,
          String(events.length),
          String(expected),
          r.seconds.toFixed(1),
          ((expected / r.seconds) | 0).toString(),
          r.p50.toFixed(0),
          r.p99.toFixed(0),
          `${r.lags}/${events.length}`,
          `${(r.peakRss / 2 ** 20).toFixed(0)} MiB (${((r.peakRss / 2 ** 20 / PROJECTOR_LIMIT_MIB) * 100).toFixed(0)} %; heap limit ${PROJECTOR_HEAP_MIB} MiB)`,
          r.stored === expected ? `all ${r.stored}` : `${r.stored} of ${expected}: LOST`,
          `${r.buckets} (largest ${(r.largestBucket / 1024).toFixed(0)} KiB)`,
        ]);
      }
      console.log(
        `\nThe whole COT history (${Object.entries(reports)
          .map(([d, n]) => `${d} ${n}`)
          .join(', ')} reports; write claims ${writeClaims ? 'on' : 'off'}; the COT projector in its own process)`,
      );
      printTable(
        [
          'target',
          'events',
          'reports',
          'seconds',
          'reports/s',
          'lag p50 ms',
          'lag p99 ms',
          'queryable',
          `peak RSS (of ${PROJECTOR_LIMIT_MIB} MiB)`,
          'read back',
          'buckets',
        ],
        historyRows,
      );
    }

    // The four figures of issue #37 (write claims on when measured), per target.
    console.log('\nSummary (write claims on when measured; targets: live p99 < 250 ms, spread p99 < 1 s)');
    printTable(
      ['figure', ...targets.map((t) => t.name)],
      [
        ['live lag', 'live'],
        ['backfill (spread) lag', 'spread'],
        ['COT projection', 'cot'],
        ['series projection', 'series'],
        ['whole COT history: time, lag', 'history'],
      ].map(([label, key]) => [label!, ...targets.map((t) => figures.get(`${key} ${t.name}`) ?? '-')]),
    );
    for (const [name, m] of connections) if (name !== 'head') await m.close();
  } finally {
    await messaging.close();
    await client.close();
    await mongoServer.stop();
    await nats.stop();
  }
}

/**
 * Publishes the whole history while a COT projector in its own process folds it; an event is
 * queryable once its commodity was announced at or past its sequence (as in the lag phase).
 */
async function historyRun(
  target: Target,
  natsUrl: string,
  mongoUrl: string,
  client: MongoClient,
  messaging: Messaging,
  events: DataEvent[],
  writeClaims: boolean,
): Promise<{
  seconds: number;
  p50: number;
  p99: number;
  lags: number;
  peakRss: number;
  stored: number;
  buckets: number;
  largestBucket: number;
}> {
  const db = client.db(`bench_history_${target.name}`);
  const tracker = trackQueryable(messaging, 'cot');
  const { lags } = tracker;
  const durable = `bench_history_${target.name}`;
  await consumerFromEnd(messaging, durable, headProjector.cotProjection.filterSubject);
  const worker = fork(
    process.argv[1]!,
    ['--lag-worker', target.root ?? '', natsUrl, mongoUrl, db.databaseName, durable, writeClaims ? '1' : '0', 'cot'],
    // the V8 heap limit the chart gives the projector (services.projector.heapMiB)
    { stdio: 'inherit', execArgv: [...process.execArgv, `--max-old-space-size=${PROJECTOR_HEAP_MIB}`] },
  );
  await once(worker, 'message');
  const started = performance.now();
  // Pipelined in windows of 200 un-acked publishes, as publishAll.
  for (let i = 0; i < events.length; i += 200) {
    await Promise.all(
      events.slice(i, i + 200).map((e) => {
        const commodity = e.type === 'cot.reports.recorded' ? e.data.commodity_id : '';
        const t = performance.now();
        return messaging.js
          .publish(subjectFor(e), encodeJson(e), { msgID: e.id })
          .then((ack) => tracker.published(commodity, ack.seq, t));
      }),
    );
  }
  const deadline = performance.now() + HISTORY_DRAIN_MS;
  while (lags.length < events.length && performance.now() < deadline) await sleep(100);
  const seconds = (performance.now() - started) / 1000;
  const report = once(worker, 'message') as Promise<[{ peakRss: number; atPeak: NodeJS.MemoryUsage }]>;
  worker.send('stop');
  const [{ peakRss, atPeak }] = await report;
  const mib = (n: number) => `${(n / 2 ** 20).toFixed(0)} MiB`;
  console.log(
    `${target.name}: at the RSS peak ${mib(atPeak.rss)}: V8 heap ${mib(atPeak.heapUsed)} used of ${mib(atPeak.heapTotal)}, ` +
      `external ${mib(atPeak.external)} (array buffers ${mib(atPeak.arrayBuffers)})`,
  );
  await once(worker, 'exit');
  tracker.stop();
  // Every report read back: the buckets' counts, and the largest bucket as stored.
  let stored = 0;
  let buckets = 0;
  let largestBucket = 0;
  for await (const doc of db.collection(COLLECTIONS.cot).find({})) {
    buckets += 1;
    stored += Number(doc.count ?? 0);
    largestBucket = Math.max(largestBucket, Buffer.byteLength(JSON.stringify(doc)));
  }
  const sorted = [...lags].sort((a, b) => a - b);
  return {
    seconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    lags: lags.length,
    peakRss,
    stored,
    buckets,
    largestBucket,
  };
}

function printTable(head: string[], rows: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of rows) console.log(line(r));
}

await main();
