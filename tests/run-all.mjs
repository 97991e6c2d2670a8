#!/usr/bin/env node
// `npm test` after the browsers are found: the type check, the engine/relay/sync tests and the
// browser tests, at once. The browser tests run one file at a time and leave a 2-core machine's
// CPU idle much of the while (waiting on pages, timers, the relay); the type check and the other
// tests run beside them at the lowest priority (nice 19), so they take only that idle time and
// never slow a browser test's waits. Before, the three ran one after another.
// Arguments are passed to both vitest runs (e.g. a file filter).
import { spawn } from 'node:child_process';

const extra = process.argv.slice(2);

/** Runs a command to its end; answers its exit code (a signal counts as a failure). */
function run(name, command, args, { lowPriority = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(lowPriority ? 'nice' : command, lowPriority ? ['-n', '19', command, ...args] : args, { stdio: 'inherit' });
    child.on('error', (error) => {
      console.error(`${name} could not start: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

const background = (async () => {
  const typecheck = extra.length === 0 ? await run('typecheck', 'npm', ['run', 'typecheck'], { lowPriority: true }) : 0;
  const unit = await run('node tests', 'npx', ['vitest', 'run', '--project', 'node', ...extra], { lowPriority: true });
  return typecheck || unit;
})();
const browsers = run('browser tests', 'npx', ['vitest', 'run', '--project', 'e2e', ...extra]);
const [backgroundCode, browserCode] = await Promise.all([background, browsers]);
if (backgroundCode || browserCode) {
  console.error(`\nnpm test failed: ${[backgroundCode ? 'type check or engine/relay/sync tests' : '', browserCode ? 'browser tests' : ''].filter(Boolean).join(' and ')} (see above).`);
}
process.exit(backgroundCode || browserCode);
