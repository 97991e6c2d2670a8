import type { Db } from '../db/port.ts';

/** How many waiting rows one indexing pass takes: a long import's backlog goes in steps, not one long stall. */
export const SEARCH_INDEX_BATCH = 500;

/**
 * The full-text indexes filled after the write (migrations 0024, 0025): a write's triggers only note
 * the changed row's key in the pending table; an indexed row that changes or goes leaves the index
 * at once. A row is in the index, with its current text, exactly when it is not waiting.
 */
interface DeferredIndex {
  fts: string;
  pending: string;
  content: string;
  key: string;
  columns: string[];
}

const TRANSCRIPT: DeferredIndex = { fts: 'transcript_fts', pending: 'transcript_fts_pending', content: 'transcript', key: 'seq', columns: ['text'] };
const MEMORIES: DeferredIndex = { fts: 'memories_fts', pending: 'memories_fts_pending', content: 'memories', key: 'created_seq', columns: ['summary', 'keywords'] };

/** Indexes at most `limit` waiting rows of one index in one transaction; returns how many still wait. */
function indexPending(db: Db, index: DeferredIndex, limit: number): number {
  const { fts, pending, content, key, columns } = index;
  return db.transaction(() => {
    const last = db.get<{ k: number | null }>(`SELECT max(${key}) AS k FROM (SELECT ${key} FROM ${pending} ORDER BY ${key} LIMIT ${limit})`)!.k;
    if (last === null) return 0;
    db.run(
      `INSERT INTO ${fts} (rowid, ${columns.join(', ')})
       SELECT c.${key}, ${columns.map((c) => `c.${c}`).join(', ')} FROM ${pending} p JOIN ${content} c ON c.${key} = p.${key} WHERE p.${key} <= ?`,
      [last],
    );
    db.run(`DELETE FROM ${pending} WHERE ${key} <= ?`, [last]);
    return db.get<{ n: number }>(`SELECT count(*) AS n FROM ${pending}`)!.n;
  });
}

/** One pass of the transcript's index. */
export const indexPendingTranscript = (db: Db, limit: number = SEARCH_INDEX_BATCH): number => indexPending(db, TRANSCRIPT, limit);

/** One pass over both indexes (the leader's background work): how many rows still wait. */
export function indexPendingSearch(db: Db, limit: number = SEARCH_INDEX_BATCH): number {
  return indexPending(db, MEMORIES, limit) + indexPending(db, TRANSCRIPT, limit);
}

/** Indexes every waiting row of one index; usually none wait (the leader's pass got there first). */
function indexAllPending(db: Db, index: DeferredIndex): void {
  if (!db.get(`SELECT 1 AS x FROM ${index.pending} LIMIT 1`)) return;
  while (indexPending(db, index, SEARCH_INDEX_BATCH) > 0);
}

/** What a search across chats does first, so it never misses a turn. */
export const indexAllPendingTranscript = (db: Db): void => indexAllPending(db, TRANSCRIPT);

/** What retrieval does first, so a prompt never misses a memory. */
export const indexAllPendingMemories = (db: Db): void => indexAllPending(db, MEMORIES);

/** Forgets what waits, after a rebuild refilled both indexes whole. */
export function clearPendingSearch(db: Db): void {
  db.run(`DELETE FROM ${TRANSCRIPT.pending}`);
  db.run(`DELETE FROM ${MEMORIES.pending}`);
}
