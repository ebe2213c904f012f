// `npm run test:all` (what `npm test` runs after the bootstrap): every check and test project, with
// independent ones side by side where two cores allow, each step timed against its budget.
//
//   1. the static checks (typecheck, lint, OpenAPI and clients up to date, Go), two at a time, each
//      one's output printed whole when it ends;
//   2. the int project beside the unit project (the unit output follows the int one's): the int
//      specs mostly wait on their servers (189 s of CPU over int's 164 s on 2 cores), so the unit
//      specs (73 s alone) fill the other core rather than running after them (side by side on a
//      shared machine: unit 130 s, int 205 s, so unit's budget is 160 s);
//   3. the e2e project (one file at a time) beside the soak project (5 minutes of a steady 40
//      requests a second, asserting memory, not timing): the soak's output follows the e2e one's.
//
// The summary ends with every failure of the test projects (the test, its error's first lines), so
// a log cut to its tail, as CI keeps it, still says what failed.
//
// A step that fails stops the run after its phase. A step over its budget fails the run too, so a
// project that grows (a new source's specs, a slow new file) shows at once, not after the suite
// has crept past 20 minutes on 2 cores (1,147 s on such a machine: checks 82, unit 74, int 148,
// e2e 843 beside the soak's 313). Each budget is its step's time there and at least a fifth more,
// for a slower runner; a change that needs more says so here, in review. The e2e budget was 900 s:
// a fresh-clone run of 2026-12-06 took e2e 699 s (the fixed waits cut, start-offline checking the bulk
// files written before the histories load, the conversion e2e added), and the whole suite 963 s; the
// supply and demand history had taken it to 906-968 s before. Three fresh-clone runs later that day,
// on the same machine and with a few seconds of specs added, took unit 127-154 s, int 202-230 s
// and (two of them) e2e 785-858 s, the whole suite 1,187 s in the slowest: the machine's own spread,
// which left the slowest run 4-6 % under the budgets. So unit's budget is 175 s, int's 260 s and e2e's 940 s,
// each above the slowest of those runs by a tenth or so. Every step has a deadline (three times its
// budget).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Failure, FileTiming } from '../test/support/file-timings-reporter.ts';

interface Step {
  name: string;
  /** The command it runs (npm puts the workspace's tools on PATH for `npm run test:all`). */
  command: string[];
  /** Seconds this step may take on a 2-core machine. */
  budget: number;
}

const ROOT = join(import.meta.dirname, '..');
const TIMINGS = join(ROOT, 'test', 'artifacts', 'timings');

const npmRun = (script: string) => ['npm', 'run', '--silent', script];
/** `npm run lint` is ESLint then Prettier: here they are two steps, so the two lanes end together. */
const CHECKS: Step[] = [
  { name: 'eslint', command: ['eslint', '.'], budget: 210 },
  { name: 'typecheck', command: npmRun('typecheck'), budget: 120 },
  { name: 'prettier', command: ['prettier', '--check', '.'], budget: 60 },
  { name: 'openapi', command: npmRun('openapi:check'), budget: 60 },
  { name: 'clients', command: npmRun('clients:check'), budget: 60 },
  { name: 'go', command: npmRun('test:go'), budget: 120 },
];
const UNIT: Step = { name: 'unit', command: npmRun('test:unit'), budget: 175 };
const INT: Step = { name: 'int', command: npmRun('test:int'), budget: 260 };
const E2E: Step = { name: 'e2e', command: npmRun('test:e2e'), budget: 940 };
const SOAK: Step = { name: 'soak', command: npmRun('test:soak'), budget: 480 };
const shown = (step: Step) => step.command.filter((w) => w !== '--silent').join(' ');

interface Outcome {
  step: Step;
  code: number;
  seconds: number;
  /** The output, when it was captured rather than shown as it came. */
  output?: string;
}

/** Runs one step; `capture` keeps its output for later instead of showing it live. */
function run(step: Step, capture: boolean): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(step.command[0]!, step.command.slice(1), {
      cwd: ROOT,
      stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      detached: true,
    });
    const chunks: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => chunks.push(b));
    child.stderr?.on('data', (b: Buffer) => chunks.push(b));
    const deadline = setTimeout(() => {
      chunks.push(Buffer.from(`\n${step.name}: stopped after ${step.budget * 3} s (three times its budget)\n`));
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, step.budget * 3_000);
    const done = (code: number) => {
      clearTimeout(deadline);
      const seconds = (performance.now() - started) / 1000;
      resolve({ step, code, seconds, ...(capture ? { output: Buffer.concat(chunks).toString('utf8') } : {}) });
    };
    child.on('error', (err) => {
      chunks.push(Buffer.from(`${step.name}: ${err.message}\n`));
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? (signal === null ? 1 : 128)));
  });
}

