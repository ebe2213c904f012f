// A vitest reporter that prints, at the end of a run, the time each test file took (its set-up,
// import and every test and hook), slowest first, and of that the time outside its tests (import
// and the beforeAll/afterAll hooks: for an e2e file, mostly starting and stopping its system), with
// each project's totals and the run's wall time, and writes the same figures to
// test/artifacts/timings/<projects>.json for scripts/test-all.ts, which compares each project with
// its budget. The same file holds each failure (the test, or the file for an error outside its tests,
// or none for an error after the run) with the first lines of its error: test-all prints them again
// at the very end, where a CI log cut to its tail still shows why the run failed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, SerializedError, TestModule, Vitest } from 'vitest/node';

export interface FileTiming {
  file: string;
  project: string;
  ms: number;
  /** Of `ms`, the time outside the tests: set-up, import and the file's beforeAll/afterAll hooks. */
  outsideMs: number;
  state: string;
}

export interface Failure {
  /** The test file, or undefined for an error vitest caught outside every file. */
  file?: string;
  project?: string;
  /** The test's full name, or undefined for an error outside the file's tests. */
  test?: string;
  /** The error's first lines (its message and the top of its stack). */
  error: string;
}

const ROOT = join(import.meta.dirname, '..', '..');
/** Lines of each error kept: enough for the message, an assertion's diff head and the failing frame. */
const ERROR_LINES = 12;

/** A stack frame that says nothing of the project's code: vitest's own, Node.js internals. */
const FOREIGN_FRAME = /node_modules\/|\(node:|at node:|<anonymous>/;

/**
 * An error's message, the frames of the project's code in its stack, and the head of its diff (an
 * assertion's expected and received), as plain lines (no colours): at most ERROR_LINES of them.
 */
export function errorHead(err: SerializedError): string {
  const stack = err.stack ?? err.message;
  const text = [
    err.name && !stack.startsWith(err.name) ? `${err.name}: ${err.message}` : '',
    stack,
    typeof err.diff === 'string' ? err.diff : '',
  ]
    .filter((t) => t !== '')
    .join('\n');
  const lines = text
    // eslint-disable-next-line no-control-regex -- colour codes from a diff or a child's output
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((l) => !(l.trimStart().startsWith('at ') && FOREIGN_FRAME.test(l)));
  return lines.slice(0, ERROR_LINES).join('\n') + (lines.length > ERROR_LINES ? '\n…' : '');
}

/** Every failure of a run: failed tests, errors outside a file's tests, and errors after the run. */
export function failuresOf(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): Failure[] {
  const out: Failure[] = [];
  for (const m of modules) {
    const file = relative(ROOT, m.moduleId);
    const project = m.project.name;
    for (const err of m.errors()) out.push({ file, project, error: errorHead(err) });
    for (const t of m.children.allTests()) {
      const result = t.result();
      if (result.state !== 'failed') continue;
      for (const err of result.errors) out.push({ file, project, test: t.fullName, error: errorHead(err) });
    }
  }
  for (const err of unhandled) out.push({ error: errorHead(err) });
  return out;
}

export default class FileTimingsReporter implements Reporter {
  private started = performance.now();
  /** The projects this run was asked for (`--project`), known before any file runs. */
  private projects: string[] = [];

  onInit(vitest: Vitest): void {
    this.projects = vitest.projects.map((p) => p.name).sort();
  }

  onTestRunStart(): void {
    this.started = performance.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    const wallMs = performance.now() - this.started;
    const failures = failuresOf(modules, unhandled);
    const files: FileTiming[] = modules.map((m) => {
      const d = m.diagnostic();
      const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
      let testsMs = 0;
      for (const t of m.children.allTests()) testsMs += t.diagnostic()?.duration ?? 0;
      return {
        file: relative(ROOT, m.moduleId),
        project: m.project.name,
        ms,
        outsideMs: Math.max(0, ms - testsMs),
        state: m.state(),
      };
    });
    if (files.length === 0 && failures.length === 0) return;
    files.sort((a, b) => b.ms - a.ms);
    const projects = files.length > 0 ? [...new Set(files.map((f) => f.project))].sort() : this.projects;
    const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(7);
    const lines = [
      `\ntime per test file (${files.length} files; run's wall time ${seconds(wallMs).trim()} s), and of it outside the tests (set-up, import, beforeAll/afterAll)`,
    ];
    for (const project of projects) {
      const own = files.filter((f) => f.project === project);
      const total = own.reduce((s, f) => s + f.ms, 0);
      const outside = own.reduce((s, f) => s + f.outsideMs, 0);
      lines.push(
        `  ${project}: ${own.length} files, ${seconds(total).trim()} s in all, ${seconds(outside).trim()} s outside the tests`,
      );
    }
    for (const f of files) {
      const mark = f.state === 'passed' ? '' : `  (${f.state})`;
      lines.push(`${seconds(f.ms)} s ${seconds(f.outsideMs)} s  ${f.project.padEnd(5)}  ${f.file}${mark}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    const dir = join(ROOT, 'test', 'artifacts', 'timings');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${projects.join('+')}.json`), `${JSON.stringify({ wallMs, files, failures }, null, 1)}\n`);
  }
}
