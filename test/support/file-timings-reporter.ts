// A vitest reporter that prints, at the end of a run, the time each test file took (its set-up,
// import and every test and hook), slowest first, and of that the time outside its tests (import
// and the beforeAll/afterAll hooks: for an e2e file, mostly starting and stopping its system), with
// each project's totals and the run's wall time, and writes the same figures to
// test/artifacts/timings/<projects>.json for scripts/test-all.ts, which compares each project with
// its budget.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

export interface FileTiming {
  file: string;
  project: string;
  ms: number;
  /** Of `ms`, the time outside the tests: set-up, import and the file's beforeAll/afterAll hooks. */
  outsideMs: number;
  state: string;
}

const ROOT = join(import.meta.dirname, '..', '..');

export default class FileTimingsReporter implements Reporter {
  private started = performance.now();

  onTestRunStart(): void {
    this.started = performance.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const wallMs = performance.now() - this.started;
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
    if (files.length === 0) return;
    files.sort((a, b) => b.ms - a.ms);
    const projects = [...new Set(files.map((f) => f.project))].sort();
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
    writeFileSync(join(dir, `${projects.join('+')}.json`), `${JSON.stringify({ wallMs, files }, null, 1)}\n`);
  }
}
