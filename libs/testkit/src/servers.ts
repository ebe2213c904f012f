import { startContainerMongo, startContainerNats, startContainerRedis } from './container-servers.ts';
import { startLocalMongo, startLocalNats, startLocalRedis } from './local-servers.ts';
import type { MongoHandle, NatsHandle, RedisHandle, StartServerOptions } from './types.ts';

/**
 * Starts a private NATS server with JetStream (a local `nats-server` by default, or a container
 * with `source: 'container'`). Fault tests use this to own a server they can kill and restart.
 */
export function startNats(opts: StartServerOptions = {}): Promise<NatsHandle> {
  return opts.source === 'container' ? startContainerNats(opts) : startLocalNats(opts);
}

/** Starts a private Redis server (local `redis-server` by default). */
export function startRedis(opts: StartServerOptions = {}): Promise<RedisHandle> {
  return opts.source === 'container' ? startContainerRedis(opts) : startLocalRedis(opts);
}

/** Starts a private MongoDB API server (local mongod, else FerretDB; or a mongo:7 container). */
export function startMongo(opts: StartServerOptions = {}): Promise<MongoHandle> {
  return opts.source === 'container' ? startContainerMongo(opts) : startLocalMongo(opts);
}
