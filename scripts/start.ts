// `npm start`: the whole system on this machine. Starts NATS, Redis and a MongoDB API server (local
// binaries, or the NATS_URL / REDIS_URL / MONGODB_URL given), every service as a child process, loads
// the data (the bundled snapshot of real data, then what is newer from each source that answers or
// whose key is set; generated demo data only with `npm start -- --demo`), creates one demo account
// and key per plan, waits until the API answers with data,
// prints the base URL and the keys, starts the developer dashboard with one demo user per plan
// (mails written to .cds/mail/) and the webhook notifier, and stops everything cleanly on Ctrl-C.
// Service logs go to .cds/logs/; the addresses go to .cds/local.json for `npm run ingest` and
// `npm run admin`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT, startInfra, startSystem, type Infra, type RunningSystem } from '@cds/testkit';

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

/**
 * Loads the data: first the bundled snapshot of real data (data/snapshot, on any machine, offline
 * included), then whatever is newer from each source that answers (CFTC, World Bank) or whose key
 * is set (EIA, NASS), through `ingest sync` from the snapshot's newest date of that source. With
 * --demo (or CDS_DEMO=1), generated series, marked `source: "demo"`, fill what no real source
 * covers. Returns one line per source saying what was loaded.
 */
async function loadData(natsUrl: string, demo: boolean): Promise<string[]> {
  const env = { NATS_URL: natsUrl };
  const used: string[] = [];
  const { readManifest } = await import('@cds/ingest/snapshot');
  const { SOURCES } = await import('@cds/contracts');
  const { DEMO_PARTS, SYNCED } = await import('@cds/ingest');
  // The synced sources: first those that answer anyone (probed), then those that need a key.
  const live = [...SYNCED.filter((s) => s.sync.probe), ...SYNCED.filter((s) => !s.sync.probe)].map((s) => ({
    source: s.name,
    what: SOURCES[s.name].title,
    probe: s.sync.probe,
    key: s.source.credentials.find((c) => c.required)?.env,
  }));
  const manifest = await readManifest(SNAPSHOT_DIR);
  say(`loading the bundled snapshot of real data (built ${manifest.built_at.slice(0, 10)}, ${SNAPSHOT_DIR})…`);
  await run(['services/ingest/src/cli.ts', 'backfill', '--snapshot', SNAPSHOT_DIR, '--quiet'], env);
  const newest = new Map(manifest.sources.map((s) => [s.name, s.last_date]));
  for (const s of manifest.sources)
    used.push(`${s.name.padEnd(10)} snapshot ${s.first_date} … ${s.last_date} (${s.rows} rows; ${s.licence})`);

  for (const { source, what, probe, key } of live) {
    const label = source.padEnd(10);
    if (key !== undefined && !process.env[key]) {
      used.push(`${label} no sync: ${key} is not set (free key: docs/sources.md)`);
      continue;
    }
    if (probe !== undefined) {
      const answer = await reachable(probe(process.env));
      if (!answer.ok) {
        used.push(`${label} no sync: not reachable (${answer.reason})`);
        continue;
      }
    }
    const since = newest.get(source) ?? yearsAgo(DATA_YEARS);
    say(`syncing ${what} since ${since} (ingest sync --source ${source})…`);
    try {
      await run(['services/ingest/src/cli.ts', 'sync', '--source', source, '--since', since, '--quiet'], env);
      used.push(`${label} synced from the source since ${since}`);
    } catch (err) {
      used.push(`${label} sync failed (${err instanceof Error ? err.message : String(err)}): the snapshot stands`);
    }
  }
  if (demo) {
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
      env,
    );
    used.push('demo       generated (source "demo", price_basis "demo") for what no real source covers');
  }
  return used;
}

/**
 * The bulk files of GET /api/v1/bulk (`npm run projector -- bulk`), once every projection has
 * caught up with what loadData stored (two probes in a row with nothing pending), so the files hold
 * all of it. A failure leaves the API up without bulk files.
 */
async function writeBulkFiles(natsUrl: string, mongoUrl: string): Promise<string> {
  const { DATA_STREAM } = await import('@cds/contracts');
  const { connectMessaging } = await import('@cds/messaging');
  const messaging = await connectMessaging({ servers: natsUrl, name: 'cds-start-bulk' });
  try {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (let streak = 0; streak < 2;) {
      if (Date.now() > deadline) return `projections did not catch up within ${READY_TIMEOUT_MS / 1000} s`;
      let caughtUp = true;
      for (const name of ['catalog', 'series', 'cot']) {
        const info = await messaging.jsm.consumers.info(DATA_STREAM, `projector-${name}`).catch(() => undefined);
        if (info === undefined || info.num_pending > 0 || info.num_ack_pending > 0) caughtUp = false;
      }
      streak = caughtUp ? streak + 1 : 0;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    await messaging.close().catch(() => undefined);
  }
  await run(
    ['services/projector/src/cli.ts', 'bulk'],
    { NATS_URL: natsUrl, MONGODB_URL: mongoUrl, MONGODB_DB: 'cds' },
    true,
  );
  return 'written';
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
    await system?.stop().catch(() => {});
    await infra?.stop().catch(() => {});
    rmSync(LOCAL_ENV, { force: true });
    say('stopped');
  }
  process.exit(code);
}

