import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The browser tests run against a production build, as users get it (the dev server has no precache). */
export default function buildOnce() {
  if (process.env.E2E_SKIP_BUILD === '1') return;
  // vitest sets NODE_ENV=test, which would build Solid's and workbox's development code: build what users get.
  execFileSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
}
