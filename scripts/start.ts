// `npm start`: the whole system on this machine. Starts NATS, Redis and a MongoDB API server (local
// binaries, or the NATS_URL / REDIS_URL / MONGODB_URL given), every service as a child process, loads
// the demo data, creates one demo account and key per plan, waits until the API answers with data,
// prints the base URL and the keys, and stops everything cleanly on Ctrl-C. Service logs go to
// .cds/logs/; the addresses go to .cds/local.json for `npm run ingest` and `npm run admin`.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startInfra, type Infra } from '@cds/testkit';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STATE = join(ROOT, '.cds');
const LOGS = join(STATE, 'logs');
const LOCAL_ENV = join(STATE, 'local.json');
const READY_TIMEOUT_MS = Number(process.env.CDS_START_TIMEOUT_MS ?? 120_000);
const PLANS = ['free', 'professional', 'business', 'enterprise'] as const;

const say = (msg: string) => process.stdout.write(`[start] ${msg}\n`);

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

async function freePort(preferred?: number): Promise<number> {
  if (preferred !== undefined && (await portFree(preferred))) return preferred;
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      s.close(() => (typeof addr === 'object' && addr !== null ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

interface Service {
  name: string;
  child: ChildProcess;
  log: string;
  exited: boolean;
}

const services: Service[] = [];
let infra: Infra | undefined;
let stopping = false;

function logTail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function spawnService(name: string, script: string, env: Record<string, string>): Service {
  const log = join(LOGS, `${name}.log`);
  const out = createWriteStream(log, { flags: 'w' });
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', script], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const svc: Service = { name, child, log, exited: false };
  child.once('exit', (code, signal) => {
    svc.exited = true;
    if (!stopping) {
      say(`${name} exited unexpectedly (${signal ?? `code ${String(code)}`}); its last log lines:\n${logTail(log)}`);
      void shutdown(1);
    }
  });
  services.push(svc);
  return svc;
}

async function waitReady(name: string, url: string, svc?: Service): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (svc?.exited) throw new Error(`${name} exited before it was ready`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${name} was not ready within ${READY_TIMEOUT_MS / 1000} s (see ${svc?.log ?? url})`);
}

async function run(cmd: string[], env: Record<string, string>): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', ...cmd], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: 'inherit',
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
  if (stopping) return new Promise<never>(() => {});
  stopping = true;
  say('stopping…');
  for (const s of services) if (!s.exited) s.child.kill('SIGTERM');
  const deadline = Date.now() + 8_000;
  while (services.some((s) => !s.exited) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  for (const s of services) if (!s.exited) s.child.kill('SIGKILL');
  await infra?.stop().catch(() => {});
  rmSync(LOCAL_ENV, { force: true });
  say('stopped');
  process.exit(code);
}

async function main(): Promise<void> {
  mkdirSync(LOGS, { recursive: true });
  process.once('SIGINT', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));

  say('starting NATS (JetStream), Redis and the MongoDB API server…');
  infra = await startInfra({ dir: join(STATE, 'data') });
  say(`infrastructure up: ${infra.natsUrl} ${infra.redisUrl} ${infra.mongoUrl}`);

  const [gatewayPort, queryPort, projectorPort, adminPort] = [
    await freePort(Number(process.env.PORT ?? 8080)),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const adminToken = randomBytes(24).toString('hex');
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const common = {
    NATS_URL: infra.natsUrl,
    MONGODB_URL: infra.mongoUrl,
    PUBLIC_BASE_URL: `http://localhost:${gatewayPort}`,
  };

  const ingest = spawnService('ingest-admin', 'services/ingest/src/main.ts', {
    ...common,
    PORT: String(adminPort),
    ADMIN_TOKEN: adminToken,
  });
  await waitReady('ingest admin API', `${adminUrl}/readyz`, ingest);
  const projector = spawnService('projector', 'services/projector/src/main.ts', {
    ...common,
    PORT: String(projectorPort),
  });
  const query = spawnService('query', 'services/query/src/main.ts', { ...common, PORT: String(queryPort) });
  const gateway = spawnService('gateway', 'services/gateway/src/main.ts', {
    ...common,
    PORT: String(gatewayPort),
    REDIS_URL: infra.redisUrl,
    QUERY_URL: `http://127.0.0.1:${queryPort}`,
  });
  await Promise.all([
    waitReady('projector', `http://127.0.0.1:${projectorPort}/readyz`, projector),
    waitReady('query', `http://127.0.0.1:${queryPort}/readyz`, query),
    waitReady('gateway', `${gatewayUrl}/readyz`, gateway),
  ]);

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
