// `npm start`: the whole system on this machine. Starts NATS, Redis and a MongoDB API server (local
// binaries, or the NATS_URL / REDIS_URL / MONGODB_URL given), every service as a child process, loads
// the data (real COT reports when the CFTC's public reporting API answers, real EIA and NASS data when
// EIA_API_KEY / NASS_API_KEY are set, demo data marked `source: "demo"` for the rest), creates one demo account and key per plan, waits until the API answers with data,
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
/** DNS and TCP connect to a source: an offline machine fails here at once (or within this deadline). */
const CONNECT_DEADLINE_MS = 3_000;
/** Then the first byte of an answer of the source's API. */
const FIRST_BYTE_DEADLINE_MS = 10_000;

const say = (msg: string) => process.stdout.write(`[start] ${msg}\n`);

let infra: Infra | undefined;
let system: RunningSystem | undefined;
let stopping = false;

async function run(cmd: string[], env: Record<string, string>, quiet = false): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...cmd], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit',
    });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd.join(' ')} exited with ${String(code)}`)),
    );
  });
}

/**
 * Whether the CFTC's public reporting API answers: a TCP connection (name lookup included) within
 * CONNECT_DEADLINE_MS, then the first byte of a one-row query within FIRST_BYTE_DEADLINE_MS.
 */
async function cftcReachable(): Promise<{ ok: true } | { ok: false; reason: string }> {
  const base = new URL(process.env.CFTC_API_URL ?? 'https://publicreporting.cftc.gov');
  const port = Number(base.port || (base.protocol === 'http:' ? 80 : 443));
  const connected = await new Promise<string | undefined>((resolve) => {
    const socket = connect({ host: base.hostname, port });
    const done = (reason?: string) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reason);
    };
    const timer = setTimeout(() => done(`no connection within ${CONNECT_DEADLINE_MS / 1000} s`), CONNECT_DEADLINE_MS);
    socket.once('connect', () => done());
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code ?? err.message));
  });
  if (connected !== undefined) return { ok: false, reason: `${base.hostname}: ${connected}` };
  try {
    // loaded only when the host answered: an offline start does not pay for importing the ingest package
    const { CFTC_DATASETS } = await import('@cds/ingest');
    const res = await fetch(new URL(`/resource/${CFTC_DATASETS.legacy}.json?$limit=1`, base), {
      signal: AbortSignal.timeout(FIRST_BYTE_DEADLINE_MS),
    });
    await res.body?.cancel();
    return res.ok ? { ok: true } : { ok: false, reason: `${base.hostname} answered ${res.status}` };
  } catch (err) {
    const reason = err instanceof Error && err.name === 'TimeoutError' ? 'no answer within 10 s' : String(err);
    return { ok: false, reason: `${base.hostname}: ${reason}` };
  }
}

/** The day `years` before today (UTC), YYYY-MM-DD: where a real-data sync starts. */
function yearsAgo(years: number): string {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - years);
  return d.toISOString().slice(0, 10);
}

/**
 * Loads the data: real COT reports when the CFTC answers, real EIA and NASS data when their keys
 * are set (each through `ingest sync` from DATA_YEARS back), and the demo for everything else, so
 * no series is fed twice. Returns one line per kind of data saying where it came from.
 */
async function loadData(natsUrl: string): Promise<string[]> {
  const env = { NATS_URL: natsUrl };
  const since = yearsAgo(DATA_YEARS);
  const real: ('cot' | 'eia' | 'nass')[] = [];
  const used: string[] = [];
  const sync = async (source: 'cftc' | 'eia' | 'nass', what: string): Promise<boolean> => {
    say(`loading real ${what} since ${since} (ingest sync --source ${source})…`);
    try {
      await run(['services/ingest/src/cli.ts', 'sync', '--source', source, '--since', since, '--quiet'], env);
      return true;
    } catch (err) {
      say(`the ${source} sync failed (${err instanceof Error ? err.message : String(err)}); demo data instead`);
      return false;
    }
  };

  const cftc = await cftcReachable();
  if (cftc.ok && (await sync('cftc', 'COT reports from the CFTC'))) {
    real.push('cot');
    used.push(`COT reports      real, CFTC public reporting API (source cftc:<format>:<code>), since ${since}`);
  } else {
    used.push(
      `COT reports      demo (source "demo"): ${cftc.ok ? 'the CFTC sync failed' : `the CFTC is not reachable (${cftc.reason})`}`,
    );
  }
  for (const [source, key, name] of [
    ['eia', 'EIA_API_KEY', 'EIA'],
    ['nass', 'NASS_API_KEY', 'USDA NASS'],
  ] as const) {
    const label = `${name} series`.padEnd(16);
    if (!process.env[key]) {
      used.push(`${label} demo (source "demo"): ${key} is not set`);
    } else if (await sync(source, `${name} data`)) {
      real.push(source);
      used.push(`${label} real, ${name} API (source ${source}:<id>), since ${since}`);
    } else {
      used.push(`${label} demo (source "demo"): the ${name} sync failed`);
    }
  }
  const without = real.length > 0 ? ['--without', real.join(',')] : [];
  say(
    `loading the demo data (the whole catalog, ${DATA_YEARS} years up to today${real.length > 0 ? `, without ${real.join(', ')}` : ''})…`,
  );
  await run(['services/ingest/src/cli.ts', 'backfill', '--demo', '--years', String(DATA_YEARS), ...without], env);
  used.push('futures prices   demo (source "demo"): no free official source');
  return used;
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
  say(`infrastructure up: ${infra.natsUrl} ${infra.redisUrl} ${infra.mongoUrl}`);

  say('starting the ingest admin API, projector, query, gateway, dashboard and notifier (logs in .cds/logs/)…');
  system = await startSystem({
    natsUrl: infra.natsUrl,
    redisUrl: infra.redisUrl,
    mongoUrl: infra.mongoUrl,
    gatewayPort: Number(process.env.PORT ?? 8080),
    logDir: LOGS,
    readyTimeoutMs: READY_TIMEOUT_MS,
    dashboard: { port: Number(process.env.DASHBOARD_PORT ?? 8084), mailDir: MAIL_DIR },
    // Webhook deliveries (docs/notifications.md); its "endpoint disabled" mails go to .cds/mail/ too.
    // WEBHOOK_ALLOW_PRIVATE (`host:port,...`) lets the dashboard save, and the notifier call, a
    // receiver on this machine or network: local trials only, never set in a cluster.
    notifier: { port: Number(process.env.NOTIFIER_PORT ?? 8085), mailDir: MAIL_DIR, allowPrivate },
    // Futures prices are always generated here (no free official source): GET /status says `demo: true`.
    serviceEnv: {
      gateway: { DEMO_DATA: 'true' },
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
    `${JSON.stringify({ natsUrl: infra.natsUrl, mongoUrl: infra.mongoUrl, redisUrl: infra.redisUrl, adminUrl, adminToken, gatewayUrl }, null, 2)}\n`,
  );

  const sources = await loadData(infra.natsUrl);
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

  say('waiting until the API serves the demo data…');
  // Ready = a request through the gateway returns projected data (key propagated, read model built).
  const probe = `${gatewayUrl}/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&limit=1&sort_order=desc`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const res = await fetch(probe, { headers: { authorization: `Bearer ${keys.enterprise}` } }).catch(() => undefined);
    if (res?.ok && ((await res.json()) as { data: unknown[] }).data.length > 0) break;
    if (Date.now() > deadline) throw new Error(`the API did not serve demo data within ${READY_TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }

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
      `      "${gatewayUrl}/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&limit=5&sort_order=desc"\n` +
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
