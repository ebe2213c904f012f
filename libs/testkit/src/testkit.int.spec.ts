import { readdirSync, readFileSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { urlCredentials } from '@cds/config';
import { connect as natsConnect, type ConnectionOptions } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  getTestInfra,
  isPortOpen,
  probeMongo,
  probeNats,
  probeRedis,
  startInfra,
  startNats,
  startRedis,
  type ServerHandle,
} from './index.ts';

/** A raw nats.js connection with the user of `url` (nats.js ignores credentials in a URL). */
function connect(opts: ConnectionOptions & { servers: string }) {
  const { address, user, password } = urlCredentials(opts.servers);
  return natsConnect({ ...opts, servers: address, ...(user !== undefined ? { user, pass: password ?? '' } : {}) });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('shared infrastructure (globalSetup)', () => {
  it('provides answering servers to specs', async () => {
    const infra = getTestInfra();
    await probeNats(infra.natsUrl);
    await probeRedis(infra.redisUrl);
    await probeMongo(infra.mongoUrl);
    expect(['mongod', 'ferretdb', 'container', 'external']).toContain(infra.mongoFlavor);
  });
});

describe('startInfra', () => {
  it('starts all three servers and leaves nothing behind after stop()', async () => {
    const infra = await startInfra({ env: { ...process.env, NATS_URL: '', REDIS_URL: '', MONGODB_URL: '' } });
    const handles = infra.processes;
    const pids = handles.flatMap((h) => (h.pid === undefined ? [] : [h.pid]));
    try {
      expect(handles.map((h) => h.name).sort()).toEqual(['mongo', 'nats', 'redis']);
      const nc = await connect({ servers: infra.natsUrl });
      await nc.close();
      const mongo = new MongoClient(infra.mongoUrl, { serverSelectionTimeoutMS: 2_000 });
      expect(await mongo.db('admin').command({ ping: 1 })).toMatchObject({ ok: 1 });
      await mongo.close();
    } finally {
      await infra.stop();
    }
    for (const h of handles) {
      expect(await isPortOpen(h.port), `${h.name} port ${h.port} still open`).toBe(false);
      expect(h.pid).toBeUndefined();
    }
    if (infra.sources.nats === 'process') expect(pids).toHaveLength(3);
    expect(pids.filter(isAlive)).toEqual([]);
    await infra.stop(); // idempotent
  });

  it('uses URLs from the environment and starts nothing for them', async () => {
    const shared = getTestInfra();
    const infra = await startInfra({
      env: { ...process.env, NATS_URL: shared.natsUrl, REDIS_URL: shared.redisUrl, MONGODB_URL: shared.mongoUrl },
    });
    expect(infra.processes).toEqual([]);
    expect(infra).toMatchObject({
      natsUrl: shared.natsUrl,
      redisUrl: shared.redisUrl,
      mongoUrl: shared.mongoUrl,
      mongoFlavor: 'external',
      sources: { nats: 'env', redis: 'env', mongo: 'env' },
    });
    await infra.stop();
  });
});

describe('server handles', () => {
  const started: ServerHandle[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });

  it('kill -9 and restart keep the port and the JetStream data', async () => {
    const nats = await startNats();
    started.push(nats);
    const firstPid = nats.pid;
    expect(firstPid).toBeTypeOf('number');
    const healthz = await fetch(`${nats.monitorUrl}/healthz`);
    expect(healthz.ok).toBe(true);

    const { jetstreamManager } = await import('@nats-io/jetstream');
    let nc = await connect({ servers: nats.url });
    await (await jetstreamManager(nc)).streams.add({ name: 'KEEP', subjects: ['keep.>'] });
    await nc.close();

    await nats.kill('SIGKILL');
    expect(nats.pid).toBeUndefined();
    expect(isAlive(firstPid!)).toBe(false);
    expect(await isPortOpen(nats.port)).toBe(false);

    await nats.restart();
    expect(nats.pid).not.toBe(firstPid);
    nc = await connect({ servers: nats.url });
    const info = await (await jetstreamManager(nc)).streams.info('KEEP');
    expect(info.config.subjects).toEqual(['keep.>']);
    await nc.close();
  });

  it('starts JetStream syncing every write to disk before acknowledging it (sync_interval: always)', async () => {
    const nats = await startNats();
    started.push(nats);
    const varz = (await (await fetch(`${nats.monitorUrl}/varz`)).json()) as {
      jetstream?: { config?: { sync_always?: boolean } };
    };
    expect(varz.jetstream?.config?.sync_always).toBe(true);
  });

  it('SIGSTOP resolves once every thread of the server is stopped, SIGCONT once it runs again', async () => {
    const nats = await startNats(); // a multi-threaded (Go) server, like the MongoDB API server
    started.push(nats);
    const pid = nats.pid!;
    const states = () =>
      readdirSync(`/proc/${pid}/task`).map((tid) => {
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        return stat.charAt(stat.lastIndexOf(')') + 2);
      });
    expect(states().length).toBeGreaterThan(1);
    await nats.kill('SIGSTOP');
    expect(states().every((s) => s === 'T')).toBe(true);
    await nats.kill('SIGCONT');
    expect(states().some((s) => s === 'T')).toBe(false);
    const nc = await connect({ servers: nats.url, timeout: 5_000 });
    await nc.close();
  });

  it('restart() of a running server stops it first', async () => {
    const redis = await startRedis();
    started.push(redis);
    const before = redis.pid!;
    await redis.restart();
    expect(isAlive(before)).toBe(false);
    await probeRedis(redis.url);
  });

  it('names the binary and shows its output when it fails to start', async () => {
    await expect(startRedis({ binary: '/bin/false' })).rejects.toThrow(
      /redis-server exited with code 1 before it was ready/,
    );
    await expect(startNats({ binary: '/nonexistent/nats-server' })).rejects.toThrow(/nats-server was not found/);
  });
});
