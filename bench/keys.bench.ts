// The gateway's key table at scale (security reviews #1 and N3, issues #22 and #35): what a gateway
// replica holds in memory, and how long it takes to be ready, with 300,000 and 1,000,000 active keys.
//
// Two ways in, both through the gateway's own code:
//   table      a child process with the chart's heap limit folds COUNTS active keys into the gateway's
//              KeyTable through the key follower's decoder path (JSON bytes -> JSON.parse -> the
//              KeyEvent schema -> apply), without NATS: publishing a million events into JetStream
//              takes longer than the measure is worth on a small machine. It reports the time to
//              fold them (the replay's share of the time to ready), its RSS, heap and array buffers
//              after GC, and bytes per key over the same child with no key; a child the heap limit
//              kills is reported as such (that is what a gateway replica would do).
//   nats       the real gateway process replaying a real keys stream (compacted to one message per
//              subject, as the system defines it), for NATS_KEYS keys and an empty stream: the time
//              from spawn to the first /readyz 200, its RSS then, and the table's own gauges.
// Keys come KEYS_PER_ACCOUNT to an account (3 by default: Free's cap, the cheapest way to many keys),
// with ids shaped as the admin API makes them.
//
//   node bench/keys.bench.ts     (root script: npm run bench:keys)
//   BENCH_KEY_COUNTS=300000,1000000 BENCH_KEYS_PER_ACCOUNT=3 BENCH_KEY_NATS_KEYS=100000 (the defaults;
//   BENCH_KEY_COUNTS= skips the table children, BENCH_KEY_NATS_KEYS=0 the gateway process) BENCH_KEY_CHURN=0 (keys created and revoked again
//   before the nats scenario's gateway starts);
//   BENCH_GATEWAY_NODE_ARGS='--max-old-space-size=192' (the default: the chart's heap limit for a gateway);
//   BENCH_KEY_TABLE=<module path> and BENCH_GATEWAY_MAIN=<main.ts path> measure another KeyTable and
//   gateway, e.g. those of an older commit (git archive into a directory beside the work tree).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KEYS_STREAM, KeyEvent, subjectFor } from '@cds/contracts';
import { connectMessaging, encodeJson, schemaDecoder, streamSpec, type Messaging } from '@cds/messaging';
import { findFreePort, startNats, startRedis } from '@cds/testkit';

const COUNTS = (process.env.BENCH_KEY_COUNTS ?? '300000,1000000').split(',').filter(Boolean).map(Number);
const KEYS_PER_ACCOUNT = Number(process.env.BENCH_KEYS_PER_ACCOUNT ?? 3);
const NATS_KEYS = Number(process.env.BENCH_KEY_NATS_KEYS ?? 100_000);
const CHURN = Number(process.env.BENCH_KEY_CHURN ?? 0);
const PUBLISH_WINDOW = 2_000;
// The gateway's V8 heap limit, as the chart sets it (values.yaml services.gateway.heapMiB): without one,
// V8 sizes its heap from the machine's memory and lets the replay's garbage grow the resident set.
const GATEWAY_NODE_ARGS = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '--max-old-space-size=192')
  .split(' ')
  .filter(Boolean);
const TABLE_MODULE = process.env.BENCH_KEY_TABLE ?? 'services/gateway/src/keys/key-table.ts';
const GATEWAY_MAIN = process.env.BENCH_GATEWAY_MAIN ?? 'services/gateway/src/main.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
/** An id as the admin API makes it: prefix + 10 bytes in hex (here derived from the tag and number). */
const idOf = (prefix: string, tag: string, i: number) => `${prefix}_${sha256(`${tag}${i}`).slice(0, 20)}`;
const at = new Date().toISOString();
const envelope = { version: 1 as const, occurred_at: at, source: 'bench' };

// Event ids and subjects carry the scenario: a purge empties the stream but not its duplicate window.
function* activeKeys(tag: string, keys: number): Generator<KeyEvent> {
  for (let i = 0; i < keys; i += 1) {
    const account = idOf('acc', tag, Math.floor(i / KEYS_PER_ACCOUNT));
    if (i % KEYS_PER_ACCOUNT === 0) {
      yield {
        id: `${tag}:a:${i}`,
        type: 'account.created',
        ...envelope,
        data: { account_id: account, name: 'b', plan: 'free' },
      };
    }
    yield {
      id: `${tag}:k:${i}`,
      type: 'key.created',
      ...envelope,
      data: { key_id: idOf('key', tag, i), account_id: account, key_hash: sha256(`${tag}-active-${i}`), plan: 'free' },
    };
  }
}

