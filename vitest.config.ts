import { defineConfig } from 'vitest/config';

// The suffix picks the layer (docs/architecture.md, "Local system and tests"). int and e2e share
// one set of servers per run, started by the testkit globalSetup; each spec file uses its own
// database and stream names, so files may run in parallel. The machine budget is small (2 cores), hence few workers.
const infraSetup = './libs/testkit/src/global-setup.ts';
const exclude = ['**/node_modules/**', '**/.tsbuild/**', '**/dist/**'];
const soak = 'test/soak.e2e.spec.ts';

export default defineConfig({
  test: {
    // The default report, then each file's time, slowest first (test/support/file-timings-reporter.ts).
    reporters: ['default', './test/support/file-timings-reporter.ts'],
    maxWorkers: 2,
    teardownTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['**/*.unit.spec.ts'], exclude },
      },
      {
        extends: true,
        test: {
          name: 'int',
          include: ['**/*.int.spec.ts'],
          exclude,
          globalSetup: [infraSetup],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e.spec.ts'],
          // Each file starts 6+ service processes: one at a time on 2 cores.
          fileParallelism: false,
          exclude: [...exclude, soak],
          globalSetup: [infraSetup],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The 5-minute soak asserts memory, not timing, and costs a few percent of a core: `npm test`
        // runs this project beside the e2e one (scripts/test-all.ts), each with its own servers.
        extends: true,
        test: {
          name: 'soak',
          include: [soak],
          exclude,
          globalSetup: [infraSetup],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
