import type { DestinationStream } from 'pino';
import { createLogger, type Logger } from './logger.ts';
import { flushTelemetry } from './tracing.ts';

/** The settings runService reads from every service's configuration (libs/config `processVars`). */
export interface ServiceSettings {
  LOG_LEVEL: string;
  SHUTDOWN_TIMEOUT_MS: number;
}

/** What a service's start gets from runService. */
export interface RunningService<C> {
  config: Readonly<C>;
  logger: Logger;
  /** Aborted once the process is asked to stop: a start that waits for a dependency passes it on. */
  signal: AbortSignal;
  /**
   * Adds a step to the close sequence. Steps run one at a time, the last added first (what was
   * opened last closes first), at SIGTERM/SIGINT or after a failed start; a failing step is logged
   * and the others still run.
   */
  onClose: (what: string, close: () => unknown) => void;
  /**
   * A failure the process cannot recover from once running (a consumer gone for good): logged, and
   * the process exits with 1 at once so the orchestrator restarts it.
   */
  fail: (err: unknown, msg: string, context?: object) => void;
}

/** Where SIGTERM and SIGINT come from (the process; tests pass an emitter). */
export interface SignalSource {
  on(event: 'SIGTERM' | 'SIGINT', listener: (signal: NodeJS.Signals) => void): unknown;
}

export interface RunServiceOptions<C extends ServiceSettings> {
  /** Logged as `service`. */
  name: string;
  /** Reads the configuration, e.g. `() => loadConfig(Schema, process.env)`; a throw is a failed start. */
  config: () => Readonly<C>;
  /** Connects, builds and listens, registering what to close as it opens it. */
  start: (service: RunningService<C>) => Promise<void> | void;
  /** Ends the process; `process.exit` unless a test injects it. */
  exit?: (code: number) => void;
  signals?: SignalSource;
  /** Log destination (stdout by default; tests read it). */
  logDestination?: DestinationStream;
}

/**
 * Runs one service process: reads its configuration, creates its logger, installs the SIGTERM and
 * SIGINT handlers once, then starts it. At the first signal the registered steps close in turn
 * within SHUTDOWN_TIMEOUT_MS and the process exits with 0; a failed step or a passed deadline exits
 * with 1, as does a failed start (after closing what it had opened). A second signal while closing
 * is ignored: `npm start` forwards Ctrl-C's SIGINT and then sends SIGTERM.
 */
export async function runService<C extends ServiceSettings>(opts: RunServiceOptions<C>): Promise<void> {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let config: Readonly<C>;
  try {
    config = opts.config();
  } catch (err) {
    // No logger yet: its level is part of the configuration.
    console.error(`${opts.name} failed to start: ${err instanceof Error ? err.message : String(err)}`);
    exit(1);
    return;
  }
  const logger = createLogger({ name: opts.name, level: config.LOG_LEVEL, destination: opts.logDestination });
  const steps: { what: string; close: () => unknown }[] = [];
  const stopping = new AbortController();
  let exited = false;
  const finish = (code: number) => {
    if (exited) return;
    exited = true;
    exit(code);
  };

  let closing: string | undefined;
  const closeAll = async (): Promise<boolean> => {
    let ok = true;
    // A step added while closing (a start still under way) is closed too.
    for (let step = steps.pop(); step !== undefined; step = steps.pop()) {
      closing = step.what;
      try {
        await step.close();
      } catch (err) {
        ok = false;
        logger.error({ err, closing: step.what }, 'close failed');
      }
    }
    closing = undefined;
    await flushTelemetry().catch(() => undefined);
    return ok;
  };

  const shutdown = (reason: string, code: 0 | 1) => {
    if (stopping.signal.aborted) {
      logger.info({ reason }, 'already shutting down');
      return;
    }
    stopping.abort();
    logger.info({ reason, timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'shutting down');
    const deadline = setTimeout(() => {
      logger.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS, closing }, 'shutdown deadline passed');
      finish(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    void closeAll().then((ok) => {
      clearTimeout(deadline);
      finish(ok ? code : 1);
    });
  };
  const signals = opts.signals ?? process;
  signals.on('SIGTERM', (signal) => shutdown(signal, 0));
  signals.on('SIGINT', (signal) => shutdown(signal, 0));

  const service: RunningService<C> = {
    config,
    logger,
    signal: stopping.signal,
    onClose: (what, close) => void steps.push({ what, close }),
    fail: (err, msg, context) => {
      logger.fatal({ err, ...context }, msg);
      finish(1);
    },
  };
  try {
    await opts.start(service);
  } catch (err) {
    if (stopping.signal.aborted) {
      // A signal came first; the close under way decides the exit code.
      logger.warn({ err }, 'start interrupted by the shutdown');
      return;
    }
    logger.fatal({ err }, `${opts.name} failed to start`);
    shutdown('failed start', 1);
  }
}
