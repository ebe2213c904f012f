export {
  createRedis,
  isRedisUnavailable,
  topologyOptions,
  type HostPort,
  type RedisClient,
  type RedisClientOptions,
} from './client.ts';
export { defineScript, type ScriptArg, type ScriptCall, type ScriptDefinition } from './scripts.ts';
export type { Redis } from 'ioredis';
