// Ingest benchmark (issue 3, item 6): parse and publish a 100,000-row CFTC legacy file, and
// generate and publish 1,000,000 demo series points, against a private nats-server (JetStream,
// file storage). Prints records/s against the targets and memory before/after/peak, which stays
// flat because every stage streams. Run: npm run bench:ingest  (BENCH_ROWS / BENCH_DEMO_POINTS
// override the sizes).
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CATALOG,
  COMMODITIES,
  createKvLedger,
  createPublisher,
  ensureEventStreams,
  generateDemoItems,
  runIngest,
  type IngestSummary,
  type SourceItem,
} from '@cds/ingest';
import { parseCftcLegacyCsv } from '@cds/ingest/sources/cftc';
import { writeSyntheticCftcLegacyFile } from '@cds/ingest/testing';
import { connectMessaging, type Messaging } from '@cds/messaging';
import { startNats } from '@cds/testkit';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const DEMO_POINTS = Number(process.env.BENCH_DEMO_POINTS ?? 1_000_000);
const TARGET_PARSE = 50_000;
const TARGET_PUBLISH = 20_000;
const MB = 1024 * 1024;

interface Memory {
  rssBefore: number;
  heapBefore: number;
  rssAfter: number;
  heapAfter: number;
  rssMax: number;
  heapMax: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Runs `fn`, sampling memory every 25 ms; before/after are taken after a GC when --expose-gc is on. */
async function measured<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number; cpuMs: number; mem: Memory }> {
  gc?.();
  const before = process.memoryUsage();
  let rssMax = before.rss;
  let heapMax = before.heapUsed;
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    rssMax = Math.max(rssMax, m.rss);
    heapMax = Math.max(heapMax, m.heapUsed);
  }, 25);
  const started = performance.now();
  const cpu = process.cpuUsage();
  try {
    const value = await fn();
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000;
    gc?.();
    const after = process.memoryUsage();
    return {
      value,
      ms,
      cpuMs,
      mem: {
        rssBefore: before.rss,
        heapBefore: before.heapUsed,
        rssAfter: after.rss,
        heapAfter: after.heapUsed,
        rssMax: Math.max(rssMax, after.rss),
        heapMax: Math.max(heapMax, after.heapUsed),
      },
    };
  } finally {
    clearInterval(timer);
  }
}

function* take(items: Iterable<SourceItem>, n: number): Generator<SourceItem> {
  let i = 0;
  for (const it of items) {
    if (i++ >= n) return;
    yield it;
  }
}

async function publishRun(
  messaging: Messaging,
  items: AsyncIterable<SourceItem> | Iterable<SourceItem>,
  source: string,
): Promise<IngestSummary> {
  const ledger = await createKvLedger(messaging.js, { replicas: 1 });
  const publisher = createPublisher({ js: messaging.js, window: 512, ledger });
  return runIngest({ items, publisher, source, catalog: COMMODITIES.map((c) => c.entry), progressEvery: 1e12 });
}

