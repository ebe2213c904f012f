// `npm start`: the whole system on this machine. Starts NATS, Redis and a MongoDB API server (local
// binaries, or the NATS_URL / REDIS_URL / MONGODB_URL given), then side by side every service as a
// child process and the load of the bundled snapshot of real data (generated demo data only with
// `npm start -- --demo`), creates one demo account and key per plan and one dashboard demo user per
// plan (mails written to .cds/mail/), waits until the API answers with data, and prints the base URL
// and the keys. Only then, in the background, it syncs what is newer from each source that answers
// or whose key is set and writes the bulk files, each saying when it is done. Every step prints its
// seconds, and a summary before the keys says where the time went. Ctrl-C stops everything cleanly.
// Service logs go to .cds/logs/; the addresses go to .cds/local.json for `npm run ingest` and
// `npm run admin`.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
// Only the modules start needs, not the testkit's index (which brings vitest, a dev dependency that
// `npm start`'s production-only install leaves out).
import { startInfra, type Infra } from '@cds/testkit/infra';
import { REPO_ROOT, startSystem, type RunningSystem } from '@cds/testkit/system';

const STATE = join(REPO_ROOT, '.cds');
const LOGS = join(STATE, 'logs');
const LOCAL_ENV = join(STATE, 'local.json');
const MAIL_DIR = join(STATE, 'mail');
const READY_TIMEOUT_MS = Number(process.env.CDS_START_TIMEOUT_MS ?? 120_000);
const PLANS = ['free', 'professional', 'business', 'enterprise'] as const;
const DATA_YEARS = Number(process.env.CDS_DEMO_YEARS ?? 3);
/** The bundled snapshot of real data (docs/sources.md "The bundled snapshot"); CDS_SNAPSHOT_DIR overrides. */
const SNAPSHOT_DIR = process.env.CDS_SNAPSHOT_DIR ?? join(REPO_ROOT, 'data', 'snapshot');
/** `npm start -- --demo` (or CDS_DEMO=1): generated series fill what no real source covers. */
const DEMO = process.argv.slice(2).includes('--demo') || ['1', 'true'].includes(process.env.CDS_DEMO ?? '');
/** DNS and TCP connect to a source: an offline machine fails here at once (or within this deadline). */
const CONNECT_DEADLINE_MS = 3_000;
/** Then the first byte of an answer of the source's API. */
const FIRST_BYTE_DEADLINE_MS = 10_000;

const say = (msg: string) => process.stdout.write(`[start] ${msg}\n`);

let infra: Infra | undefined;
let system: RunningSystem | undefined;
let stopping = false;
/** The CLI runs under way (snapshot load, syncs, bulk files): stopped with the rest on Ctrl-C. */
const children = new Set<ChildProcess>();

/** Seconds since `t` (a performance.now() reading), one decimal. */
const since = (t: number) => ((performance.now() - t) / 1000).toFixed(1);
/** Each step's start (seconds after this script began) and length, for the summary before the keys. */
const steps: { label: string; at: number; seconds: number }[] = [];

/** Runs one step of the start, printing `done: LABEL (N s)` when it ends and keeping it for the summary. */
async function step<T>(label: string, work: () => Promise<T>): Promise<T> {
  const t = performance.now();
  const value = await work();
  const seconds = (performance.now() - t) / 1000;
  steps.push({ label, at: t / 1000, seconds });
  say(`done: ${label} (${seconds.toFixed(1)} s)`);
  return value;
}

/**
 * Longest a CLI run of `npm start` may take (a snapshot load, one source's sync: the sync's own
 * per-source deadline is 30 minutes): past it the run is stopped and reported as failed.
 */
const RUN_DEADLINE_MS = 40 * 60_000;

