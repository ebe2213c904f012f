import { readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile, chmod, mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort, findFreePorts, isPortOpen, resolveInfraPlan, resolveMongoBinary, uniqueName } from './index.ts';

describe('findFreePort', () => {
  it('returns a port that can be bound right away', async () => {
    const port = await findFreePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    expect(await isPortOpen(port)).toBe(true);
    await new Promise((resolve) => server.close(resolve));
    expect(await isPortOpen(port)).toBe(false);
  });

  it('returns distinct ports', async () => {
    const ports = await findFreePorts(5);
    expect(new Set(ports).size).toBe(5);
  });

  it('never hands out a port twice in a while, though it is still free (its server may not listen yet)', async () => {
    // 300 asks over ~22,700 candidates: without the memory two would share a port about 86 % of the time
    const ports: number[] = [];
    for (let i = 0; i < 300; i += 1) ports.push(await findFreePort());
    expect(new Set(ports).size).toBe(300);
  });

  it('hands out ports below the kernel ephemeral range, which outgoing connections never take', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0]);
    const ports = await findFreePorts(20);
    expect(ports.filter((p) => p < 10_000 || p >= low)).toEqual([]);
  });
});

describe('resolveInfraPlan', () => {
  it('starts everything when no URL is set', () => {
    expect(resolveInfraPlan({})).toEqual({
      mode: 'auto',
      nats: { source: 'start' },
      redis: { source: 'start' },
      mongo: { source: 'start' },
    });
  });

  it('honours each URL independently', () => {
    const plan = resolveInfraPlan({ NATS_URL: 'nats://n:4222', MONGODB_URL: ' mongodb://m:27017/ ', REDIS_URL: '' });
    expect(plan.nats).toEqual({ source: 'env', url: 'nats://n:4222' });
    expect(plan.redis).toEqual({ source: 'start' });
    expect(plan.mongo).toEqual({ source: 'env', url: 'mongodb://m:27017/' });
  });

  it('accepts the secure and srv schemes', () => {
    const plan = resolveInfraPlan({
      NATS_URL: 'tls://n:4222',
      REDIS_URL: 'rediss://r:6380',
      MONGODB_URL: 'mongodb+srv://c.example',
    });
    expect([plan.nats.source, plan.redis.source, plan.mongo.source]).toEqual(['env', 'env', 'env']);
  });

  it('rejects a URL with the wrong scheme, naming the variable', () => {
    expect(() => resolveInfraPlan({ REDIS_URL: 'http://r:6379' })).toThrow(/REDIS_URL must start with redis:\/\//);
    expect(() => resolveInfraPlan({ MONGODB_URL: 'not a url' })).toThrow(/MONGODB_URL is not a valid URL/);
  });

  it('reads and validates CDS_TESTKIT_MODE', () => {
    expect(resolveInfraPlan({ CDS_TESTKIT_MODE: 'local' }).mode).toBe('local');
    expect(() => resolveInfraPlan({ CDS_TESTKIT_MODE: 'docker' })).toThrow(/CDS_TESTKIT_MODE/);
  });
});

describe('uniqueName', () => {
  it('is unique and safe for database, stream and subject names', () => {
    const a = uniqueName('Ingest.Events-1');
    const b = uniqueName('Ingest.Events-1');
    expect(a).not.toBe(b);
    expect(a).toMatch(/^ingest_events_1_[a-z0-9]+_[0-9a-f]{10}$/);
    expect(uniqueName('x'.repeat(100)).length).toBeLessThanOrEqual(48);
  });
});

describe('resolveMongoBinary', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cds-testkit-unit-'));
    await mkdir(join(dir, 'bin'));
    await mkdir(join(dir, 'path'));
    const ferret = join(dir, 'ferret-build');
    await writeFile(ferret, '#!/bin/sh\n');
    await chmod(ferret, 0o755);
    await symlink(ferret, join(dir, 'bin', 'cds-ferretdb'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('prefers mongod on PATH, else the FerretDB build in CDS_BIN_DIR', async () => {
    expect(resolveMongoBinary({ PATH: join(dir, 'path'), CDS_BIN_DIR: join(dir, 'bin') })).toEqual({
      flavor: 'ferretdb',
      path: join(dir, 'bin', 'cds-ferretdb'),
    });
    const mongod = join(dir, 'path', 'mongod');
    await writeFile(mongod, '#!/bin/sh\n');
    await chmod(mongod, 0o755);
    expect(resolveMongoBinary({ PATH: join(dir, 'path'), CDS_BIN_DIR: join(dir, 'bin') })).toEqual({
      flavor: 'mongod',
      path: mongod,
    });
    expect(resolveMongoBinary({ PATH: join(dir, 'nowhere') })).toBeUndefined();
  });
});
