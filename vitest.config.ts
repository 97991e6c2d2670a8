import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    environment: 'node',
    // The property test and the sqlite-wasm start-up are slow on a shared 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
