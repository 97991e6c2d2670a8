import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'node',
          include: ['tests/engine/**/*.test.ts', 'tests/relay/**/*.test.ts', 'tests/sync/**/*.test.ts', 'tests/tooling/**/*.test.ts', 'tests/ui/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/scratch-root.ts'],
          // Both cores: vitest's default leaves one free (cores - 1), which on this 2-core machine
          // ran these files one at a time. The browser files run after them, alone: run beside
          // them even at nice 19, these slowed the browser tests by a quarter (1,119 s for 123
          // tests, where they take 850 s alone).
          maxWorkers: 2,
          // The property tests and sqlite-wasm start-up are slow on a shared 2-core machine.
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['tests/scratch-root.ts', 'tests/e2e/build-once.ts'],
          // One browser at a time: two cores, and each test drives several tabs.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // A screen after a navigation, a reload or a new leader can take seconds on a loaded
          // 2-core machine: poll's 1-s default failed full runs there. Polls wait 15 s unless told.
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
