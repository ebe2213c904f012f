import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InfraIdentities } from './identities.ts';
import { findFreePort } from './ports.ts';

/** The repository root (libs/testkit/src/../../..). */
export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The long-running process of each service: `src/main.ts` (ingest has none: it runs as jobs). */
const ENTRYPOINTS: Record<StartServiceOptions['service'], string> = {
  accounts: 'services/accounts/src/main.ts',
  projector: 'services/projector/src/main.ts',
  query: 'services/query/src/main.ts',
  gateway: 'services/gateway/src/main.ts',
  dashboard: 'services/dashboard/src/main.ts',
  notifier: 'services/notifier/src/main.ts',
};

/** A service of this repository running as its own process (see ENTRYPOINTS). */
export interface ServiceProcess {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  readonly log: string;
  readonly child: ChildProcess;
  exited(): boolean;
  /** The last lines of its log, for error messages. */
  tail(lines?: number): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** Sends a signal without waiting (fault tests: SIGKILL, SIGSTOP). */
  signal(sig: NodeJS.Signals): void;
}

export interface StartServiceOptions {
  /** Folder under services/ (its process: ENTRYPOINTS). */
  service: 'accounts' | 'projector' | 'query' | 'gateway' | 'dashboard' | 'notifier';
  /** Name in logs and messages (e.g. gateway-2). Default: the service. */
  name?: string;
  env: Record<string, string>;
  /** Port to listen on; a free one when omitted. */
  port?: number;
  /** Folder for the log file; a temporary folder when omitted. */
  logDir?: string;
  /** Called when the process exits on its own (not through stop()). */
  onUnexpectedExit?: (svc: ServiceProcess, code: number | null, signal: NodeJS.Signals | null) => void;
  /** Extra Node.js flags, e.g. `--import @cds/telemetry/register`. */
  nodeArgs?: string[];
}

/** Starts one service as a child process with its own log file, listening on 127.0.0.1. */
export async function startServiceProcess(opts: StartServiceOptions): Promise<ServiceProcess> {
  const name = opts.name ?? opts.service;
  const port = opts.port ?? (await findFreePort());
  const dir = opts.logDir ?? join(tmpdir(), `cds-logs-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  const log = join(dir, `${name}.log`);
  const out = createWriteStream(log, { flags: 'w' });
  const child = spawn(
    process.execPath,
    [...(opts.nodeArgs ?? []), '--disable-warning=ExperimentalWarning', ENTRYPOINTS[opts.service]],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', ...opts.env, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  let exited = false;
  let stopping = false;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const svc: ServiceProcess = {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    log,
    child,
    exited: () => exited,
    tail: (lines = 30) => {
      try {
        return readFileSync(log, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '(no log)';
      }
    },
    async stop(graceMs = 5_000) {
      stopping = true;
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await gone;
      clearTimeout(timer);
    },
    signal: (sig) => {
      if (sig === 'SIGKILL' || sig === 'SIGTERM') stopping = true;
      child.kill(sig);
    },
  };
  child.once('exit', (code, signal) => {
    exited = true;
    if (!stopping) opts.onUnexpectedExit?.(svc, code, signal);
  });
  return svc;
}

/** Polls `url` until it answers 2xx; fails early if the process exits, with its log tail. */
export async function waitForReady(
  url: string,
  opts: { timeoutMs?: number; service?: ServiceProcess } = {},
): Promise<void> {
  const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (opts.service?.exited() === true) {
      throw new Error(`${opts.service.name} exited before it was ready:\n${opts.service.tail()}`);
    }
    const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} was not ready in time${opts.service ? `:\n${opts.service.tail()}` : ''}`);
}