function* churnedKeys(tag: string): Generator<KeyEvent> {
  for (let i = 0; i < CHURN; i += 1) {
    const data = {
      key_id: idOf('key', `${tag}c`, i),
      account_id: idOf('acc', tag, 0),
      key_hash: sha256(`${tag}-churn-${i}`),
    };
    yield { id: `${tag}:c:${i}`, type: 'key.created', ...envelope, data: { ...data, plan: 'free' } };
    yield { id: `${tag}:r:${i}`, type: 'key.revoked', ...envelope, data: { ...data, created_at: at } };
  }
}

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const MiB = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

// ---- table: one child per count, with the gateway's heap limit -------------------------------------

interface TableFigures {
  keys: number;
  foldMs: number;
  rss: number;
  heapUsed: number;
  arrayBuffers: number;
  tableBytes: number | undefined;
}

/** In the child: folds `keys` keys into a KeyTable through the follower's decoder path; prints figures. */
async function tableChild(keys: number): Promise<void> {
  const { KeyTable } = (await import(pathToFileURL(resolve(TABLE_MODULE)).href)) as {
    KeyTable: new () => { apply(e: KeyEvent): void; activeKeys: number; bytes?: number };
  };
  const gc = (globalThis as { gc?: () => void }).gc!;
  const decode = schemaDecoder(KeyEvent);
  const text = new TextDecoder();
  const table = new KeyTable();
  const t0 = performance.now();
  for (const event of activeKeys('table', keys)) {
    // As the follower reads a message: its bytes, parsed, checked against the schema, applied.
    const decoded = decode(JSON.parse(text.decode(encodeJson(event))));
    if ('reason' in decoded) throw new Error(decoded.reason);
    table.apply(decoded.value);
  }
  const foldMs = performance.now() - t0;
  gc();
  gc();
  const m = process.memoryUsage();
  const figures: TableFigures = {
    keys: table.activeKeys,
    foldMs,
    rss: m.rss,
    heapUsed: m.heapUsed,
    arrayBuffers: m.arrayBuffers,
    tableBytes: table.bytes,
  };
  process.stdout.write(JSON.stringify(figures));
}

/** Runs a table child; its figures, or why it died (an out-of-memory abort, as a replica would). */
function measureTable(keys: number): Promise<TableFigures | string> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [...GATEWAY_NODE_ARGS, '--expose-gc', '--disable-warning=ExperimentalWarning', 'bench/keys.bench.ts'],
      { env: { ...process.env, BENCH_KEY_CHILD: String(keys) }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code, signal) => {
      if (code === 0) return done(JSON.parse(out) as TableFigures);
      const oom = /heap out of memory|Allocation failed/i.test(err);
      done(
        oom
          ? `killed by the heap limit (${GATEWAY_NODE_ARGS.join(' ')})`
          : `exit ${code ?? signal}: ${err.slice(-300)}`,
      );
    });
  });
}

async function tableScenarios(): Promise<void> {
  const base = await measureTable(0);
  if (typeof base === 'string') throw new Error(`the empty table child failed: ${base}`);
  const rows: Record<string, string | number>[] = [];
  for (const keys of COUNTS) {
    const f = await measureTable(keys);
    if (typeof f === 'string') {
      rows.push({ keys, accounts: Math.ceil(keys / KEYS_PER_ACCOUNT), result: f });
      continue;
    }
    const retained = f.heapUsed + f.arrayBuffers - (base.heapUsed + base.arrayBuffers);
    rows.push({
      keys: f.keys,
      accounts: Math.ceil(keys / KEYS_PER_ACCOUNT),
      'fold s': (f.foldMs / 1000).toFixed(1),
      'RSS MiB': MiB(f.rss),
      'heap MiB': MiB(f.heapUsed),
      'buffers MiB': MiB(f.arrayBuffers),
      'retained B/key': Math.round(retained / f.keys),
      'RSS over empty B/key': Math.round((f.rss - base.rss) / f.keys),
      'table B/key': f.tableBytes === undefined ? '-' : Math.round(f.tableBytes / f.keys),
    });
  }
  console.log(
    `table (${TABLE_MODULE}, through the decoder without NATS, ${GATEWAY_NODE_ARGS.join(' ')}): ` +
      `empty child RSS ${MiB(base.rss)} MiB, heap ${MiB(base.heapUsed)} MiB`,
  );
  console.table(rows);
}

// ---- nats: the gateway process replaying a real keys stream ---------------------------------------

