// The independent contract tester (issue 16, part 2): Schemathesis, a third-party property-based
// tester (PyPI, installed into the project cache by scripts/bootstrap.sh --test), runs every one
// of its checks against the OpenAPI document the gateway serves and the system behind it (demo
// data, a key of the Enterprise plan). A finding fails this spec and is printed as Schemathesis
// reports it, with a curl command to reproduce it.
//
// Configured only for the rules the service applies on purpose, each stated in the OpenAPI document:
//   - positive_data_acceptance runs as test/support/schemathesis_hooks.py's wrapper: start_date
//     after end_date, a frequency finer than the series' native one, an as_of malformed, in the
//     future or before the data's first publication, and include=revisions of computed points,
//     are 400 on purpose;
//   - negative_data_rejection also takes 414 (test/support/schemathesis.toml): a request target
//     over 4,096 characters is refused before its parameters are read;
//   - GET /events is excluded (--exclude-path): its 200 is a server-sent event stream that never
//     ends by itself, so every positive case would run into --request-timeout; it is checked by
//     test/events.e2e.spec.ts (statuses, headers, error bodies, events) instead;
//   - the gateway's failed-authentication throttle (429 after 30 requests a minute without a valid
//     key from one address) is raised for this run: ignored_auth sends its requests without the
//     key, all from 127.0.0.1, and expects 401 every time.
//
// Budget: CONTRACT_MAX_EXAMPLES (default 40) test cases per operation and phase, two runs of
// ~10 s each on 2 cores: one with a fixed seed (CONTRACT_SEED), one with the seed of the day (it
// explores further every day; its seed is printed, so a finding reproduces with CONTRACT_SEED).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, findOnPath } from '@cds/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBulkJob } from './support/bulk.ts';
import { eventually, startE2E, type E2E } from './support/harness.ts';

const MAX_EXAMPLES = Number(process.env.CONTRACT_MAX_EXAMPLES ?? 40);
const FIXED_SEED = Number(process.env.CONTRACT_SEED ?? 16);
const RUN_DEADLINE_MS = 100_000;
const SUPPORT = join(REPO_ROOT, 'test', 'support');

let e2e: E2E;
let workDir: string;

/** The schemathesis launcher bootstrap installs (its bin folder is on PATH under scripts/run.sh). */
function schemathesisBinary(): string {
  const cache = process.env.CDS_BIN_DIR;
  const found =
    (cache === undefined ? undefined : findOnPath('schemathesis', { PATH: cache })) ?? findOnPath('schemathesis');
  if (found === undefined) {
    throw new Error(
      'schemathesis is not installed: run `bash scripts/bootstrap.sh --test`, then the tests through `bash scripts/run.sh`',
    );
  }
  return found;
}

interface StRun {
  code: number | null;
  output: string;
  junit: string;
}

/** One Schemathesis run with every check, bounded by a deadline; its output and JUnit report. */
function schemathesis(key: string, seed: number, name: string): Promise<StRun> {
  const junitPath = join(workDir, `${name}.junit.xml`);
  const args = [
    '--config-file',
    join(SUPPORT, 'schemathesis.toml'),
    'run',
    `${e2e.gatewayUrl()}/api/v1/openapi.json`,
    '--checks',
    'all',
    // Replaced by the hook's positive_data_acceptance_but_documented_rules (see the header).
    '--exclude-checks',
    'positive_data_acceptance',
    // A stream that does not end (see the header).
    '--exclude-path',
    '/events',
    '--header',
    `Authorization: Bearer ${key}`,
    '--max-examples',
    String(MAX_EXAMPLES),
    '--seed',
    String(seed),
    '--continue-on-failure',
    '--request-timeout',
    '10',
    '--generation-database',
    'none',
    '--no-color',
    '--report',
    'junit',
    '--report-junit-path',
    junitPath,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(schemathesisBinary(), args, {
      cwd: workDir,
      env: { ...process.env, SCHEMATHESIS_HOOKS: join(SUPPORT, 'schemathesis_hooks.py'), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_DEADLINE_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      let junit = '';
      try {
        junit = readFileSync(junitPath, 'utf8');
      } catch {
        // No report: the run did not get that far; the output says why.
      }
      resolve({ code, output, junit });
    });
  });
}

/** The part of the output worth reading when a run fails: the findings and the summary. */
function findings(output: string): string {
  const start = output.search(/^=+ (FAILURES|ERRORS) =+$/m);
  return start < 0 ? output : output.slice(start);
}

/** Checks one run: exit 0, every operation tested, examples generated and all passed. */
function expectClean(run: StRun, seed: number): void {
  const head = `schemathesis (seed ${seed}) reports:\n`;
  const last = /^=+ (.+ in [\d.]+s) =+$/m.exec(run.output);
  const cases = /\d+ generated, .*$/m.exec(run.output);
  console.log(`schemathesis seed ${seed}: ${cases?.[0] ?? '?'}; ${last?.[1] ?? run.output.slice(-300)}`);
  expect(run.code, head + findings(run.output)).toBe(0);
  expect(run.output, head + run.output).toMatch(/Operations:\s+11 selected \/ 12 total/);
  const summary = /(\d+) generated, (\d+) passed/.exec(run.output);
  expect(summary, head + run.output).not.toBeNull();
  const [generated, passed] = [Number(summary![1]), Number(summary![2])];
  // GET /status takes no parameters, so only the five commodity operations yield MAX_EXAMPLES each.
  expect(generated).toBeGreaterThanOrEqual(5 * MAX_EXAMPLES);
  expect(passed).toBe(generated);
  // The JUnit report names the eleven operations (the five commodity ones, /status, /datasets,
  // /datasets/feed, /releases, /bulk and /bulk/{file}), none failed.
  expect(run.junit.match(/<testcase /g) ?? []).toHaveLength(11);
  expect(run.junit).not.toMatch(/<failure|<error/);
}

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'cds-contract-'));
  e2e = await startE2E({ gateways: 1, serviceEnv: { gateway: { FAILED_AUTH_MAX: '1000000' } } });
  const run = await e2e.ingest(['backfill', '--demo', '--years', '1']);
  expect(run.code, run.stderr).toBe(0);
  const probeKey = (await e2e.account('enterprise')).key;
  await eventually('demo data projected', async () => {
    const series = await e2e.get('/api/v1/commodities/CRUDE_OIL_WTI/series?type=price&limit=1', {
      key: probeKey,
      validate: false,
    });
    const cot = await e2e.get('/api/v1/commodities/GOLD/cot?per_page=1', { key: probeKey, validate: false });
    return series.status === 200 && series.json.data.length > 0 && cot.status === 200 && cot.json.data.length > 0;
  });
  // Bulk files to download, so GET /bulk/{file} is tested on real files (206, 304, 416 included).
  const bulk = await runBulkJob(e2e.infra);
  expect(bulk.code, bulk.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await e2e?.stop();
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
}, 60_000);

describe('the OpenAPI document against the running system (Schemathesis, all checks)', () => {
  // A key per run: each run sends ~600 requests, within the Enterprise plan's 1,000 a minute.
  it('finds nothing with the fixed seed', async () => {
    const { key } = await e2e.account('enterprise');
    expectClean(await schemathesis(key, FIXED_SEED, 'fixed'), FIXED_SEED);
  }, 120_000);

  it('finds nothing with the seed of the day', async () => {
    const seed = Number(new Date().toISOString().slice(0, 10).replaceAll('-', ''));
    const { key } = await e2e.account('enterprise');
    expectClean(await schemathesis(key, seed, 'daily'), seed);
  }, 120_000);
});