export interface SystemOptions {
  /**
   * The NATS and Redis address of each component (`Infra.identities`): every service runs as its own
   * user, so a run proves each user's permissions sufficient (identities.ts).
   */
  identities: InfraIdentities;
  mongoUrl: string;
  /** Database of the read models. Default `cds`. */
  mongoDb?: string;
  gateways?: number;
  /** Query service replicas; gateway i forwards to query i mod n. Default 1. */
  queries?: number;
  /** Projector processes, each running every projection (they compete on the durable consumers). Default 1. */
  projectors?: number;
  /** Extra Node.js flags for every service (e.g. `--import @cds/telemetry/register`). */
  nodeArgs?: string[];
  /** Per-service extra environment, by service folder name. */
  serviceEnv?: Partial<Record<StartServiceOptions['service'], Record<string, string>>>;
  /** Preferred port of the first gateway (npm start uses 8080 when free). */
  gatewayPort?: number;
  logDir?: string;
  /** Extra environment for every service (e.g. LOG_LEVEL). */
  env?: Record<string, string>;
  onUnexpectedExit?: StartServiceOptions['onUnexpectedExit'];
  readyTimeoutMs?: number;
  /** Also start the developer dashboard (opt-in); see DashboardOptions. */
  dashboard?: DashboardOptions;
  /** Also start the webhook notifier (opt-in); see NotifierOptions. */
  notifier?: NotifierOptions;
  /**
   * Called once the admin API (accounts) is ready: before the other services start (npm start creates
   * its demo keys meanwhile), or with `accountsBeside`, while they start.
   */
  onAdminReady?: (admin: { url: string; token: string }) => void;
  /**
   * Start the accounts service beside the others rather than first. The others do not need it to
   * start (they wait for its streams as in a cluster, where nothing orders the pods), so a system
   * is ready sooner (on a 2-core machine, 0.3 s of 2.8 s idle and 0.6 s of 3.5 s with one core busy:
   * the e2e suites start some 30 systems). npm start keeps the order: its demo keys, made while the
   * others start, are on its critical path.
   */
  accountsBeside?: boolean;
}

/** The notifier process of startSystem (its mail goes like the dashboard's: `smtpUrl`, else files in `mailDir`). */
export interface NotifierOptions {
  /** The webhook store's database. Default `cds_webhooks` (the dashboard's default too). */
  webhooksDb?: string;
  /** `host:port` pairs exempt from the private-address refusal (WEBHOOK_ALLOW_PRIVATE): local test receivers. */
  allowPrivate?: readonly string[];
  /** A PEM file of extra trusted CAs for the notifier process (NODE_EXTRA_CA_CERTS): a test receiver's certificate. */
  extraCaCerts?: string;
  smtpUrl?: string;
  /** Default `.cds/mail` under the repository. */
  mailDir?: string;
  /** Preferred port (npm start uses 8085 when free). */
  port?: number;
  /** Extra environment, e.g. WEBHOOK_RETRY_BASE_MS for a retry test. */
  env?: Record<string, string>;
  /**
   * Not started with the rest: `restartNotifier` starts it (npm start, once the keys are printed).
   * A notifier's first start takes the change records that land from then on (its consumer's
   * deliver policy), so defer it only while no webhook endpoint can exist yet.
   */
  deferred?: boolean;
}

/** The dashboard process of startSystem: mail goes to `smtpUrl` when given, else to files in `mailDir`. */
export interface DashboardOptions {
  /** smtp://user:pass@host:port of an SMTP server (tests start one). */
  smtpUrl?: string;
  /** Folder for mail files when no smtpUrl is given. Default `.cds/mail` under the repository. */
  mailDir?: string;
  /** Preferred port (npm start uses 8084 when free). */
  port?: number;
  /** Its MongoDB database. Default `cds_dashboard`. */
  mongoDb?: string;
  /** Secure cookies: off by default, since the local system is plain http. */
  cookieSecure?: boolean;
  /** Extra environment, e.g. SESSION_IDLE_SECONDS for an expiry test. */
  env?: Record<string, string>;
}