async function main(): Promise<void> {
  mkdirSync(LOGS, { recursive: true });
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));

  const allowPrivate = (process.env.WEBHOOK_ALLOW_PRIVATE ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

  say('starting NATS (JetStream), Redis and the MongoDB API server…');
  // A fresh system every time: the demo data is regenerated up to today, so nothing is kept.
  rmSync(join(STATE, 'data'), { recursive: true, force: true });
  infra = await startInfra({ dir: join(STATE, 'data') });
  // the addresses without their passwords (the services get their own users: libs/testkit identities.ts)
  const shown = (url: string) => url.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  say(`infrastructure up: ${shown(infra.natsUrl)} ${shown(infra.redisUrl)} ${shown(infra.mongoUrl)}`);

  say('starting the accounts service, projector, query, gateway, dashboard and notifier (logs in .cds/logs/)…');
  system = await startSystem({
    // Each service runs as its own NATS and Redis user (libs/testkit identities.ts).
    identities: infra.identities,
    mongoUrl: infra.mongoUrl,
    gatewayPort: Number(process.env.PORT ?? 8080),
    logDir: LOGS,
    readyTimeoutMs: READY_TIMEOUT_MS,
    dashboard: { port: Number(process.env.DASHBOARD_PORT ?? 8084), mailDir: MAIL_DIR },
    // Webhook deliveries (docs/notifications.md); its "endpoint disabled" mails go to .cds/mail/ too.
    // WEBHOOK_ALLOW_PRIVATE (`host:port,...`) lets the dashboard save, and the notifier call, a
    // receiver on this machine or network: local trials only, never set in a cluster.
    notifier: { port: Number(process.env.NOTIFIER_PORT ?? 8085), mailDir: MAIL_DIR, allowPrivate },
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
  });
  const gateway = system.gateways[0]!;
  const gatewayUrl = gateway.url;
  const adminUrl = system.admin.url;
  const adminToken = system.adminToken;

  writeFileSync(
    LOCAL_ENV,
    // natsUrl: the data publisher's NATS user, which `npm run ingest` uses from this file.
    `${JSON.stringify({ natsUrl: infra.identities.nats.ingest, mongoUrl: infra.mongoUrl, redisUrl: infra.redisUrl, adminUrl, adminToken, gatewayUrl }, null, 2)}\n`,
  );

  const sources = await loadData(infra.identities.nats.ingest, DEMO);
  say(`data sources:\n${sources.map((l) => `          ${l}`).join('\n')}`);

  const keys: Record<string, string> = {};
  for (const plan of PLANS) {
    const account = await admin<{ account_id: string }>(adminUrl, adminToken, '/accounts', {
      name: `Demo ${plan}`,
      plan,
    });
    const key = await admin<{ key: string }>(adminUrl, adminToken, `/accounts/${account.account_id}/keys`, {
      label: 'demo',
    });
    keys[plan] = key.key;
  }

  // One dashboard user per plan, with one password (local demo only).
  const demoPassword = `demo-${randomBytes(4).toString('hex')}-pass`;
  for (const plan of PLANS) {
    await run(
      [
        'services/dashboard/src/cli.ts',
        'create-user',
        '--email',
        `${plan}@demo.cds.local`,
        '--password',
        demoPassword,
        '--plan',
        plan,
      ],
      { MONGODB_URL: infra.mongoUrl, MONGODB_DB: 'cds_dashboard', ADMIN_URL: adminUrl, ADMIN_TOKEN: adminToken },
      true,
    );
  }
  const dashboardUrl = system.dashboardUrl ?? '';

  say('waiting until the API serves the data…');
  // Ready = a request through the gateway returns projected data (key propagated, read model built).
  const probe = `${gatewayUrl}/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&limit=1&sort_order=desc`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const res = await fetch(probe, { headers: { authorization: `Bearer ${keys.enterprise}` } }).catch(() => undefined);
    if (res?.ok && ((await res.json()) as { data: unknown[] }).data.length > 0) break;
    if (Date.now() > deadline) throw new Error(`the API did not serve data within ${READY_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }

  say('writing the bulk files (npm run projector -- bulk)…');
  const bulk = await writeBulkFiles(infra.identities.nats.projector, infra.mongoUrl).catch(
    (err: unknown) => `failed (${err instanceof Error ? err.message : String(err)})`,
  );
  if (bulk !== 'written') say(`bulk files not written: ${bulk}`);

  const pad = (s: string) => s.padEnd(13);
  process.stdout.write(
    `\n  Commodity Data Service is running.\n\n` +
      `  Dashboard     ${dashboardUrl}/\n` +
      `                sign up there; mails (the confirmation link) are written to .cds/mail/\n` +
      `                demo users ${PLANS.map((p) => `${p}@demo.cds.local`).join(', ')}\n` +
      `                password ${demoPassword}\n\n` +
      `  Base URL      ${gatewayUrl}/api/v1\n` +
      `  API reference ${gatewayUrl}/docs\n\n` +
      `  Demo keys (one account per plan):\n` +
      PLANS.map((p) => `    ${pad(p)} ${keys[p]}`).join('\n') +
      `\n\n  Try:\n` +
      `    curl -H "Authorization: Bearer ${keys.business}" \\\n` +
      `      "${gatewayUrl}/api/v1/commodities/GOLD/series?type=price&limit=5&sort_order=desc"\n` +
      `  Bulk files (docs/bulk.md):\n` +
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

main().catch((err: unknown) => {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  void shutdown(1);
});
