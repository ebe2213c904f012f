import type { ProgressOutput } from './progress.ts';

/** Where a CLI command writes, and the environment it reads (tests pass their own). */
export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: ProgressOutput;
  env: Record<string, string | undefined>;
}
