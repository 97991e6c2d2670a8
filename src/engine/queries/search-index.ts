import type { Db } from '../db/port.ts';

/** How many waiting turns one indexing pass takes: a long import's backlog goes in steps, not one long stall. */
export const SEARCH_INDEX_BATCH = 500;

/**
 * Indexes turns whose text changed since the last pass (migration 0024: writes only note them), at
 * most `limit`, in one transaction. Returns how many are still waiting.
 */
export function indexPendingTranscript(db: Db, limit: number = SEARCH_INDEX_BATCH): number {
  return db.transaction(() => {
    const batch = db.all<{ seq: number }>(`SELECT seq FROM transcript_fts_pending ORDER BY seq LIMIT ${limit}`);
    if (batch.length === 0) return 0;
    const last = batch.at(-1)!.seq;
    db.run(
      `INSERT INTO transcript_fts (rowid, text)
       SELECT t.seq, t.text FROM transcript_fts_pending p JOIN transcript t ON t.seq = p.seq WHERE p.seq <= ?`,
      [last],
    );
    db.run('DELETE FROM transcript_fts_pending WHERE seq <= ?', [last]);
    return db.get<{ n: number }>('SELECT count(*) AS n FROM transcript_fts_pending')!.n;
  });
}

/** Indexes every waiting turn: what a search does first, so it never misses one. */
export function indexAllPendingTranscript(db: Db): void {
  while (indexPendingTranscript(db) > 0);
}