export interface RunningSystem {
  admin: ServiceProcess;
  adminToken: string;
  /** The first projector and query process (the only ones unless replicas were asked for). */
  projector: ServiceProcess;
  query: ServiceProcess;
  projectors: ServiceProcess[];
  queries: ServiceProcess[];
  gateways: ServiceProcess[];
  /** The dashboard, when SystemOptions.dashboard was given. */
  dashboard?: ServiceProcess;
  /** Its public URL including the /dashboard prefix. */
  dashboardUrl?: string;
  /**
   * The notifier, when SystemOptions.notifier was given and it was started (the current process
   * after a restart; a deferred one from its first `restartNotifier`).
   */
  notifier?: ServiceProcess;
  /**
   * Starts the notifier again (after a test killed it, or first when it was deferred) with the same
   * settings and waits until it is ready; `notifier` then names the new process. Only when
   * SystemOptions.notifier was given.
   */
  restartNotifier?: () => Promise<ServiceProcess>;
  /** Every process, for fault tests and shutdown. */
  all(): ServiceProcess[];
  stop(): Promise<void>;
}

/**
 * Starts the whole application on given infrastructure: the accounts service (admin API), the projector (all
 * projections), the query service and N gateways, each its own process, and waits until each is
 * ready; with `dashboard`, also the developer dashboard, and with `notifier` the webhook notifier. Used by
 * `npm start` and the end-to-end suites.
 */
