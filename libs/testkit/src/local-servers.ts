import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveMongoBinary, requireBinary, type MongoBinary } from './binaries.ts';
import { natsServerAuth, redisServerAuth } from './identities.ts';
import { createManagedProcess, ServerStartError, type ManagedProcess } from './managed-process.ts';
import { NATS_JETSTREAM_CONFIG } from './nats-config.ts';
import { findFreePorts } from './ports.ts';
import { probeMongo, probeNats, probeRedis } from './probes.ts';
import type { MongoFlavor, MongoHandle, NatsHandle, RedisHandle, ServerHandle, StartServerOptions } from './types.ts';

const HOST = '127.0.0.1';
const PORT_ATTEMPTS = 3;
const BOOTSTRAP_HINT = 'run `bash scripts/bootstrap.sh`, or set the matching *_URL variable to an existing server';

interface LocalSpec {
  name: ServerHandle['name'];
  label: string;
  command: string;
  portCount: number;
  args: (ports: number[], dataDir: string) => string[];
  /** Files written beside the data folder before the first start (name → content), e.g. a config. */
  files?: Record<string, string>;
  url: (ports: number[]) => string;
  probe: (ports: number[]) => Promise<void>;
  onLine?: (line: string) => void;
}

type LocalServer = ServerHandle & { readonly ports: number[] };

// Starts a binary on fresh ports in its own data folder. Picking a free port and binding it are
// two steps, so another process may win the race: on "address in use" we retry with new ports.
async function startLocal(spec: LocalSpec, opts: StartServerOptions): Promise<LocalServer> {
  const ownsDir = opts.dir === undefined;
  const baseDir = opts.dir ?? (await mkdtemp(join(tmpdir(), `cds-${spec.name}-`)));
  const dataDir = join(baseDir, spec.name);
  await mkdir(dataDir, { recursive: true });
  for (const [name, content] of Object.entries(spec.files ?? {})) {
    await writeFile(join(baseDir, name), content, { mode: 0o600 });
  }

  let proc: ManagedProcess | undefined;
  let ports: number[] = [];
  for (let attempt = 1; proc === undefined; attempt++) {
    ports = await findFreePorts(spec.portCount, HOST);
    const candidate = createManagedProcess({
      name: spec.label,
      command: spec.command,
      args: spec.args(ports, dataDir),
      probe: () => spec.probe(ports),
      readyTimeoutMs: opts.readyTimeoutMs ?? 30_000,
      ...(spec.onLine !== undefined ? { onLine: spec.onLine } : {}),
    });
    try {
      await candidate.start();
      proc = candidate;
    } catch (err) {
      const portTaken = /address already in use|EADDRINUSE|bind:/i.test(candidate.output());
      if (!(err instanceof ServerStartError && portTaken && attempt < PORT_ATTEMPTS)) {
        if (ownsDir) await rm(baseDir, { recursive: true, force: true });
        throw err;
      }
    }
  }
  const started = proc;
  const port = ports[0];
  if (port === undefined) throw new Error('unreachable: no port allocated');

  return {
    name: spec.name,
    source: 'process',
    url: spec.url(ports),
    host: HOST,
    port,
    ports,
    get pid() {
      return started.pid;
    },
    dataDir,
    output: () => started.output(),
    stop: async () => {
      await started.stop();
      if (ownsDir) await rm(baseDir, { recursive: true, force: true });
    },
    kill: (signal) => started.kill(signal),
    restart: async () => {
      await started.stop();
      await started.start();
    },
  };
}

/**
 * Starts `nats-server -js` on a free port (plus an HTTP monitor port) with its own store folder, and
 * a config file of users (identities.ts, fresh passwords) that syncs every JetStream write
 * (nats-config.ts; needs nats-server 2.10+, scripts/bootstrap.sh builds it): `url` is the system user's.
 */
