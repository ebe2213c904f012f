// The bulk files job (`npm run projector -- bulk`) as the e2e suites run it: the CLI itself, against
// the suite's MongoDB API server, with a deadline.
import { spawn } from 'node:child_process';
import { REPO_ROOT, type Infra } from '@cds/testkit';

export function runBulkJob(infra: Infra, timeoutMs = 60_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', 'services/projector/src/cli.ts', 'bulk'],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          NATS_URL: infra.identities.nats.projector,
          MONGODB_URL: infra.mongoUrl,
          MONGODB_DB: 'cds',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}
