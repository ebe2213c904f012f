import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';

/** Thrown when the environment does not satisfy a service's config schema; lists every problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Parses an environment (normally `process.env`, passed in by main.ts) with a zod schema and
 * returns the frozen result. Fails with one message naming every bad or missing variable.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined>,
): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return Object.freeze(result.data);
}

/** A URL variable with a scheme check, e.g. `url(['nats:'])`. */
export function urlVar(protocols: readonly string[]) {
  return z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    `must be a URL with scheme ${protocols.join(' or ')}`,
  );
}

/** A comma-separated list of URLs, each with one of the schemes (blanks between commas dropped). */
export function urlListVar(protocols: readonly string[]) {
  const one = urlVar(protocols);
  return z.string().refine(
    (v) => {
      const parts = v
        .split(',')
        .map((p) => p.trim())
        .filter((p) => p !== '');
      return parts.length > 0 && parts.every((p) => one.safeParse(p).success);
    },
    `must be a URL with scheme ${protocols.join(' or ')} (or a comma-separated list of them)`,
  );
}

/** A TCP port variable (0 lets the OS choose). */
export const portVar = z.coerce.number().int().min(0).max(65_535);

/** A positive whole number of milliseconds (or other count) given as a string. */
export const positiveIntVar = z.coerce.number().int().positive();

/** `true`/`false`/`1`/`0` as a boolean. */
export const boolVar = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** The infrastructure addresses every service shares. */
export const infraVars = {
  /** One server or a comma-separated list of a cluster's servers (libs/messaging `connectNats`). */
  NATS_URL: urlListVar(['nats:', 'tls:']).default('nats://127.0.0.1:4222'),
  MONGODB_URL: urlVar(['mongodb:', 'mongodb+srv:']).default('mongodb://127.0.0.1:27017'),
  REDIS_URL: urlVar(['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

/** How a service process listens and stops (libs/telemetry `runService`); every service has them. */
export const processVars = {
  /**
   * Listen address. The default, every interface, is what a container needs (the chart leaves it);
   * `npm start` and the tests set 127.0.0.1 to keep the processes on the machine.
   */
  HOST: z.string().min(1).default('0.0.0.0'),
  /**
   * Deadline of the graceful close after SIGTERM or SIGINT; past it the process exits with 1. Keep
   * it below the pod's terminationGracePeriodSeconds (30 s in the chart).
   */
  SHUTDOWN_TIMEOUT_MS: positiveIntVar.default(25_000),
};

/**
 * The credentials an infrastructure address carries (`nats://gateway:pw@nats:4222`,
 * `redis://gateway:pw@redis:6379`), percent-decoded, and the address without them (for clients
 * that take them apart, like nats.js, and for logs). NATS_URL, REDIS_URL and MONGODB_URL are the one
 * place a service's credentials come from (docs/operations.md "Credentials").
 */
export function urlCredentials(url: string): { address: string; user?: string; password?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { address: url };
  }
  if (parsed.username === '' && parsed.password === '') return { address: url };
  const user = decodeURIComponent(parsed.username);
  const password = decodeURIComponent(parsed.password);
  parsed.username = '';
  parsed.password = '';
  return { address: parsed.toString(), user, password };
}

/**
 * A comma-separated list of `host:port` (an IPv6 host in brackets), blanks dropped; empty by
 * default. WEBHOOK_ALLOW_PRIVATE of the dashboard and the notifier.
 */
export const hostPortListVar = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  )
  .pipe(z.array(z.string().regex(/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'each entry must be host:port')));

const hostPorts = hostPortListVar.transform((list) =>
  list.map((entry) => {
    const at = entry.lastIndexOf(':');
    return { host: entry.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(entry.slice(at + 1)) };
  }),
);

/**
 * Where Redis is, beyond REDIS_URL (the services that use Redis). Through Sentinel: REDIS_SENTINELS
 * lists the sentinels (`host:port,host:port`) and REDIS_SENTINEL_NAME the primary they monitor. As a
 * Redis Cluster: REDIS_CLUSTER_NODES lists some of its nodes. Either way REDIS_URL then gives only
 * the user, password, db and scheme; unset, REDIS_URL is the server itself. Both set is refused at
 * startup (libs/redis createRedis).
 */
export const redisTopologyVars = {
  REDIS_SENTINELS: hostPorts,
  REDIS_SENTINEL_NAME: z.string().min(1).default('cds-redis'),
  /** The sentinels' own password, when they have one (`requirepass` on the sentinels). */
  REDIS_SENTINEL_PASSWORD: z.string().min(1).optional(),
  REDIS_CLUSTER_NODES: hostPorts,
};

/** Outgoing mail, as the dashboard and the notifier take it (libs/mail `createMailer`). */
export const mailVars = {
  /** smtp:// or smtps:// with credentials; unset writes mails as files under MAIL_DIR. */
  SMTP_URL: urlVar(['smtp:', 'smtps:']).optional(),
  MAIL_DIR: z.string().min(1).default('.cds/mail'),
  MAIL_FROM: z.string().min(3).default('Commodity Data Service <no-reply@localhost>'),
  MAIL_TIMEOUT_MS: positiveIntVar.default(10_000),
};

/**
 * A service's start against a dependency that may not be there yet (a stream another service
 * creates, a database still starting): `attempt` again after 0.5 s, 1 s, 1.5 s ... (at most 10 s
 * apart), each failure logged as a warning with `what`, until it succeeds (its value) or `signal`
 * aborts (undefined: the process is shutting down).
 */
export async function keepTrying<T>(
  what: string,
  attempt: () => Promise<T>,
  opts: { signal: AbortSignal; logger: { warn(obj: object, msg: string): void }; context?: object },
): Promise<T | undefined> {
  for (let n = 1; !opts.signal.aborted; n++) {
    try {
      return await attempt();
    } catch (err) {
      opts.logger.warn({ err, ...opts.context, attempt: n }, `${what}; retrying`);
      try {
        await sleep(Math.min(10_000, 500 * n), undefined, { signal: opts.signal });
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

// The command-line kit the CLIs share (ingest, accounts) and the addresses `npm start` leaves behind.
export { parseCommandLine, readCommand, UsageError } from './cli.ts';
export { LOCAL_ENV_PATH, LocalEnv, readLocalEnv, resolveAddresses, type Addresses } from './local-env.ts';