interface Row {
  stage: string;
  records: number;
  events: number | string;
  seconds: number;
  cpuSeconds: number;
  rate: number;
  target: number | undefined;
  mem: Memory;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (n: number) => `${(n / MB).toFixed(0)}`;

function printTable(rows: Row[]): void {
  const head = [
    'stage',
    'records',
    'events',
    'seconds',
    'cpu s',
    'records/s',
    'per cpu s',
    'target',
    'ok',
    'rss before/after/max MB',
    'heap before/after/max MB',
  ];
  const body = rows.map((r) => [
    r.stage,
    fmt(r.records),
    typeof r.events === 'number' ? fmt(r.events) : r.events,
    r.seconds.toFixed(2),
    r.cpuSeconds.toFixed(2),
    fmt(r.rate),
    fmt(r.records / Math.max(0.001, r.cpuSeconds)),
    r.target === undefined ? '-' : `>= ${fmt(r.target)}`,
    r.target === undefined ? '-' : r.rate >= r.target ? 'yes' : 'NO',
    `${mb(r.mem.rssBefore)} / ${mb(r.mem.rssAfter)} / ${mb(r.mem.rssMax)}`,
    `${mb(r.mem.heapBefore)} / ${mb(r.mem.heapAfter)} / ${mb(r.mem.heapMax)}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cds-bench-ingest-'));
  const nats = await startNats({ dir });
  const messaging = await connectMessaging({ servers: nats.url, name: 'bench-ingest' });
  const rows: Row[] = [];
  try {
    await ensureEventStreams(messaging, { replicas: 1, duplicateWindowMs: 24 * 3600_000 });
    const file = join(dir, 'annual.txt');
    const written = await writeSyntheticCftcLegacyFile(file, { rows: ROWS });
    const size = (await stat(file)).size;
    console.log(
      `CFTC legacy file: ${fmt(written.rows)} rows, ${written.markets} catalog markets, ${(size / MB).toFixed(1)} MB; ` +
        `nats-server ${nats.url} (JetStream, file storage); node ${process.version}; gc ${gc ? 'exposed' : 'not exposed'}; ` +
        `${cpus().length} cores, load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}`,
    );

    // 1. parse only
    const parsed = await measured(async () => {
      let n = 0;
      let rejected = 0;
      for await (const it of parseCftcLegacyCsv(createReadStream(file, { highWaterMark: 256 * 1024 }), {
        catalog: CATALOG,
        file: 'annual.txt',
      })) {
        n++;
        if (it.kind === 'rejected') rejected++;
      }
      return { n, rejected };
    });
    if (parsed.value.rejected > 0) throw new Error(`the parser rejected ${parsed.value.rejected} synthetic rows`);
    rows.push({
      stage: 'CFTC parse',
      records: parsed.value.n,
      events: '-',
      seconds: parsed.ms / 1000,
      cpuSeconds: parsed.cpuMs / 1000,
      rate: (parsed.value.n / parsed.ms) * 1000,
      target: TARGET_PARSE,
      mem: parsed.mem,
    });

    // 2. parse + publish to JetStream (records counted once stored)
    const cftc = await measured(() =>
      publishRun(
        messaging,
        parseCftcLegacyCsv(createReadStream(file, { highWaterMark: 256 * 1024 }), {
          catalog: CATALOG,
          file: 'annual.txt',
        }),
        'cftc-legacy:annual.txt',
      ),
    );
    const cftcRecords = cftc.value.recordsPublished - cftc.value.catalogPublished;
    rows.push({
      stage: 'CFTC parse+publish',
      records: cftcRecords,
      events: cftc.value.eventsPublished,
      seconds: cftc.ms / 1000,
      cpuSeconds: cftc.cpuMs / 1000,
      rate: (cftcRecords / cftc.ms) * 1000,
      target: TARGET_PUBLISH,
      mem: cftc.mem,
    });

    // 3. the same file again: nothing new
    const again = await measured(() =>
      publishRun(
        messaging,
        parseCftcLegacyCsv(createReadStream(file, { highWaterMark: 256 * 1024 }), {
          catalog: CATALOG,
          file: 'annual.txt',
        }),
        'cftc-legacy:annual.txt',
      ),
    );
    rows.push({
      stage: 'CFTC re-ingest',
      records: again.value.recordsRead,
      events: `0 new / ${fmt(again.value.duplicatesSkipped)} dup`,
      seconds: again.ms / 1000,
      cpuSeconds: again.cpuMs / 1000,
      rate: (again.value.recordsRead / again.ms) * 1000,
      target: undefined,
      mem: again.mem,
    });
    if (again.value.eventsPublished !== 0) throw new Error(`re-ingest published ${again.value.eventsPublished} events`);

    // 4. demo: generate + publish 1,000,000 points
    const years = Math.ceil(DEMO_POINTS / 25_000) + 2;
    const demo = await measured(() =>
      publishRun(messaging, take(generateDemoItems({ years, today: '2025-06-30' }), DEMO_POINTS), 'demo'),
    );
    const demoRecords = demo.value.recordsPublished - demo.value.catalogPublished;
    rows.push({
      stage: 'demo generate+publish',
      records: demoRecords,
      events: demo.value.eventsPublished,
      seconds: demo.ms / 1000,
      cpuSeconds: demo.cpuMs / 1000,
      rate: (demoRecords / demo.ms) * 1000,
      target: TARGET_PUBLISH,
      mem: demo.mem,
    });

    const info = await messaging.jsm.streams.info('CDS_DATA');
    console.log('');
    printTable(rows);
    console.log('');
    console.log(
      `CDS_DATA: ${fmt(info.state.messages)} messages, ${(info.state.bytes / MB).toFixed(1)} MB. ` +
        `Points per event: CFTC ${(cftcRecords / Math.max(1, cftc.value.eventsPublished - cftc.value.catalogPublished)).toFixed(0)}, ` +
        `demo ${(demoRecords / Math.max(1, demo.value.eventsPublished - demo.value.catalogPublished)).toFixed(0)}.`,
    );
    console.log(
      `load average at the end ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}. records/s is wall time (targets); ` +
        '"per cpu s" is records per CPU second of this process (nats-server runs beside it), a figure less skewed by other load.',
    );
    const failed = rows.filter((r) => r.target !== undefined && r.rate < r.target);
    if (failed.length > 0) {
      console.log(`below target: ${failed.map((r) => r.stage).join(', ')}`);
      process.exitCode = 1;
    }
  } finally {
    await messaging.close().catch(() => undefined);
    await nats.stop().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
