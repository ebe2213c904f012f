import type { RedisClient } from './client.ts';

export interface ScriptDefinition {
  /** Name of the command added to the client; must not clash with a Redis command. */
  name: string;
  lua: string;
  numberOfKeys: number;
}

export type ScriptArg = string | number;

/** Calls a Lua script: `keys` become KEYS, `args` become ARGV; resolves to the script's reply. */
export type ScriptCall<TResult> = (keys: readonly string[], args: readonly ScriptArg[]) => Promise<TResult>;

type CommandHost = Record<string, (...args: ScriptArg[]) => Promise<unknown>>;

/**
 * Registers a Lua script on the client with ioredis `defineCommand` and returns a typed caller.
 * ioredis sends EVALSHA and, when Redis answers NOSCRIPT (a restarted server, SCRIPT FLUSH),
 * resends the script with EVAL, so the caller never sees the script cache. The script runs
 * atomically: no other command interleaves with it. `TResult` is the caller's claim about the
 * reply shape (integers come back as numbers, arrays as arrays).
 */
export function defineScript<TResult>(redis: RedisClient, def: ScriptDefinition): ScriptCall<TResult> {
  if (typeof (redis as unknown as CommandHost)[def.name] === 'function') {
    throw new Error(`cannot define Redis script ${def.name}: the client already has a command of that name`);
  }
  redis.defineCommand(def.name, { lua: def.lua, numberOfKeys: def.numberOfKeys });
  const command = (redis as unknown as CommandHost)[def.name];
  if (command === undefined) throw new Error(`ioredis did not define the command ${def.name}`);
  return async (keys, args) => {
    if (keys.length !== def.numberOfKeys) {
      throw new Error(`Redis script ${def.name} takes ${def.numberOfKeys} keys, got ${keys.length}`);
    }
    return (await command.call(redis, ...keys, ...args)) as TResult;
  };
}
