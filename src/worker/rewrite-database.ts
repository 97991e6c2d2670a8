import type { Db } from '../engine/db/port.ts';

/** The page size of every database this app writes (see `onDiskPragmas` in open-database.ts). */
export const PAGE_BYTES = 4096;
/**
 * How often, in virtual-machine steps, SQLite calls back. The count starts again with each of the
 * statements VACUUM runs (one a table), so a statement of fewer steps is not counted at all: the
 * rate below was measured at this same count.
 */
const STEPS_PER_REPORT = 1_000;
/** VACUUM called back ~39 times per MB of database, every 1,000 steps (sqlite-wasm, 13 MB, 4 and 8 KiB pages). */
const STEPS_PER_BYTE = 0.039;

/**
 * Why a database is worth rewriting once as it opens:
 * - it was made with other pages than 4 KiB (before the app chose them, the build's default of 8
 *   KiB), which writes twice the bytes a Send: each page a commit changes is written whole;
 * - a quarter of it is free pages (indexes a migration dropped), which it keeps on the disk.
 */
export function rewriteReason(db: Db): 'page-size' | 'free-pages' | null {
  const { pages, free, size } = db.get<{ pages: number; free: number; size: number }>(
    'SELECT (SELECT page_count FROM pragma_page_count) AS pages, (SELECT freelist_count FROM pragma_freelist_count) AS free, (SELECT page_size FROM pragma_page_size) AS size',
  )!;
  if (size !== PAGE_BYTES) return 'page-size';
  return free * 4 >= pages ? 'free-pages' : null;
}

/**
 * Rewrites the database whole (VACUUM) with 4 KiB pages and no free ones, saying how far it has
 * come. A page size changes only outside WAL, so the rewrite runs under the rollback journal: a tab
 * killed midway leaves a journal that puts the database back as it was, and the next start tries
 * again. `onProgress` gets 0 first, then fractions below 1 as SQLite works (an estimate from the
 * database's size, held under 1 until the end), then 1.
 */
export function rewriteDatabase(db: Db, onProgress: (fraction: number) => void): void {
  const bytes = db.get<{ bytes: number }>('SELECT (SELECT page_count FROM pragma_page_count) * (SELECT page_size FROM pragma_page_size) AS bytes')!.bytes;
  const expected = Math.max(1, bytes * STEPS_PER_BYTE);
  let steps = 0;
  let said = 0;
  onProgress(0);
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.exec('PRAGMA journal_mode = DELETE');
  try {
    db.exec(`PRAGMA page_size = ${PAGE_BYTES}`);
    // VACUUM builds the new database in a temporary one: in a file of the pool, not in memory,
    // which would hold a copy of the whole database (this build keeps temporary tables in memory).
    db.exec('PRAGMA temp_store = FILE');
    db.onSteps(STEPS_PER_REPORT, () => {
      steps += STEPS_PER_REPORT;
      const fraction = Math.min(0.99, steps / expected);
      // Said in steps of a percent: the bar moves, the page is not flooded.
      if (fraction - said >= 0.01) onProgress((said = fraction));
    });
    db.exec('VACUUM');
  } finally {
    db.onSteps(0, null);
    db.exec('PRAGMA temp_store = DEFAULT');
    db.exec('PRAGMA journal_mode = WAL');
  }
  onProgress(1);
}
