import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildLoggerOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type ChildLoggerFactory = NonNullable<FastifyServerOptions['childLoggerFactory']>;

type LogArgs = Parameters<FastifyBaseLogger['info']>;

/**
 * A request's logger that becomes a real child logger on its first use. Fastify makes a child
 * logger for every request (to bind its request id), and pino's `child()` serializes and redacts
 * the bindings at once: a few percent of a busy gateway's CPU, for loggers that almost never log.
 */
class LazyChildLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #opts: ChildLoggerOptions;
  #real: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, opts: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#opts = opts;
  }

  /** True once a real child exists (for tests). */
  get materialized(): boolean {
    return this.#real !== undefined;
  }

  #get(): FastifyBaseLogger {
    return (this.#real ??= this.#parent.child(this.#bindings, this.#opts));
  }

  get level(): string {
    return this.#real?.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#get().level = level;
  }

  fatal(...args: LogArgs): void {
    this.#get().fatal(...args);
  }
  error(...args: LogArgs): void {
    this.#get().error(...args);
  }
  warn(...args: LogArgs): void {
    this.#get().warn(...args);
  }
  info(...args: LogArgs): void {
    this.#get().info(...args);
  }
  debug(...args: LogArgs): void {
    this.#get().debug(...args);
  }
  trace(...args: LogArgs): void {
    this.#get().trace(...args);
  }
  silent(...args: LogArgs): void {
    this.#get().silent(...args);
  }

  child(bindings: Bindings, opts?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#get().child(bindings, opts);
  }
}

/** Fastify's `childLoggerFactory`: per-request loggers made on first use (see LazyChildLogger). */
export const lazyChildLoggerFactory: ChildLoggerFactory = (logger, bindings, opts) =>
  new LazyChildLogger(logger, bindings, opts);
