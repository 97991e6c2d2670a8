import type { Db } from './port.ts';

/**
 * How often, in virtual-machine steps, SQLite calls back. Its count starts again with each
 * statement, so a statement of fewer steps is not counted at all: the rates the callers estimate
 * with were measured at this same count.
 */
export const STEPS_PER_CALL = 1_000;

/**
 * Says how far long statements have come: 0 now, then fractions under 1, in steps of a percent so
 * the page is not flooded, as SQLite counts its steps against `expectedSteps`; 1 when the returned
 * function stops the counting.
 */
export function reportSteps(db: Db, expectedSteps: number, onProgress: (fraction: number) => void): () => void {
  let steps = 0;
  let said = 0;
  onProgress(0);
  db.onSteps(STEPS_PER_CALL, () => {
    steps += STEPS_PER_CALL;
    const fraction = Math.min(0.99, steps / expectedSteps);
    if (fraction - said >= 0.01) onProgress((said = fraction));
  });
  return () => {
    db.onSteps(0, null);
    onProgress(1);
  };
}