async function run(cmd: string[], env: Record<string, string>, quiet = false): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...cmd], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit',
    });
    children.add(child);
    child.once('exit', () => children.delete(child));
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`${cmd.join(' ')} did not finish within ${RUN_DEADLINE_MS / 60_000} minutes`));
    }, RUN_DEADLINE_MS);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${cmd.join(' ')} exited with ${String(code)}`));
    });
  });
}

/**
 * Whether a source answers: a TCP connection (name lookup included) within CONNECT_DEADLINE_MS,
 * then the first byte of an answer to `probe` within FIRST_BYTE_DEADLINE_MS.
 */
async function reachable(probe: URL): Promise<{ ok: true } | { ok: false; reason: string }> {
  const port = Number(probe.port || (probe.protocol === 'http:' ? 80 : 443));
  const connected = await new Promise<string | undefined>((resolve) => {
    const socket = connect({ host: probe.hostname, port });
    const done = (reason?: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reason);
    };
    const timer = setTimeout(() => done(`no connection within ${CONNECT_DEADLINE_MS / 1000} s`), CONNECT_DEADLINE_MS);
    socket.once('connect', () => done());
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
  if (connected !== undefined) return { ok: false, reason: `${probe.hostname}: ${connected}` };
  try {
    const res = await fetch(probe, { signal: AbortSignal.timeout(FIRST_BYTE_DEADLINE_MS) });
    await res.body?.cancel();
    return res.ok ? { ok: true } : { ok: false, reason: `${probe.hostname} answered ${res.status}` };
  } catch (err) {
    const reason = err instanceof Error && err.name === 'TimeoutError' ? 'no answer within 10 s' : String(err);
    return { ok: false, reason: `${probe.hostname}: ${reason}` };
  }
}

/** The day `years` before today (UTC), YYYY-MM-DD: where a sync starts for a source the snapshot lacks. */
function yearsAgo(years: number): string {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return d.toISOString().slice(0, 10);
}

type SyncPlan = { source: string; what: string; since: string };

/**
 * The supply and demand editions (YYYY-MM) loaded before the keys: those of the last 12 months.
 * The older ones (16 years of monthly balance sheets, ten times the rest of the snapshot's events)
 * load after the keys, in the background.
 */
function recentEditionsSince(): string {
  const d = new Date();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() - 12);
  return d.toISOString().slice(0, 7);
}

/**
 * Loads the bundled snapshot of real data (data/snapshot, on any machine, offline included) through
 * `ingest backfill --snapshot`, the supply and demand editions of the last 12 months only (the
 * older ones: loadHistory, after the keys). Returns one line per source and each source's newest date.
 */
async function loadSnapshot(natsUrl: string): Promise<{ lines: string[]; newest: Map<string, string | null> }> {
  const { readManifest } = await import('@cds/ingest/snapshot');
  const manifest = await readManifest(SNAPSHOT_DIR);
  say(`loading the bundled snapshot of real data (built ${manifest.built_at.slice(0, 10)}, ${SNAPSHOT_DIR})…`);
  await run(
    [
      'services/ingest/src/cli.ts',
      'backfill',
      '--snapshot',
      SNAPSHOT_DIR,
      '--editions-since',
      recentEditionsSince(),
      // the exchange rates of the last 12 months too; their 27 years of history after the keys
      '--rates-since',
      recentEditionsSince(),
      '--quiet',
    ],
    { NATS_URL: natsUrl },
  );
  return {
    lines: manifest.sources.map(
      (s) => `${s.name.padEnd(10)} snapshot ${s.first_date} … ${s.last_date} (${s.rows} rows; ${s.licence})`,
    ),
    newest: new Map(manifest.sources.map((s) => [s.name, s.last_date])),
  };
}

/**
 * The supply and demand editions of the snapshot older than those loaded before the keys
 * (`ingest backfill --snapshot --history-before`) and the older exchange rates (`--rates-before`),
 * then until every projection has them.
 */
async function loadHistory(natsUrl: string, projectorUrl: string): Promise<void> {
  const before = recentEditionsSince();
  say(`loading the supply and demand history and the exchange rates (before ${before}) in the background…`);
  const t = performance.now();
  try {
    await run(
      ['services/ingest/src/cli.ts', 'backfill', '--snapshot', SNAPSHOT_DIR, '--history-before', before, '--quiet'],
      { NATS_URL: natsUrl },
    );
    if (stopping) return;
    // the exchange rates of the older months (the euro reference rates from 1999), likewise
    await run(
      ['services/ingest/src/cli.ts', 'backfill', '--snapshot', SNAPSHOT_DIR, '--rates-before', before, '--quiet'],
      { NATS_URL: natsUrl },
    );
    if (stopping) return;
    const loaded = since(t);
    await projectionsCaughtUp(projectorUrl);
    say(`supply and demand history and older exchange rates loaded (${loaded} s) and served (${since(t)} s)`);
  } catch (err) {
    say(
      `supply and demand history not loaded (${err instanceof Error ? err.message : String(err)}): the last 12 months stand`,
    );
  }
}

/**
 * Which synced sources can sync what is newer than the snapshot: those that answer anyone
 * (CFTC, World Bank, AMS: probed side by side) and those whose key is set (EIA, NASS). Returns one
 * line per source and the syncs to run, each from the snapshot's newest date of that source.
 */
async function planSyncs(newest: Map<string, string | null>): Promise<{ lines: string[]; syncs: SyncPlan[] }> {
  const { SOURCES } = await import('@cds/contracts');
  const { SYNCED } = await import('@cds/ingest');
  // first those that answer anyone (probed), then those that need a key
  const live = [...SYNCED.filter((s) => s.sync.probe), ...SYNCED.filter((s) => !s.sync.probe)];
  const checked = await Promise.all(
    live.map(async (s) => {
      const source = s.name;
      const label = source.padEnd(10);
      const key = s.source.credentials.find((c) => c.required)?.env;
      if (key !== undefined && !process.env[key]) {
        return { line: `${label} no sync: ${key} is not set (free key: docs/sources.md)` };
      }
      if (s.sync.probe !== undefined) {
        const answer = await reachable(s.sync.probe(process.env));
        if (!answer.ok) return { line: `${label} no sync: not reachable (${answer.reason})` };
      }
      const since = newest.get(source) ?? yearsAgo(DATA_YEARS);
      return {
        line: `${label} syncing what is newer since ${since} in the background ([start] says when done)`,
        sync: { source, what: SOURCES[s.name].title, since },
      };
    }),
  );
  return { lines: checked.map((c) => c.line), syncs: checked.flatMap((c) => (c.sync ? [c.sync] : [])) };
}

/** With --demo (or CDS_DEMO=1): generated series, marked `source: "demo"`, for what no real source covers. */
async function loadDemo(natsUrl: string): Promise<string> {
  const { DEMO_PARTS } = await import('@cds/ingest');
  say(`adding generated demo data (${DATA_YEARS} years) where no real source covers a series…`);
  await run(
    [
      'services/ingest/src/cli.ts',
      'backfill',
      '--demo',
      '--years',
      String(DATA_YEARS),
      '--without',
      DEMO_PARTS.join(','),
      '--quiet',
    ],
    { NATS_URL: natsUrl },
  );
  return 'demo       generated (source "demo", price_basis "demo") for what no real source covers';
}

/** One after another, what is newer at each source than the snapshot (`ingest sync`), each saying how it went. */
async function syncSources(natsUrl: string, syncs: SyncPlan[]): Promise<void> {
  for (const { source, what, since: from } of syncs) {
    if (stopping) return;
    say(`syncing ${what} since ${from} in the background (ingest sync --source ${source})…`);
    const t = performance.now();
    try {
      await run(['services/ingest/src/cli.ts', 'sync', '--source', source, '--since', from, '--quiet'], {
        NATS_URL: natsUrl,
      });
      say(`${source} synced from the source since ${from} (${since(t)} s)`);
    } catch (err) {
      if (stopping) return;
      say(`${source} sync failed (${err instanceof Error ? err.message : String(err)}): the snapshot stands`);
    }
  }
}

/**
 * Resolves once every projection has caught up with what is in the data stream (two probes in a
 * row with nothing pending or unacknowledged); throws past READY_TIMEOUT_MS.
 */
async function projectionsCaughtUp(natsUrl: string): Promise<void> {
  const { DATA_STREAM } = await import('@cds/contracts');
  const { connectMessaging } = await import('@cds/messaging');
  const messaging = await connectMessaging({ servers: natsUrl, name: 'cds-start-projections' });
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (let streak = 0; streak < 2;) {
      if (Date.now() > deadline) throw new Error(`projections did not catch up within ${READY_TIMEOUT_MS / 1000} s`);
      let caughtUp = true;
      // the projector runs every projection (services/projector/src/projections/index.ts PROJECTION_NAMES)
      for (const name of ['catalog', 'series', 'cot', 'supply_demand']) {
        const info = await messaging.jsm.consumers.info(DATA_STREAM, `projector-${name}`).catch(() => undefined);
        if (info === undefined || info.num_pending > 0 || info.num_ack_pending > 0) caughtUp = false;
      }
      streak = caughtUp ? streak + 1 : 0;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await messaging.close().catch(() => undefined);
  }
}

/**
 * The bulk files of GET /api/v1/bulk (`npm run projector -- bulk`), once every projection has
 * caught up with what was loaded, so the files hold all of it. A failure leaves the API up without
 * bulk files.
 */
async function writeBulkFiles(natsUrl: string, mongoUrl: string): Promise<string> {
  await projectionsCaughtUp(natsUrl);
  await run(
    ['services/projector/src/cli.ts', 'bulk'],
    { NATS_URL: natsUrl, MONGODB_URL: mongoUrl, MONGODB_DB: 'cds' },
    true,
  );
  return 'written';
}

/** writeBulkFiles, saying when they are written (or why not); `what` follows "the bulk files". */
async function bulkFiles(natsUrl: string, mongoUrl: string, what: string): Promise<void> {
  say(`writing the bulk files${what} in the background (npm run projector -- bulk)…`);
  const t = performance.now();
  const bulk = await writeBulkFiles(natsUrl, mongoUrl).catch(
    (err: unknown) => `failed (${err instanceof Error ? err.message : String(err)})`,
  );
  if (stopping) return;
  if (bulk === 'written') say(`bulk files${what} written (${since(t)} s; GET /api/v1/bulk lists them)`);
  else say(`bulk files${what} not written: ${bulk}`);
}

async function admin<T>(adminUrl: string, token: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${adminUrl}/admin/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    say('stopping…');
    for (const child of children) child.kill('SIGTERM');
    await system?.stop().catch(() => {});
    await infra?.stop().catch(() => {});
    rmSync(LOCAL_ENV, { force: true });
    say('stopped');
  }
  process.exit(code);
}

/** One demo account and key per plan (admin API), and one dashboard user per plan with one password. */
async function createDemoAccess(adminApi: { url: string; token: string }, mongoUrl: string) {
  const keyOf = async (plan: (typeof PLANS)[number]) => {
    const account = await admin<{ account_id: string }>(adminApi.url, adminApi.token, '/accounts', {
      name: `Demo ${plan}`,
      plan,
    });
    const key = await admin<{ key: string }>(adminApi.url, adminApi.token, `/accounts/${account.account_id}/keys`, {
      label: 'demo',
    });
    return [plan, key.key] as const;
  };
  // local demo only: one password for the four users
  const demoPassword = `demo-${randomBytes(4).toString('hex')}-pass`;
  // the four users in one process (a Node.js start and a database connection each would cost more
  // than their hashes)
  const users = run(
    [
      'services/dashboard/src/cli.ts',
      'create-user',
      '--password',
      demoPassword,
      ...PLANS.flatMap((plan) => ['--email', `${plan}@demo.cds.local`, '--plan', plan]),
    ],
    { MONGODB_URL: mongoUrl, MONGODB_DB: 'cds_dashboard', ADMIN_URL: adminApi.url, ADMIN_TOKEN: adminApi.token },
    true,
  );
  const [keys] = await Promise.all([Promise.all(PLANS.map(keyOf)), users]);
  return { keys: Object.fromEntries(keys) as Record<(typeof PLANS)[number], string>, demoPassword };
}

/** Ready = a request through the gateway returns projected data (key propagated, read model built). */
async function waitForData(gatewayUrl: string, key: string): Promise<void> {
  const probe = `${gatewayUrl}/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&limit=1&sort_order=desc`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const res = await fetch(probe, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    if (res?.ok && ((await res.json()) as { data: unknown[] }).data.length > 0) return;
    await res?.body?.cancel().catch(() => undefined);
    if (Date.now() > deadline) throw new Error(`the API did not serve data within ${READY_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Where the time went: each step's start and end, in seconds after `npm start` (bootstrap included). */
function timeSummary(bootstrapSeconds: number, scriptStarted: number): string {
  const rows = [
    ...(bootstrapSeconds > 0
      ? [{ label: 'bootstrap: installs ([bootstrap] lines above)', from: 0, to: bootstrapSeconds }]
      : []),
    { label: 'start.ts: Node.js and its imports', from: bootstrapSeconds, to: bootstrapSeconds + scriptStarted },
    ...steps.map((s) => ({ label: s.label, from: bootstrapSeconds + s.at, to: bootstrapSeconds + s.at + s.seconds })),
  ];
  const width = Math.max(...rows.map((r) => r.label.length));
  return rows
    .map(
      (r) =>
        `          ${r.label.padEnd(width)} ${r.from.toFixed(1).padStart(5)} → ${r.to.toFixed(1).padStart(5)} s  (${(r.to - r.from).toFixed(1)} s)`,
    )
    .join('\n');
}

/** What `npm start` prints once the API serves the data: where everything is, the keys, a first call. */
function printWelcome(o: {
  dashboardUrl: string;
  gatewayUrl: string;
  keys: Record<(typeof PLANS)[number], string>;
  demoPassword: string;
  sources: string[];
}): void {
  const { dashboardUrl, gatewayUrl, keys, demoPassword, sources } = o;
  const pad = (s: string) => s.padEnd(13);
  process.stdout.write(
    `\n  Commodity Data Service is running.\n\n` +
      `  Dashboard     ${dashboardUrl}/\n` +
      `                sign up there; mails (the confirmation link) are written to .cds/mail/\n` +
      `                demo users ${PLANS.map((p) => `${p}@demo.cds.local`).join(', ')}\n` +
      `                password ${demoPassword}\n\n` +
      `  Base URL      ${gatewayUrl}/api/v1\n` +
      `  API reference ${gatewayUrl}/docs\n` +
      `  Status page   ${dashboardUrl}/status (each dataset's condition, releases and lag: docs/freshness.md)\n\n` +
      `  Demo keys (one account per plan):\n` +
      PLANS.map((p) => `    ${pad(p)} ${keys[p]}`).join('\n') +
      `\n\n  Try:\n` +
      `    curl -H "Authorization: Bearer ${keys.business}" \\\n` +
      `      "${gatewayUrl}/api/v1/commodities/GOLD/series?type=price&limit=5&sort_order=desc"\n` +
      `  Bulk files (docs/bulk.md; written in the background: a [start] line says when):\n` +
      `    curl -H "Authorization: Bearer ${keys.business}" "${gatewayUrl}/api/v1/bulk"\n` +
      `  Follow change notifications as new data lands (docs/notifications.md):\n` +
      `    curl -N -H "Authorization: Bearer ${keys.business}" "${gatewayUrl}/api/v1/events"\n\n` +
      `  Data (meta.source and each series' source in the commodity detail say which):\n` +
      sources.map((l) => `    ${l}`).join('\n') +
      `\n\n` +
      `  Logs in .cds/logs/; addresses in .cds/local.json (used by npm run ingest / npm run admin).\n` +
      `  Press Ctrl-C to stop.\n\n`,
  );
}

async function main(): Promise<void> {
  const scriptStarted = performance.now() / 1000;
  // Node.js keeps the code it compiled for the services and CLI runs of the next start (bootstrap.sh
  // sets the same folder for this script).
  process.env.NODE_COMPILE_CACHE ??= join(process.env.CDS_CACHE ?? STATE, 'node-compile-cache');
  // scripts/bootstrap.sh's own seconds, when it ran just before (`npm start`)
  const bootstrapSeconds = Number(process.env.CDS_BOOTSTRAP_SECONDS ?? 0) || 0;
  mkdirSync(LOGS, { recursive: true });
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));

  const allowPrivate = (process.env.WEBHOOK_ALLOW_PRIVATE ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

  say('starting NATS (JetStream), Redis and the MongoDB API server…');
  // A fresh system every time: the data is loaded again, so nothing is kept.
  rmSync(join(STATE, 'data'), { recursive: true, force: true });
  const up = await step('infrastructure: NATS, Redis, MongoDB API server', () =>
    startInfra({ dir: join(STATE, 'data') }),
  );
  infra = up;
  // the addresses without their passwords (the services get their own users: libs/testkit identities.ts)
  const shown = (url: string) => url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  say(`infrastructure up: ${shown(up.natsUrl)} ${shown(up.redisUrl)} ${shown(up.mongoUrl)}`);
  const ingestUrl = up.identities.nats.ingest;

  say(
    'starting the accounts service, projector, query, gateway and dashboard (logs in .cds/logs/), ' +
      'and loading the data alongside…',
  );
  // The services and the data load side by side: the snapshot goes into the event stream, which the
  // projector reads from the start whenever it comes up. The demo keys and users are created as soon
  // as the admin API answers, while the other services start. The webhook notifier starts after the
  // keys: no first call needs it, and no webhook endpoint exists before them (each start begins with
  // empty databases; the notifier's consumer, new at its first start, takes what lands from then on).
  const adminUp = Promise.withResolvers<{ url: string; token: string }>();
  const services = step('services: accounts, projector, query, gateway, dashboard', () =>
    startSystem({
      onAdminReady: adminUp.resolve,
      // Each service runs as its own NATS and Redis user (libs/testkit identities.ts).
      identities: up.identities,
      mongoUrl: up.mongoUrl,
      gatewayPort: Number(process.env.PORT ?? 8080),
      logDir: LOGS,
      readyTimeoutMs: READY_TIMEOUT_MS,
      dashboard: { port: Number(process.env.DASHBOARD_PORT ?? 8084), mailDir: MAIL_DIR },
      // Webhook deliveries (docs/notifications.md); its "endpoint disabled" mails go to .cds/mail/ too.
      // WEBHOOK_ALLOW_PRIVATE (`host:port,...`) lets the dashboard save, and the notifier call, a
      // receiver on this machine or network: local trials only, never set in a cluster.
      notifier: { port: Number(process.env.NOTIFIER_PORT ?? 8085), mailDir: MAIL_DIR, allowPrivate, deferred: true },
      // With --demo, generated series fill the gaps: GET /status then says `demo: true`.
      serviceEnv: {
        gateway: { DEMO_DATA: DEMO ? 'true' : 'false' },
        ...(allowPrivate.length > 0 ? { dashboard: { WEBHOOK_ALLOW_PRIVATE: allowPrivate.join(',') } } : {}),
      },
      onUnexpectedExit: (svc, code, signal) => {
        say(
          `${svc.name} exited unexpectedly (${signal ?? `code ${String(code)}`}); its last log lines:\n${svc.tail(20)}`,
        );
        void shutdown(1);
      },
    }),
  ).then((sys) => {
    system = sys;
    writeFileSync(
      LOCAL_ENV,
      // natsUrl: the data publisher's NATS user, which `npm run ingest` uses from this file.
      `${JSON.stringify({ natsUrl: ingestUrl, adminNatsUrl: up.identities.nats.admin, mongoUrl: up.mongoUrl, redisUrl: up.redisUrl, adminUrl: sys.admin.url, adminToken: sys.adminToken, gatewayUrl: sys.gateways[0]!.url }, null, 2)}\n`,
    );
    return sys;
  });
  // a start that fails before the admin API is ready fails the demo access too (no wait forever)
  services.catch((err: unknown) => adminUp.reject(err));
  const access = adminUp.promise.then((adminApi) =>
    step('demo keys and dashboard users', () => createDemoAccess(adminApi, up.mongoUrl)),
  );
  const data = step('bundled snapshot loaded', () => loadSnapshot(ingestUrl)).then(async (snapshot) => {
    const plan = await step('sources probed', () => planSyncs(snapshot.newest));
    const demo = DEMO ? [await step('generated demo data loaded', () => loadDemo(ingestUrl))] : [];
    return { lines: [...snapshot.lines, ...plan.lines, ...demo], syncs: plan.syncs };
  });
  // All run to their end, so a failure of one never leaves the others' processes behind.
  const [servicesDone, accessDone, dataDone] = await Promise.allSettled([services, access, data]);
  if (servicesDone.status === 'rejected') throw servicesDone.reason;
  if (accessDone.status === 'rejected') throw accessDone.reason;
  if (dataDone.status === 'rejected') throw dataDone.reason;
  const sys = servicesDone.value;
  const { keys, demoPassword } = accessDone.value;
  const sources = dataDone.value.lines;
  say(`data sources:\n${sources.map((l) => `          ${l}`).join('\n')}`);
  const gatewayUrl = sys.gateways[0]!.url;
  const dashboardUrl = sys.dashboardUrl ?? '';

  say('waiting until the API serves the data…');
  // Working = all of the loaded data projected, and a call through the gateway answering with it.
  await step('API serving the data (every projection caught up)', () =>
    Promise.all([projectionsCaughtUp(up.identities.nats.projector), waitForData(gatewayUrl, keys.enterprise)]),
  );
  const total = bootstrapSeconds + performance.now() / 1000;
  say(
    `where the time went (seconds after npm start; steps side by side overlap):\n${timeSummary(bootstrapSeconds, scriptStarted)}`,
  );
  say(`keys ready ${total.toFixed(1)} s after npm start`);

  printWelcome({ dashboardUrl, gatewayUrl, keys, demoPassword, sources });

  await step('webhook notifier', () => sys.restartNotifier!());
  if (stopping) return;

  // After the keys: the bulk files of what is loaded, then the older supply and demand editions and
  // what is newer at the sources, then the bulk files again, of all of it.
  await bulkFiles(up.identities.nats.projector, up.mongoUrl, '');
  if (stopping) return;
  await loadHistory(ingestUrl, up.identities.nats.projector);
  if (stopping) return;
  await syncSources(ingestUrl, dataDone.value.syncs);
  if (stopping) return;
  await bulkFiles(up.identities.nats.projector, up.mongoUrl, ' (again: with the history and the syncs)');
  if (stopping) return;
  say(`everything loaded ${(bootstrapSeconds + performance.now() / 1000).toFixed(1)} s after npm start`);
}

main().catch((err: unknown) => {
  // A step cut short by Ctrl-C (a process stopped under it) is no failure: the stop under way ends the run.
  if (stopping) return;
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  void shutdown(1);
});