export async function startLocalNats(opts: StartServerOptions = {}): Promise<NatsHandle> {
  const command = requireBinary(opts.binary ?? 'nats-server', BOOTSTRAP_HINT, opts.env);
  const auth = natsServerAuth();
  const violations: string[] = [];
  const server = await startLocal(
    {
      name: 'nats',
      // nats-server logs each refused publish or subscription with its user:
      // `... - "$G/user:gateway" - Publish Violation - Subject "cds.keys.key.k1"`.
      onLine: (line) => {
        if (/ Violation - /.test(line)) violations.push(line);
      },
      label: 'nats-server',
      command,
      portCount: 2,
      files: { 'nats.conf': NATS_JETSTREAM_CONFIG + auth.config },
      args: ([port, monitor], dataDir) => [
        '-c',
        join(dataDir, '..', 'nats.conf'),
        '-js',
        '-a',
        HOST,
        '-p',
        `${port}`,
        '-m',
        `${monitor}`,
        '-sd',
        dataDir,
      ],
      url: ([port]) => auth.url(`nats://${HOST}:${port}`),
      probe: ([port]) => probeNats(auth.url(`nats://${HOST}:${port}`)),
    },
    opts,
  );
  return Object.assign(server, {
    name: 'nats' as const,
    monitorUrl: `http://${HOST}:${server.ports[1]}`,
    identities: auth.identities(`nats://${HOST}:${server.port}`),
    violations: () => [...violations],
  });
}

/** A test `redis-server` on `port` of HOST, in the foreground, its files in `dir`, persistence off. */
export function redisServerArgs(port: number, dir: string): string[] {
  return ['--port', `${port}`, '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no'];
}

/**
 * Starts `redis-server` on a free port with persistence off (tests need speed, not durability) and
 * its ACL users (identities.ts, fresh passwords): `url` is the default user's, with its password.
 */
export async function startLocalRedis(opts: StartServerOptions = {}): Promise<RedisHandle> {
  const command = requireBinary(opts.binary ?? 'redis-server', BOOTSTRAP_HINT, opts.env);
  const auth = redisServerAuth();
  const server = await startLocal(
    {
      name: 'redis',
      label: 'redis-server',
      command,
      portCount: 1,
      args: ([port], dataDir) => [...redisServerArgs(port!, dataDir), ...auth.args],
      url: ([port]) => auth.url(`redis://${HOST}:${port}`),
      probe: ([port]) => probeRedis(auth.url(`redis://${HOST}:${port}`)),
    },
    opts,
  );
  return Object.assign(server, {
    name: 'redis' as const,
    identities: auth.identities(`redis://${HOST}:${server.port}`),
  });
}

/**
 * Starts a MongoDB API server on a free port: `mongod` when installed, else the FerretDB build
 * from tools/ferretdb (SQLite backend), which lacks transactions and change streams.
 */
export async function startLocalMongo(opts: StartServerOptions = {}): Promise<MongoHandle> {
  const env = opts.env ?? process.env;
  const binary: MongoBinary | undefined =
    opts.binary !== undefined
      ? { flavor: opts.binary.includes('ferretdb') ? 'ferretdb' : 'mongod', path: opts.binary }
      : resolveMongoBinary(env);
  if (binary === undefined) {
    throw new Error(`neither mongod nor cds-ferretdb (in $CDS_BIN_DIR or on PATH) was found; ${BOOTSTRAP_HINT}`);
  }
  const server = await startLocal(
    {
      name: 'mongo',
      label: binary.flavor === 'mongod' ? 'mongod' : 'cds-ferretdb',
      command: binary.path,
      portCount: 1,
      args: ([port], dataDir) =>
        binary.flavor === 'mongod'
          ? ['--dbpath', dataDir, '--bind_ip', HOST, '--port', `${port}`, '--quiet']
          : ['-listen', `${HOST}:${port}`, '-data', dataDir, '-log-level', 'warn'],
      url: ([port]) => `mongodb://${HOST}:${port}/`,
      probe: ([port]) => probeMongo(`mongodb://${HOST}:${port}/`),
    },
    opts,
  );
  const flavor: MongoFlavor = binary.flavor;
  return Object.assign(server, { name: 'mongo' as const, flavor });
}
