import { defineConfig } from 'vitest/config';

// Two projects: `unit` needs nothing but Node; `integration` gets one real Temporal dev server,
// started once by the global setup and stopped after the run. `npm test` runs both.
export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/integration/**', 'node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          testTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
