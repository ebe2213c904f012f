// The ingest CLI as a child process a fault suite can stop, kill and resume (test/faults.e2e.spec.ts,
// test/cluster.e2e.spec.ts): with `stopAfter` it stops itself (SIGSTOP) once that many events are
// stored anew, with `STOPPED_RUN_WINDOW` publishes in flight and the rest of its events not yet sent
// (INGEST_STOP_AFTER and PUBLISH_WINDOW, docs/ingest.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { REPO_ROOT, waitForProcessState } from '@cds/testkit';

/** Publishes in flight at once for a run that stops itself: a few in flight, most still to send. */
export const STOPPED_RUN_WINDOW = 16;

export interface IngestChild {
  child: ChildProcess;
  result: Promise<{ code: number | null; out: string }>;
  /** What it printed so far. */
  output(): string;
}

export interface IngestChildOptions {
  /** NATS address with the user to publish as. */
  natsUrl: string;
  /** Stop itself after this many events stored anew (see above). */
  stopAfter?: number | undefined;
  /** More environment (STREAM_REPLICAS on a cluster...). */
  env?: Record<string, string>;
}

/** Starts `npm run ingest -- <args>` (without the local system's addresses); its output is kept. */
export function spawnIngest(args: readonly string[], opts: IngestChildOptions): IngestChild {
  const child = spawn(
    process.execPath,
    ['--disable-warning=ExperimentalWarning', 'services/ingest/src/cli.ts', ...args, '--nats-url', opts.natsUrl],
    {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        CDS_LOCAL_ENV: '/nonexistent',
        ...opts.env,
        ...(opts.stopAfter !== undefined
          ? { INGEST_STOP_AFTER: String(opts.stopAfter), PUBLISH_WINDOW: String(STOPPED_RUN_WINDOW) }
          : {}),
      },
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const result = new Promise<{ code: number | null; out: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out })),
  );
  return { child, result, output: () => out };
}

/**
 * Waits until a `spawnIngest(…, { stopAfter })` child has stopped itself mid-publish. No poll can
 * miss it: the process waits, stopped, however long the test takes to look. Fails with the child's
 * output when it exited instead (it never stored that many events anew).
 */
export async function stoppedMidPublish(ingest: IngestChild, timeoutMs = 120_000): Promise<void> {
  const exited = ingest.result.then((r) => `exited with ${r.code} before stopping itself:\n${r.out}`);
  const stopped = waitForProcessState(ingest.child.pid!, (state) => state === 'T', timeoutMs).then((ok) =>
    ok ? undefined : `not stopped within ${timeoutMs} ms; it printed:\n${ingest.output()}`,
  );
  const failure = await Promise.race([stopped, exited]);
  if (failure !== undefined) throw new Error(`the ingest was to stop itself mid-publish but ${failure}`);
}