export async function startSystem(opts: SystemOptions): Promise<RunningSystem> {
  const adminToken = randomBytes(24).toString('hex');
  const gatewayCount = opts.gateways ?? 1;
  const firstGatewayPort =
    opts.gatewayPort !== undefined && (await portIsFree(opts.gatewayPort)) ? opts.gatewayPort : await findFreePort();
  const { nats, redis } = opts.identities;
  const common = {
    MONGODB_URL: opts.mongoUrl,
    MONGODB_DB: opts.mongoDb ?? 'cds',
    PUBLIC_BASE_URL: `http://localhost:${firstGatewayPort}`,
    ...opts.env,
  };
  const base = { logDir: opts.logDir, onUnexpectedExit: opts.onUnexpectedExit, nodeArgs: opts.nodeArgs ?? [] } as const;
  const envFor = (service: StartServiceOptions['service'], extra: Record<string, string> = {}) => ({
    ...common,
    ...extra,
    ...opts.serviceEnv?.[service],
  });
  const started: ServiceProcess[] = [];
  const timeoutMs = opts.readyTimeoutMs ?? 90_000;
  const numbered = (service: string, i: number, n: number) => (n === 1 ? service : `${service}-${i + 1}`);
  try {
    const admin = await startServiceProcess({
      ...base,
      service: 'accounts',
      env: envFor('accounts', { NATS_URL: nats.admin, ADMIN_TOKEN: adminToken }),
    });
    started.push(admin);
    const adminReady = waitForReady(`${admin.url}/readyz`, { service: admin, timeoutMs }).then(() =>
      opts.onAdminReady?.({ url: admin.url, token: adminToken }),
    );
    // Not left unobserved while the others start (a failure is thrown where it is awaited, below).
    adminReady.catch(() => undefined);
    if (opts.accountsBeside !== true) await adminReady;
    /** `count` replicas of a service that needs only the common environment, started one after another. */
    const replicas = async (service: 'projector' | 'query', count: number): Promise<ServiceProcess[]> => {
      const list: ServiceProcess[] = [];
      for (let i = 0; i < count; i += 1) {
        const proc = await startServiceProcess({
          ...base,
          service,
          name: numbered(service, i, count),
          env: envFor(service, { NATS_URL: nats[service] }),
        });
        list.push(proc);
        started.push(proc);
      }
      return list;
    };
    const queryCount = opts.queries ?? 1;
    const projectors = await replicas('projector', opts.projectors ?? 1);
    const queries = await replicas('query', queryCount);
    const gateways: ServiceProcess[] = [];
    for (let i = 0; i < gatewayCount; i += 1) {
      const gw = await startServiceProcess({
        ...base,
        service: 'gateway',
        name: numbered('gateway', i, gatewayCount),
        ...(i === 0 ? { port: firstGatewayPort } : {}),
        env: envFor('gateway', {
          NATS_URL: nats.gateway,
          REDIS_URL: redis.gateway,
          QUERY_URL: queries[i % queryCount]!.url,
        }),
      });
      gateways.push(gw);
      started.push(gw);
    }
    let dashboard: ServiceProcess | undefined;
    if (opts.dashboard !== undefined) {
      const d = opts.dashboard;
      const port = d.port !== undefined && (await portIsFree(d.port)) ? d.port : await findFreePort();
      dashboard = await startServiceProcess({
        ...base,
        service: 'dashboard',
        port,
        env: {
          ...opts.env,
          MONGODB_URL: opts.mongoUrl,
          MONGODB_DB: d.mongoDb ?? 'cds_dashboard',
          REDIS_URL: redis.dashboard,
          ADMIN_URL: admin.url,
          ADMIN_TOKEN: adminToken,
          // The webhook form checks commodity ids against the query service's catalog.
          QUERY_URL: queries[0]!.url,
          PUBLIC_API_URL: `http://localhost:${firstGatewayPort}/api/v1`,
          PUBLIC_BASE_URL: `http://localhost:${port}/dashboard`,
          SESSION_SECRET: randomBytes(32).toString('hex'),
          COOKIE_SECURE: String(d.cookieSecure ?? false),
          ...(d.smtpUrl !== undefined
            ? { SMTP_URL: d.smtpUrl }
            : { MAIL_DIR: d.mailDir ?? join(REPO_ROOT, '.cds', 'mail') }),
          ...d.env,
          ...opts.serviceEnv?.dashboard,
        },
      });
      started.push(dashboard);
    }
    let notifier: ServiceProcess | undefined;
    let startNotifier: (() => Promise<ServiceProcess>) | undefined;
    if (opts.notifier !== undefined) {
      const o = opts.notifier;
      const port = o.port !== undefined && (await portIsFree(o.port)) ? o.port : await findFreePort();
      const env = {
        ...opts.env,
        NATS_URL: nats.notifier,
        MONGODB_URL: opts.mongoUrl,
        WEBHOOKS_DB: o.webhooksDb ?? 'cds_webhooks',
        PUBLIC_API_ORIGIN: `http://localhost:${firstGatewayPort}`,
        ...(dashboard !== undefined ? { DASHBOARD_URL: `http://localhost:${dashboard.port}/dashboard` } : {}),
        ...(o.smtpUrl !== undefined
          ? { SMTP_URL: o.smtpUrl }
          : { MAIL_DIR: o.mailDir ?? join(REPO_ROOT, '.cds', 'mail') }),
        WEBHOOK_ALLOW_PRIVATE: (o.allowPrivate ?? []).join(','),
        ...(o.extraCaCerts !== undefined ? { NODE_EXTRA_CA_CERTS: o.extraCaCerts } : {}),
        ...o.env,
        ...opts.serviceEnv?.notifier,
      };
      startNotifier = async () => {
        const proc = await startServiceProcess({ ...base, service: 'notifier', port, env });
        started.push(proc);
        return proc;
      };
      if (o.deferred !== true) notifier = await startNotifier();
    }
    await adminReady;
    await Promise.all(
      [...projectors, ...queries, ...gateways, ...(dashboard ? [dashboard] : []), ...(notifier ? [notifier] : [])].map(
        (svc) => waitForReady(`${svc.url}/readyz`, { service: svc, timeoutMs }),
      ),
    );
    const system: RunningSystem = {
      ...(dashboard !== undefined ? { dashboard, dashboardUrl: `http://localhost:${dashboard.port}/dashboard` } : {}),
      ...(startNotifier !== undefined
        ? {
            ...(notifier !== undefined ? { notifier } : {}),
            restartNotifier: async () => {
              const previous = system.notifier;
              if (previous !== undefined && !previous.exited()) await previous.stop();
              const proc = await startNotifier();
              await waitForReady(`${proc.url}/readyz`, { service: proc, timeoutMs });
              system.notifier = proc;
              return proc;
            },
          }
        : {}),
      admin,
      adminToken,
      projector: projectors[0]!,
      query: queries[0]!,
      projectors,
      queries,
      gateways,
      all: () => [...started],
      stop: async () => {
        await Promise.all([...started].reverse().map((s) => s.stop()));
      },
    };
    return system;
  } catch (err) {
    await Promise.all(started.map((s) => s.stop()));
    throw err;
  }
}

async function portIsFree(port: number): Promise<boolean> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}
