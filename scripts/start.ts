// `npm start`: the whole system on this machine. Starts NATS, Redis and a MongoDB API server (local
// binaries, or the NATS_URL / REDIS_URL / MONGODB_URL given), every service as a child process, loads
// the demo data, creates one demo account and key per plan, waits until the API answers with data,
// prints the base URL and the keys, starts the developer dashboard with one demo user per plan
// (mails written to .cds/mail/), and stops everything cleanly on Ctrl-C. Service logs go to
// .cds/logs/; the addresses go to .cds/local.json for `npm run ingest` and `npm run admin`.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, startInfra, startSystem, type Infra, type RunningSystem } from '@cds/testkit';

const STATE = join(REPO_ROOT, '.cds');
const LOGS = join(STATE, 'logs');
const LOCAL_ENV = join(STATE, 'local.json');
const MAIL_DIR = join(STATE, 'mail');
const READY_TIMEOUT_MS = Number(process.env.CDS_START_TIMEOUT_MS ?? 120_000);
const PLANS = ['free', 'professional', 'business', 'enterprise'] as const;

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

  say('starting NATS (JetStream), Redis and the MongoDB API server…');
  // A fresh system every time: the demo data is regenerated up to today, so nothing is kept.
  rmSync(join(STATE, 'data'), { recursive: true, force: true });
  infra = await startInfra({ dir: join(STATE, 'data') });
  say(`infrastructure up: ${infra.natsUrl} ${infra.redisUrl} ${infra.mongoUrl}`);

  say('starting the ingest admin API, projector, query, gateway and dashboard (logs in .cds/logs/)…');
  system = await startSystem({
    natsUrl: infra.natsUrl,
    redisUrl: infra.redisUrl,
    mongoUrl: infra.mongoUrl,
    gatewayPort: Number(process.env.PORT ?? 8080),
    logDir: LOGS,
    readyTimeoutMs: READY_TIMEOUT_MS,
    dashboard: { port: Number(process.env.DASHBOARD_PORT ?? 8084), mailDir: MAIL_DIR },
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

  say('loading the demo data (the whole catalog, 3 years up to today)…');
  await run(['services/ingest/src/cli.ts', 'backfill', '--demo', '--years', process.env.CDS_DEMO_YEARS ?? '3'], {
    NATS_URL: infra.natsUrl,
  });

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
      `      "${gatewayUrl}/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&limit=5&sort_order=desc"\n\n` +
      `  Logs in .cds/logs/; addresses in .cds/local.json (used by npm run ingest / npm run admin).\n` +
      `  Press Ctrl-C to stop.\n\n`,
  );
}

main().catch((err: unknown) => {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  void shutdown(1);
});
