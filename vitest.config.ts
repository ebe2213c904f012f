import { defineConfig } from 'vitest/config';

// The suffix picks the layer (docs/architecture.md, "Local system and tests"). int and e2e share
// one set of servers per run, started by the testkit globalSetup; each spec file uses its own
// database and stream names, so files may run in parallel. The machine budget is small (2 cores), hence few workers.
const infraSetup = './libs/testkit/src/global-setup.ts';
const exclude = ['**/node_modules/**', '**/.tsbuild/**', '**/dist/**'];

export default defineConfig({
  test: {
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
          // Each file starts its own infrastructure and 6+ service processes: one at a time on 2 cores.
          fileParallelism: false,
          exclude,
          globalSetup: [infraSetup],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
