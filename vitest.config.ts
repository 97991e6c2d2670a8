import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['tests/engine/**/*.test.ts', 'tests/relay/**/*.test.ts', 'tests/sync/**/*.test.ts', 'tests/tooling/**/*.test.ts', 'tests/ui/**/*.test.ts'],
          environment: 'node',
          // The property test and sqlite-wasm start-up are slow on a shared 2-core machine.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/e2e/build-once.ts'],
          // One browser at a time: two cores, and each test drives several tabs.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
