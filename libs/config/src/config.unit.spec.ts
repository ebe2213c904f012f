import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  boolVar,
  hostPortListVar,
  infraVars,
  keepTrying,
  loadConfig,
  portVar,
  processVars,
  redisTopologyVars,
  urlCredentials,
  urlVar,
} from './index.ts';

const schema = z.object({ ...infraVars, PORT: portVar.default(8080), DEBUG: boolVar.default(false) });

describe('processVars', () => {
  const processSchema = z.object(processVars);
  it('listens on every interface and closes within 25 s by default', () => {
    expect(loadConfig(processSchema, {})).toEqual({ HOST: '0.0.0.0', SHUTDOWN_TIMEOUT_MS: 25_000 });
    expect(loadConfig(processSchema, { HOST: '127.0.0.1', SHUTDOWN_TIMEOUT_MS: '5000' })).toEqual({
      HOST: '127.0.0.1',
      SHUTDOWN_TIMEOUT_MS: 5_000,
    });
  });
  it('refuses an empty address and a deadline that is not a positive whole number', () => {
    expect(() => loadConfig(processSchema, { HOST: '', SHUTDOWN_TIMEOUT_MS: '0' })).toThrow(
      /HOST[\s\S]*SHUTDOWN_TIMEOUT_MS|SHUTDOWN_TIMEOUT_MS[\s\S]*HOST/,
    );
  });
});

describe('loadConfig', () => {
  it('applies defaults and freezes the result', () => {
    const cfg = loadConfig(schema, {});
    expect(cfg).toMatchObject({ NATS_URL: 'nats://127.0.0.1:4222', PORT: 8080, DEBUG: false, LOG_LEVEL: 'info' });
    expect(Object.isFrozen(cfg)).toBe(true);
  });
  it('parses given values', () => {
    expect(loadConfig(schema, { PORT: '9000', DEBUG: 'true', REDIS_URL: 'redis://r:6380' })).toMatchObject({
      PORT: 9000,
      DEBUG: true,
      REDIS_URL: 'redis://r:6380',
    });
  });
  it('names every bad variable', () => {
    expect(() => loadConfig(schema, { PORT: '70000', NATS_URL: 'http://x', DEBUG: 'yes' })).toThrow(ConfigError);
    try {
      loadConfig(schema, { PORT: '70000', NATS_URL: 'http://x' });
    } catch (e) {
      expect((e as Error).message).toMatch(/PORT/);
      expect((e as Error).message).toMatch(/NATS_URL: must be a URL with scheme nats: or tls:/);
    }
  });
  it('urlVar rejects non-URLs', () => {
    expect(urlVar(['mongodb:']).safeParse('not a url').success).toBe(false);
  });
  it('urlCredentials: the user and password of an address, decoded, and the address without them', () => {
    expect(urlCredentials('redis://gateway:p%2Fw@redis:6379')).toEqual({
      address: 'redis://redis:6379',
      user: 'gateway',
      password: 'p/w',
    });
    expect(urlCredentials('mongodb://cds-query:pw@m0:27017/?replicaSet=rs0')).toMatchObject({
      address: 'mongodb://m0:27017/?replicaSet=rs0',
      user: 'cds-query',
    });
    expect(urlCredentials('nats://127.0.0.1:4222')).toEqual({ address: 'nats://127.0.0.1:4222' });
  });
  it('hostPortListVar: host:port entries, blanks dropped, anything else named', () => {
    expect(hostPortListVar.parse(undefined)).toEqual([]);
    expect(hostPortListVar.parse(' 127.0.0.1:8443, ,[::1]:9000,receiver.test:443 ')).toEqual([
      '127.0.0.1:8443',
      '[::1]:9000',
      'receiver.test:443',
    ]);
    for (const bad of ['127.0.0.1', 'https://a.test:443', '::1:80', 'a.test:port']) {
      expect(hostPortListVar.safeParse(bad).success, bad).toBe(false);
    }
  });
  it('NATS_URL: one server or the comma-separated list of a cluster, each a nats:// or tls:// URL', () => {
    const nats = z.object({ NATS_URL: infraVars.NATS_URL });
    const list = 'nats://u:p@n0:4222,nats://u:p@n1:4222, nats://u:p@n2:4222';
    expect(loadConfig(nats, { NATS_URL: list }).NATS_URL).toBe(list);
    expect(loadConfig(nats, {}).NATS_URL).toBe('nats://127.0.0.1:4222');
    for (const bad of ['nats://n0:4222,http://n1:4222', ',', 'n0:4222']) {
      expect(() => loadConfig(nats, { NATS_URL: bad }), bad).toThrow(/NATS_URL/);
    }
  });
  it('redisTopologyVars: none by default; host:port lists become the sentinels (with the primary name) or the cluster nodes', () => {
    const topology = z.object(redisTopologyVars);
    expect(loadConfig(topology, {})).toEqual({
      REDIS_SENTINELS: [],
      REDIS_SENTINEL_NAME: 'cds-redis',
      REDIS_CLUSTER_NODES: [],
    });
    expect(
      loadConfig(topology, { REDIS_SENTINELS: 's0.redis:26379, [::1]:26380', REDIS_SENTINEL_NAME: 'mymaster' }),
    ).toEqual({
      REDIS_SENTINELS: [
        { host: 's0.redis', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      REDIS_SENTINEL_NAME: 'mymaster',
      REDIS_CLUSTER_NODES: [],
    });
    expect(loadConfig(topology, { REDIS_CLUSTER_NODES: 'redis-0:6379,redis-1:6379' }).REDIS_CLUSTER_NODES).toEqual([
      { host: 'redis-0', port: 6379 },
      { host: 'redis-1', port: 6379 },
    ]);
    expect(() => loadConfig(topology, { REDIS_SENTINELS: 's0.redis' })).toThrow(/REDIS_SENTINELS/);
    expect(() => loadConfig(topology, { REDIS_CLUSTER_NODES: 'redis-0' })).toThrow(/REDIS_CLUSTER_NODES/);
    expect(() => loadConfig(topology, { REDIS_SENTINEL_NAME: '' })).toThrow(/REDIS_SENTINEL_NAME/);
  });
  it('keepTrying: tries again after a failure, logging it, until it succeeds; stops when aborted', async () => {
    const warnings: object[] = [];
    const logger = { warn: (obj: object) => void warnings.push(obj) };
    let calls = 0;
    const value = await keepTrying(
      'not yet',
      () => (++calls < 2 ? Promise.reject(new Error('down')) : Promise.resolve('up')),
      { signal: new AbortController().signal, logger, context: { part: 'x' } },
    );
    expect(value).toBe('up');
    expect(calls).toBe(2);
    expect(warnings).toEqual([expect.objectContaining({ part: 'x', attempt: 1 })]);
    // Aborted while waiting to try again: undefined at once, no further attempt.
    const stop = new AbortController();
    let tries = 0;
    const pending = keepTrying('never', () => (tries++, Promise.reject(new Error('down'))), {
      signal: stop.signal,
      logger,
    });
    await new Promise((r) => setTimeout(r, 50));
    stop.abort();
    expect(await pending).toBeUndefined();
    expect(tries).toBe(1);
  });
});