/** Publishes events with up to PUBLISH_WINDOW acks outstanding; resolves when all are stored. */
async function publishAll(messaging: Messaging, events: Iterable<KeyEvent>): Promise<number> {
  let inFlight: Promise<unknown>[] = [];
  let n = 0;
  for (const event of events) {
    // A generous ack deadline: a busy machine storing a million events can fall seconds behind.
    inFlight.push(messaging.js.publish(subjectFor(event), encodeJson(event), { msgID: event.id, timeout: 60_000 }));
    n += 1;
    if (inFlight.length >= PUBLISH_WINDOW) {
      await Promise.all(inFlight);
      inFlight = [];
    }
  }
  await Promise.all(inFlight);
  return n;
}

/** Spawns a gateway and waits for its first /readyz 200; its time to ready, RSS and metrics then. */
async function measureGateway(
  env: Record<string, string>,
): Promise<{ readyMs: number; rssMiB: number; activeKeys: number; tableBytes: number }> {
  const port = await findFreePort();
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [...GATEWAY_NODE_ARGS, '--disable-warning=ExperimentalWarning', GATEWAY_MAIN],
    {
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    const deadline = Date.now() + 600_000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) })
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
      if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('gateway not ready within 600 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const readyMs = performance.now() - started;
    // Let the replay's garbage settle, then read the resident set and the table's own gauges.
    await new Promise((r) => setTimeout(r, 2_000));
    const rssMiB = rssKiB(child.pid!) / 1024;
    const metrics = await (
      await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) })
    ).text();
    const gauge = (name: string) =>
      Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'm').exec(metrics)?.[1] ?? NaN);
    return {
      readyMs,
      rssMiB,
      activeKeys: gauge('cds_gateway_active_keys'),
      tableBytes: gauge('cds_gateway_key_table_bytes'),
    };
  } finally {
    child.kill('SIGKILL');
  }
}

async function natsScenarios(): Promise<void> {
  const [nats, redis] = await Promise.all([startNats(), startRedis()]);
  const messaging = await connectMessaging({ servers: nats.url, name: 'bench-keys' });
  // Nothing answers there: the gateway's readiness does not depend on the query service.
  const env = { NATS_URL: nats.url, REDIS_URL: redis.url, QUERY_URL: `http://127.0.0.1:${await findFreePort()}` };
  try {
    await messaging.ensureStream(streamSpec('keys', { replicas: 1 }));
    const rows: Record<string, string | number>[] = [];
    let empty: { readyMs: number; rssMiB: number } | undefined;
    const scenarios: [string, () => Iterable<KeyEvent>[]][] = [
      ['empty', () => []],
      ['active', () => [activeKeys('nats', NATS_KEYS), churnedKeys('nats')]],
    ];
    for (const [name, events] of scenarios) {
      await messaging.jsm.streams.purge(KEYS_STREAM);
      const t0 = performance.now();
      let published = 0;
      for (const batch of events()) published += await publishAll(messaging, batch);
      const publishS = (performance.now() - t0) / 1000;
      const info = await messaging.jsm.streams.info(KEYS_STREAM);
      const g = await measureGateway(env);
      empty ??= g;
      rows.push({
        scenario: name,
        published,
        'stream msgs': info.state.messages,
        'stream MiB': MiB(info.state.bytes),
        'publish s': publishS.toFixed(1),
        'table keys': g.activeKeys,
        'ready ms': Math.round(g.readyMs),
        'RSS MiB': g.rssMiB.toFixed(1),
        'B/key over empty': g.activeKeys > 0 ? Math.round(((g.rssMiB - empty.rssMiB) * 2 ** 20) / g.activeKeys) : '-',
        'table B/key':
          g.activeKeys > 0 && Number.isFinite(g.tableBytes) ? Math.round(g.tableBytes / g.activeKeys) : '-',
      });
    }
    console.log(`nats: the gateway process replaying the keys stream (${GATEWAY_NODE_ARGS.join(' ')}; churn ${CHURN})`);
    console.table(rows);
  } finally {
    await messaging.close();
    await Promise.all([nats.stop(), redis.stop()]);
  }
}

if (process.env.BENCH_KEY_CHILD !== undefined) {
  await tableChild(Number(process.env.BENCH_KEY_CHILD));
} else {
  if (COUNTS.length > 0) await tableScenarios();
  if (NATS_KEYS > 0) await natsScenarios();
  console.log(
    `${KEYS_PER_ACCOUNT} keys per account. A gateway pod has a 384 MiB memory limit and a 192 MiB heap ` +
      '(charts/commodity-data/values.yaml services.gateway).',
  );
}
