import { natsServerAuth, redisServerAuth } from './identities.ts';
import { NATS_JETSTREAM_CONFIG } from './nats-config.ts';
import { findFreePorts } from './ports.ts';
import { probeMongo, probeNats, probeRedis } from './probes.ts';
import type { MongoHandle, NatsHandle, RedisHandle, ServerHandle, StartServerOptions } from './types.ts';
import { waitUntil } from './wait.ts';

const HOST = '127.0.0.1';

/**
 * True when a Docker-compatible engine answers within `timeoutMs`. testcontainers is imported
 * lazily: it is only needed on machines with an engine, and loading it costs a few hundred ms. It is
 * a development dependency, absent from `npm start`'s production install: false then.
 */
export async function isContainerRuntimeAvailable(timeoutMs = 3_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('container runtime probe timed out')), timeoutMs);
      timer.unref();
    });
    await Promise.race([getContainerRuntimeClient(), timeout]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

interface ContainerSpec {
  name: ServerHandle['name'];
  image: string;
  command?: string[];
  /** Files copied into the container before it starts (path → content). */
  files?: Record<string, string>;
  containerPorts: number[];
  url: (hostPorts: number[]) => string;
  probe: (hostPorts: number[]) => Promise<void>;
}

type ContainerServer = ServerHandle & { readonly ports: number[] };

// Host ports are bound explicitly (not left to Docker) so that `restart()` keeps the same URL,
// which fault tests rely on.
async function startContainer(spec: ContainerSpec, opts: StartServerOptions): Promise<ContainerServer> {
  const { GenericContainer, getContainerRuntimeClient } = await import('testcontainers');
  const readyTimeoutMs = opts.readyTimeoutMs ?? 120_000;
  const hostPorts = await findFreePorts(spec.containerPorts.length, HOST);
  let builder = new GenericContainer(opts.image ?? spec.image)
    .withExposedPorts(...spec.containerPorts.map((container, i) => ({ container, host: hostPorts[i] ?? 0 })))
    .withStartupTimeout(readyTimeoutMs);
  if (spec.command !== undefined) builder = builder.withCommand(spec.command);
  const files = Object.entries(spec.files ?? {});
  if (files.length > 0) {
    builder = builder.withCopyContentToContainer(files.map(([target, content]) => ({ content, target })));
  }
  const container = await builder.start();
  const waitReady = (): Promise<void> =>
    waitUntil(`${spec.name} container ${container.getId().slice(0, 12)}`, () => spec.probe(hostPorts), readyTimeoutMs);
  try {
    await waitReady();
  } catch (err) {
    await container.stop().catch(() => undefined);
    throw err;
  }
  let logs = '';
  return {
    name: spec.name,
    source: 'container',
    url: spec.url(hostPorts),
    host: HOST,
    port: hostPorts[0] ?? 0,
    ports: hostPorts,
    pid: undefined,
    dataDir: undefined,
    output: () => logs,
    stop: async () => {
      const stream = await container.logs({ tail: 40 }).catch(() => undefined);
      stream?.on('data', (chunk: Buffer) => (logs += chunk.toString('utf8')));
      await container.stop();
    },
    kill: async (signal = 'SIGKILL') => {
      const client = await getContainerRuntimeClient();
      await client.container.getById(container.getId()).kill({ signal });
    },
    restart: async () => {
      await container.restart();
      await waitReady();
    },
  };
}

/**
 * Starts `nats:2.15.2 -js` (the version scripts/bootstrap.sh builds) with testcontainers, syncing every
 * JetStream write (nats-config.ts), with the users of identities.ts (`url`: the system user's).
 */
export async function startContainerNats(opts: StartServerOptions = {}): Promise<NatsHandle> {
  const auth = natsServerAuth();
  const server = await startContainer(
    {
      name: 'nats',
      image: 'nats:2.15.2',
      files: { '/etc/nats/cds.conf': NATS_JETSTREAM_CONFIG + auth.config },
      command: ['-c', '/etc/nats/cds.conf', '-js', '-m', '8222'],
      containerPorts: [4222, 8222],
      url: ([port]) => auth.url(`nats://${HOST}:${port}`),
      probe: ([port]) => probeNats(auth.url(`nats://${HOST}:${port}`)),
    },
    opts,
  );
  return Object.assign(server, {
    name: 'nats' as const,
    monitorUrl: `http://${HOST}:${server.ports[1]}`,
    identities: auth.identities(`nats://${HOST}:${server.port}`),
    // The container's log is not followed: its violations go unseen.
    violations: () => [],
  });
}

/** Starts `redis:7` with persistence off and the ACL users of identities.ts (`url`: the default user's). */
export async function startContainerRedis(opts: StartServerOptions = {}): Promise<RedisHandle> {
  const auth = redisServerAuth();
  const server = await startContainer(
    {
      name: 'redis',
      image: 'redis:7',
      command: ['redis-server', '--save', '', '--appendonly', 'no', ...auth.args],
      containerPorts: [6379],
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

/** Starts `mongo:7` (a real mongod, single node). */
export async function startContainerMongo(opts: StartServerOptions = {}): Promise<MongoHandle> {
  const server = await startContainer(
    {
      name: 'mongo',
      image: 'mongo:7',
      containerPorts: [27017],
      url: ([port]) => `mongodb://${HOST}:${port}/`,
      probe: ([port]) => probeMongo(`mongodb://${HOST}:${port}/`),
    },
    opts,
  );
  return Object.assign(server, { name: 'mongo' as const, flavor: 'container' as const });
}
