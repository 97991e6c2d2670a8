import type { Db } from '../engine/db/port.ts';
import { reportSteps } from '../engine/db/step-progress.ts';
import { PAGE_BYTES } from './disk-layout.ts';

/** VACUUM's steps per byte of the database: ~39,000 a MB, counted every `STEPS_PER_CALL` (sqlite-wasm, 13 MB, 4 and 8 KiB pages). */
const STEPS_PER_BYTE = 0.039;

/**
 * Why a database is worth rewriting once as it opens:
 * - it was made with other pages than 1 KiB (4 KiB, or before the app chose its pages the build's
 *   default of 8 KiB), which writes two to three times the bytes a Send: each page a commit
 *   changes is written whole;
 * - a quarter of it is free pages (indexes a migration dropped), which it keeps on the disk;
 * - a migration ran at this start (`migratedAtThisStart`), and a twentieth of the database is
 *   free: the pages of the table it copied or the index it dropped, worth giving back once. (0053
 *   left 23% of a 10,000-turn database free, and 0059 about 7%: under a quarter, the second rule
 *   alone kept them on the disk.)
 */
export function rewriteReason(db: Db, migratedAtThisStart = false): 'page-size' | 'free-pages' | 'migrated' | null {
  const { pages, free, size } = db.get<{ pages: number; free: number; size: number }>(
    'SELECT (SELECT page_count FROM pragma_page_count) AS pages, (SELECT freelist_count FROM pragma_freelist_count) AS free, (SELECT page_size FROM pragma_page_size) AS size',
  )!;
  if (size !== PAGE_BYTES) return 'page-size';
  if (free * 4 >= pages) return 'free-pages';
  return migratedAtThisStart && free * 20 >= pages ? 'migrated' : null;
}

/**
 * Rewrites the database whole (VACUUM) with the app's pages and no free ones, saying how far it has
 * come. A page size changes only outside WAL, so the rewrite runs under the rollback journal: a tab
 * killed midway leaves a journal that puts the database back as it was, and the next start tries
 * again. `onProgress` gets 0 first, then fractions below 1 as SQLite works (an estimate from the
 * database's size, held under 1 until the end), then 1, whether it succeeded or not.
 */
export function rewriteDatabase(db: Db, onProgress: (fraction: number) => void): void {
  const bytes = db.get<{ bytes: number }>('SELECT (SELECT page_count FROM pragma_page_count) * (SELECT page_size FROM pragma_page_size) AS bytes')!.bytes;
  const stopReporting = reportSteps(db, Math.max(1, bytes * STEPS_PER_BYTE), onProgress);
  try {
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.exec('PRAGMA journal_mode = DELETE');
    db.exec(`PRAGMA page_size = ${PAGE_BYTES}`);
    // VACUUM builds the new database in a temporary one: in a file of the pool, not in memory,
    // which would hold a copy of the whole database (this build keeps temporary tables in memory).
    db.exec('PRAGMA temp_store = FILE');
    db.exec('VACUUM');
  } finally {
    stopReporting();
    db.exec('PRAGMA temp_store = DEFAULT');
    db.exec('PRAGMA journal_mode = WAL');
  }
}
