import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startNats } from './servers.ts';
import type { NatsHandle } from './types.ts';

/** How a script run by runNodeScript ended and what it printed. */
export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunScriptOptions {
  /** The child's whole environment (nothing of this process's is passed on unless given here). */
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Deadline: past it the child is killed and the promise rejects with what it printed. Default 120 s. */
  timeoutMs?: number;
}

/**
 * Runs a TypeScript entry point in a child `node` (as `npm run <script>` runs it), collects its
 * stdout and stderr, and resolves when it exits: the way specs drive a CLI end to end.
 */
export function runNodeScript(script: string, args: readonly string[], options: RunScriptOptions): Promise<ScriptRun> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', script, ...args], {
      env: options.env,
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} ${args.join(' ')} did not exit within ${timeoutMs} ms; stderr:\n${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A private NATS server and a temporary folder for specs that run a CLI (and its service) as children. */
export interface CliSandbox {
  nats: NatsHandle;
  dir: string;
  /**
   * runNodeScript with only PATH and `env` in the child's environment, and `.cds/local.json`
   * pointed at a file that does not exist, so nothing of the developer's `npm start` leaks in.
   */
  run(script: string, args: readonly string[], env: Record<string, string>): Promise<ScriptRun>;
  /** Stops the server and removes the folder. */
  stop(): Promise<void>;
}

/** Starts a CliSandbox: its own NATS server (the streams have fixed subjects) and a folder named `prefix…`. */
export async function startCliSandbox(prefix: string): Promise<CliSandbox> {
  const nats = await startNats();
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return {
    nats,
    dir,
    run: (script, args, env) =>
      runNodeScript(script, args, {
        env: { PATH: process.env.PATH ?? '', CDS_LOCAL_ENV: join(dir, 'no-local.json'), ...env },
      }),
    async stop() {
      await nats.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