/** Runs steps `width` at a time, printing each one's captured output as it ends. */
async function side(steps: Step[], width: number): Promise<Outcome[]> {
  const queue = [...steps];
  const out: Outcome[] = [];
  const lane = async () => {
    for (let step = queue.shift(); step !== undefined; step = queue.shift()) {
      const o = await run(step, true);
      process.stdout.write(
        `\n── ${step.name} (${shown(step)}): ${o.code === 0 ? 'passed' : `FAILED (exit ${o.code})`} in ${o.seconds.toFixed(1)} s\n${o.output}`,
      );
      out.push(o);
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return out;
}

const heading = (text: string) => process.stdout.write(`\n════ ${text}\n`);
const outcomes: Outcome[] = [];
const failed = () => outcomes.some((o) => o.code !== 0);

mkdirSync(TIMINGS, { recursive: true });
// An earlier run's figures and failures must not stand in for a step that ends before writing its own.
for (const step of [UNIT, INT, E2E, SOAK]) rmSync(join(TIMINGS, `${step.name}.json`), { force: true });
const started = performance.now();
heading(`checks, two at a time: ${CHECKS.map((s) => s.name).join(', ')}`);
outcomes.push(...(await side(CHECKS, 2)));
if (!failed()) {
  heading('int, with unit beside it (its output follows)');
  const [int, unit] = await Promise.all([run(INT, false), run(UNIT, true)]);
  process.stdout.write(`\n── unit (${shown(UNIT)}), ran beside int:\n${unit.output}`);
  outcomes.push(unit, int);
}
if (!failed()) {
  heading('e2e, with the soak beside it (its output follows)');
  const [e2e, soak] = await Promise.all([run(E2E, false), run(SOAK, true)]);
  process.stdout.write(`\n── soak (${shown(SOAK)}), ran beside e2e:\n${soak.output}`);
  outcomes.push(e2e, soak);
}
const total = (performance.now() - started) / 1000;

// The slowest files of every project that ran, and every failure, from the reporter's figures.
const slowest: FileTiming[] = [];
const failures: Failure[] = [];
for (const step of [UNIT, INT, E2E, SOAK]) {
  if (!outcomes.some((o) => o.step === step)) continue;
  try {
    const report = JSON.parse(readFileSync(join(TIMINGS, `${step.name}.json`), 'utf8')) as {
      files: FileTiming[];
      failures?: Failure[];
    };
    slowest.push(...report.files);
    failures.push(...(report.failures ?? []).map((f) => ({ project: step.name, ...f })));
  } catch {
    // that run ended before its reporter wrote anything: its own output says why
  }
}
slowest.sort((a, b) => b.ms - a.ms);

const lines = ['', '════ summary (seconds; the target is the whole suite under 20 minutes on 2 cores)'];
let over = false;
for (const o of outcomes) {
  const late = o.seconds > o.step.budget;
  over ||= late;
  const verdict = o.code !== 0 ? `FAILED (exit ${o.code})` : late ? 'OVER BUDGET' : 'passed';
  lines.push(
    `  ${o.step.name.padEnd(10)} ${o.seconds.toFixed(1).padStart(7)}  budget ${String(o.step.budget).padStart(4)}  ${verdict}`,
  );
}
lines.push(`  ${'all'.padEnd(10)} ${total.toFixed(1).padStart(7)}  (the steps side by side count once)`);
if (slowest.length > 0) {
  lines.push('', '  slowest test files (seconds, and of them outside the tests: set-up, import, beforeAll/afterAll):');
  for (const f of slowest.slice(0, 12))
    lines.push(
      `  ${(f.ms / 1000).toFixed(1).padStart(7)} ${(f.outsideMs / 1000).toFixed(1).padStart(7)}  ${f.project.padEnd(5)} ${f.file}`,
    );
}
// Last, so that a log cut to its tail (as CI shows it) still says what failed and why.
const SHOWN_FAILURES = 10;
if (failures.length > 0) {
  lines.push('', `  failures (${failures.length}; each in full in its project's output above):`);
  for (const f of failures.slice(0, SHOWN_FAILURES)) {
    const where = f.file === undefined ? 'outside every test file' : [f.file, f.test].filter(Boolean).join(' › ');
    lines.push(`  ✗ ${f.project ?? '?'}  ${where}`, ...f.error.split('\n').map((l) => `      ${l}`));
  }
  if (failures.length > SHOWN_FAILURES) lines.push(`  … and ${failures.length - SHOWN_FAILURES} more above`);
}
process.stdout.write(`${lines.join('\n')}\n`);
writeFileSync(
  join(TIMINGS, 'summary.json'),
  `${JSON.stringify({ totalSeconds: total, steps: outcomes.map((o) => ({ name: o.step.name, seconds: o.seconds, budget: o.step.budget, code: o.code })) }, null, 1)}\n`,
);
process.exitCode = failed() || over ? 1 : 0;
