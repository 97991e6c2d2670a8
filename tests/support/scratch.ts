import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Directories a test writes to (browser profiles, downloads, a relay's dist). A full run makes
 * hundreds of Chromium profiles of 50-70 MB each: left behind, a few runs filled the shared disk
 * and every browser after that failed to start. So each one is removed when its test file ends
 * (`removeScratch`), and the run's root, which the global setup names in RPE_SCRATCH, goes at the
 * end of the run whatever a crashed file left.
 */
const made: string[] = [];

export const SCRATCH_ROOT_VARIABLE = 'RPE_SCRATCH';

export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(process.env[SCRATCH_ROOT_VARIABLE] ?? tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes what this process made so far; a directory still in use is left to the run's end. */
export function removeScratch(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // A browser still shutting down may hold a file; the run's root goes at the end anyway.
    }
  }
}

