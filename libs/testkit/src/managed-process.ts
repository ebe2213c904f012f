import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitUntil } from './wait.ts';

/** How to run one server binary and how to tell it is ready to serve. */
export interface ManagedProcessOptions {
  /** Short label used in error messages, e.g. `nats-server`. */
  name: string;
  command: string;
  args: readonly string[];
  /** Resolves when the server answers its own protocol; rejects (or throws) while it does not yet. */
  probe: () => Promise<void>;
  /** How long `start()` waits for `probe` to succeed. */
  readyTimeoutMs?: number;
  /** How long `stop()` waits after SIGTERM before sending SIGKILL. */
  stopTimeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Sees every line the child writes (stdout and stderr), beyond the last ones `output()` keeps. */
  onLine?: (line: string) => void;
}

/** A child process we started, restartable with the same command line. */
export interface ManagedProcess {
  readonly name: string;
  /** The pid of the running child, or undefined while it is not running. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** The last lines the child wrote to stdout and stderr. */
  output(): string;
  /** Spawns the child and waits until `probe` succeeds; throws a descriptive error otherwise. */
  start(): Promise<void>;
  /** SIGTERM, then SIGKILL after `stopTimeoutMs`; resolves once the child has exited. */
  stop(): Promise<void>;
  /**
   * Sends `signal` (default SIGKILL). For SIGKILL it resolves once the child is gone; other
   * signals may not end the process (SIGSTOP, SIGHUP), so it resolves right after sending.
   */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Resolves when the current child exits (immediately when none is running). */
  exited(): Promise<void>;
}

const OUTPUT_LINES = 40;

/** Thrown when a server does not come up; carries its last output lines for diagnosis. */
export class ServerStartError extends Error {
  override readonly name = 'ServerStartError';
}

/** Creates a handle over a server binary; nothing runs until `start()`. */
export function createManagedProcess(opts: ManagedProcessOptions): ManagedProcess {
  const readyTimeoutMs = opts.readyTimeoutMs ?? 30_000;
  const stopTimeoutMs = opts.stopTimeoutMs ?? 10_000;
  const lines: string[] = [];
  let child: ChildProcess | undefined;
  let exitPromise: Promise<void> = Promise.resolve();
  let exitInfo: string | undefined;

  const remember = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      opts.onLine?.(line);
      lines.push(line);
      if (lines.length > OUTPUT_LINES) lines.shift();
    }
  };

  // The children must not outlive this process, even when it dies without running teardown
  // (a crash, Ctrl-C). Each live child registers its own hooks and removes them on exit, so no
  // module-level registry is needed.
  const killOnExit = (): void => {
    child?.kill('SIGKILL');
  };
  const killOnSignal = (signal: NodeJS.Signals): void => {
    child?.kill('SIGKILL');
    detachHooks();
    // Adding a signal listener disables Node's default "exit on signal"; restore it when we
    // were the last listener, otherwise leave the decision to whoever else listens (vitest).
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const attachHooks = (): void => {
    process.on('exit', killOnExit);
    process.on('SIGINT', killOnSignal);
    process.on('SIGTERM', killOnSignal);
    process.on('SIGHUP', killOnSignal);
  };
  const detachHooks = (): void => {
    process.off('exit', killOnExit);
    process.off('SIGINT', killOnSignal);
    process.off('SIGTERM', killOnSignal);
    process.off('SIGHUP', killOnSignal);
  };

  const describe = (): string =>
    `${opts.command} ${opts.args.join(' ')}` +
    (lines.length > 0 ? `\n--- last output of ${opts.name} ---\n${lines.join('\n')}` : '');

  const spawnChild = (): Promise<void> =>
    new Promise((resolve, reject) => {
      lines.length = 0;
      exitInfo = undefined;
      const proc = spawn(opts.command, [...opts.args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: opts.env ?? process.env,
      });
      proc.stdout?.on('data', remember);
      proc.stderr?.on('data', remember);
      exitPromise = new Promise((onExit) => {
        proc.once('close', (code, signal) => {
          exitInfo = signal ? `killed by ${signal}` : `exited with code ${code}`;
          if (child === proc) child = undefined;
          detachHooks();
          onExit();
        });
      });
      proc.once('error', (err) => {
        if (child === proc) child = undefined;
        detachHooks();
        reject(new ServerStartError(`could not run ${opts.name} (${opts.command}): ${err.message}`, { cause: err }));
      });
      proc.once('spawn', () => {
        child = proc;
        attachHooks();
        resolve();
      });
    });

  const waitReady = (): Promise<void> =>
    waitUntil(opts.name, opts.probe, readyTimeoutMs, {
      giveUp: () =>
        child === undefined
          ? new ServerStartError(`${opts.name} ${exitInfo ?? 'exited'} before it was ready: ${describe()}`)
          : undefined,
      timeoutError: (reason, lastError) =>
        new ServerStartError(
          `${opts.name} did not answer within ${readyTimeoutMs} ms (last probe error: ${reason}): ${describe()}`,
          { cause: lastError },
        ),
    });

  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const proc = child;
    if (proc === undefined) return;
    proc.kill(signal);
    if (signal === 'SIGKILL') await exitPromise;
    // kill(2) only queues a stop or a continue: on a loaded machine a thread of the server may still
    // answer a request sent right after. Fault tests need "frozen" to mean frozen, so wait for the
    // kernel to report the new state (bounded; /proc is Linux-only, elsewhere this returns at once).
    if ((signal === 'SIGSTOP' || signal === 'SIGCONT') && proc.pid !== undefined) {
      await waitForProcessState(proc.pid, (state) => (signal === 'SIGSTOP') === (state === 'T'));
    }
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (proc === undefined) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), stopTimeoutMs);
    try {
      await exitPromise;
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    name: opts.name,
    get pid() {
      return child?.pid;
    },
    get running() {
      return child !== undefined;
    },
    output: () => lines.join('\n'),
    start: async () => {
      if (child !== undefined) throw new Error(`${opts.name} is already running (pid ${child.pid})`);
      await spawnChild();
      try {
        await waitReady();
      } catch (err) {
        await kill('SIGKILL');
        throw err;
      }
    },
    stop,
    kill,
    exited: () => exitPromise,
  };
}

/** The one-letter state (R, S, D, T, Z, ...) of every thread of a process from /proc, or undefined when unreadable. */
function threadStates(pid: number): string[] | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const states: string[] = [];
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // The command name (field 2) is in parentheses and may hold spaces: the state follows its last ')'.
      states.push(stat.charAt(stat.lastIndexOf(')') + 2));
    } catch {
      // That thread ended between the listing and the read (a starting Node.js process ends some):
      // the process is gone only when none is left.
    }
  }
  return states.length === 0 ? undefined : states;
}

/**
 * Waits until every thread's state satisfies `ok`, at most `timeoutMs`. Resolves true when they all
 * do, false at the deadline or when the process is gone (or /proc unreadable: not Linux); callers
 * that only need "frozen means frozen" ignore the answer and let their assertions decide. A group
 * stop reaches each thread of a multi-threaded process (Go, Node.js) on its own.
 */
export async function waitForProcessState(
  pid: number,
  ok: (state: string) => boolean,
  timeoutMs = 2_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = threadStates(pid);
    if (states === undefined) return false;
    if (states.every(ok)) return true;
    if (Date.now() > deadline) return false;
    await sleep(5);
  }
}
