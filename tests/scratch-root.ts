import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCRATCH_ROOT_VARIABLE } from './support/scratch.ts';

/** Global setup: one directory for everything this run writes, removed when the run ends. */
export default function scratchRoot() {
  const root = mkdtempSync(join(tmpdir(), 'rpe-tests-'));
  process.env[SCRATCH_ROOT_VARIABLE] = root;
  return () => {
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  };
}
