// The gateway's key table at scale (security review #1, issue #22): what a gateway replica holds in
// memory and how long it takes to be ready when the keys stream holds 100,000 active keys, and what a
// create-and-revoke loop adds. Against real NATS (the keys stream as the system defines it:
// compacted to one message per subject) and Redis, with the real gateway process.
//
// Scenarios, each on a freshly purged stream, each a new gateway process:
//   empty       no key: the baseline of a gateway process;
//   active      ACCOUNTS accounts × KEYS_PER_ACCOUNT keys (100,000 active keys by default);
//   churn       the same active keys, plus CHURN keys created and revoked again (a create-revoke
//               loop): the stream keeps one revocation per churned key, the table nothing of them.
// For each: the stream's messages and bytes, the time from spawning the gateway to its first
// /readyz 200 (it replays the whole stream first), its RSS then, and the RSS over the empty
// gateway's per active key. Ratios against `empty` are measured in the same run.
//
//   node bench/keys.bench.ts     (root script: npm run bench:keys)
//   BENCH_KEY_ACCOUNTS=10000 BENCH_KEYS_PER_ACCOUNT=10 BENCH_KEY_CHURN=100000 (the defaults);
//   BENCH_GATEWAY_NODE_ARGS='--max-old-space-size=192' (the default: the chart's heap limit for a gateway).
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { KEYS_STREAM, subjectFor, type KeyEvent } from '@cds/contracts';
import { connectMessaging, encodeJson, streamSpec, type Messaging } from '@cds/messaging';
import { findFreePort, startNats, startRedis } from '@cds/testkit';
import { KeyTable } from '@cds/gateway';

const ACCOUNTS = Number(process.env.BENCH_KEY_ACCOUNTS ?? 10_000);
const KEYS_PER_ACCOUNT = Number(process.env.BENCH_KEYS_PER_ACCOUNT ?? 10);
const CHURN = Number(process.env.BENCH_KEY_CHURN ?? 100_000);
const PUBLISH_WINDOW = 2_000;
// The gateway's V8 heap limit, as the chart sets it (values.yaml gateway.nodeOptions): without one, V8
// sizes its heap from the machine's memory and lets the replay's garbage grow the resident set.
const GATEWAY_NODE_ARGS = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '--max-old-space-size=192')
  .split(' ')
  .filter(Boolean);

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const at = new Date().toISOString();
const envelope = { version: 1 as const, occurred_at: at, source: 'bench' };

/** Publishes events with up to PUBLISH_WINDOW acks outstanding; resolves when all are stored. */
async function publishAll(messaging: Messaging, events: Iterable<KeyEvent>): Promise<number> {
  let inFlight: Promise<unknown>[] = [];
  let n = 0;
  for (const event of events) {
    inFlight.push(messaging.js.publish(subjectFor(event), encodeJson(event), { msgID: event.id }));
    n += 1;
    if (inFlight.length >= PUBLISH_WINDOW) {
      await Promise.all(inFlight);
      inFlight = [];
    }
  }
  await Promise.all(inFlight);
  return n;
}

// Event ids and subjects carry the scenario: a purge empties the stream but not its duplicate window.
function* activeKeys(tag: string): Generator<KeyEvent> {
  for (let a = 0; a < ACCOUNTS; a += 1) {
    const account = `acc_${tag}${String(a).padStart(8, '0')}`;
    yield {
      id: `${tag}:a:${a}`,
      type: 'account.created',
      ...envelope,
      data: { account_id: account, name: `b${a}`, plan: 'free' },
    };
    for (let k = 0; k < KEYS_PER_ACCOUNT; k += 1) {
      const i = a * KEYS_PER_ACCOUNT + k;
      yield {
        id: `${tag}:k:${i}`,
        type: 'key.created',
        ...envelope,
        data: {
          key_id: `key_${tag}a${String(i).padStart(9, '0')}`,
          account_id: account,
          key_hash: sha256(`active-${i}`),
          plan: 'free',
        },
      };
    }
  }
}

function* churnedKeys(tag: string): Generator<KeyEvent> {
  for (let i = 0; i < CHURN; i += 1) {
    const data = {
      key_id: `key_${tag}c${String(i).padStart(9, '0')}`,
      account_id: `acc_${tag}${String(i % ACCOUNTS).padStart(8, '0')}`,
      key_hash: sha256(`churn-${i}`),
    };
    yield { id: `${tag}:c:${i}`, type: 'key.created', ...envelope, data: { ...data, plan: 'free' } };
    yield { id: `${tag}:r:${i}`, type: 'key.revoked', ...envelope, data: { ...data, created_at: at } };
  }
}

const rssKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/** Spawns a gateway and waits for its first /readyz 200; its time to ready, RSS and metrics then. */
async function measureGateway(
  env: Record<string, string>,
): Promise<{ readyMs: number; rssMiB: number; activeKeys: number }> {
  const port = await findFreePort();
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [...GATEWAY_NODE_ARGS, '--disable-warning=ExperimentalWarning', 'services/gateway/src/main.ts'],
    {
      env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    const deadline = Date.now() + 300_000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) })
        .then((r) => r.ok)
        .catch(() => false);
      if (ok) break;
      if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error('gateway not ready within 300 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    const readyMs = performance.now() - started;
    // Let the replay's garbage settle, then read the resident set and the table's own gauge.
    await new Promise((r) => setTimeout(r, 2_000));
    const rssMiB = rssKiB(child.pid!) / 1024;
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const activeKeys = Number(/^cds_gateway_active_keys(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1] ?? NaN);
    return { readyMs, rssMiB, activeKeys };
  } finally {
    child.kill('SIGKILL');
  }
}

/** What the gateway's KeyTable itself retains for the active scenario's keys (heap after GC, here). */
function retainedByTable(): { keys: number; bytes: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc (npm run bench:keys does)');
  gc();
  const before = process.memoryUsage().heapUsed;
  const table = new KeyTable();
  // Parsed from JSON as the follower does, so the strings are the table's own.
  for (const event of activeKeys('retained')) table.apply(JSON.parse(JSON.stringify(event)) as KeyEvent);
  gc();
  const bytes = process.memoryUsage().heapUsed - before;
  return { keys: table.activeKeys, bytes };
}

async function main(): Promise<void> {
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
      ['active', () => [activeKeys('active')]],
      ['churn', () => [activeKeys('churn'), churnedKeys('churn')]],
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
        'stream MiB': (info.state.bytes / 2 ** 20).toFixed(1),
        'publish s': publishS.toFixed(1),
        'table keys': g.activeKeys,
        'ready ms': Math.round(g.readyMs),
        'RSS MiB': g.rssMiB.toFixed(1),
        'B/key over empty': g.activeKeys > 0 ? Math.round(((g.rssMiB - empty.rssMiB) * 2 ** 20) / g.activeKeys) : '-',
        'ready / empty': (g.readyMs / empty.readyMs).toFixed(2),
      });
    }
    console.table(rows);
    const retained = retainedByTable();
    console.log(
      `key table alone (this process, after GC): ${retained.keys} keys of ${ACCOUNTS} accounts retain ` +
        `${(retained.bytes / 2 ** 20).toFixed(1)} MiB, ${Math.round(retained.bytes / retained.keys)} B per key`,
    );
    console.log(
      `${ACCOUNTS} accounts × ${KEYS_PER_ACCOUNT} keys active; churn: ${CHURN} keys created and revoked. ` +
        'A gateway pod has a 384 MiB memory limit (charts values.yaml).',
    );
  } finally {
    await messaging.close();
    await Promise.all([nats.stop(), redis.stop()]);
  }
}

await main();
