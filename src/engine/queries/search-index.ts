import type { Db } from '../db/port.ts';

/** How many waiting rows one indexing pass takes: a long import's backlog goes in steps, not one long stall. */
export const SEARCH_INDEX_BATCH = 500;

/**
 * The full-text indexes filled after the write (migrations 0024, 0025): a write's triggers only note
 * the changed row's key in the pending table; an indexed row that changes or goes leaves the index
 * at once. A row is in the index, with its current text, exactly when it is not waiting. (The
 * memories' context index, below, is kept otherwise.)
 */
interface DeferredIndex {
  fts: string;
  pending: string;
  content: string;
  key: string;
  columns: string[];
}

const TRANSCRIPT: DeferredIndex = { fts: 'transcript_fts', pending: 'transcript_fts_pending', content: 'transcript_for_search', key: 'seq', columns: ['text'] };
const MEMORIES: DeferredIndex = { fts: 'memories_fts', pending: 'memories_fts_pending', content: 'memories_for_search', key: 'created_seq', columns: ['summary', 'keywords'] };

/**
 * Indexes at most `limit` waiting rows of one index in one transaction; returns how many still wait.
 * The waiting rows lead the join (CROSS JOIN keeps them outside): led by the table, whose keys the
 * bound on the waiting ones also bounds, the join read every row of the story up to the last one
 * waiting, at each Send.
 */
function indexPending(db: Db, index: DeferredIndex, limit: number): number {
  const { fts, pending, content, key, columns } = index;
  return db.transaction(() => {
    const last = db.get<{ k: number | null }>(`SELECT max(${key}) AS k FROM (SELECT ${key} FROM ${pending} ORDER BY ${key} LIMIT ${limit})`)!.k;
    if (last === null) return 0;
    db.run(
      `INSERT INTO ${fts} (rowid, ${columns.join(', ')})
       SELECT c.${key}, ${columns.map((c) => `c.${c}`).join(', ')} FROM ${pending} p CROSS JOIN ${content} c ON c.${key} = p.${key} WHERE p.${key} <= ?`,
      [last],
    );
    db.run(`DELETE FROM ${pending} WHERE ${key} <= ?`, [last]);
    return db.get<{ n: number }>(`SELECT count(*) AS n FROM ${pending}`)!.n;
  });
}

/**
 * Text of a memory `n` that goes into memory `m`'s context only when every role that saw m saw n
 * too: search by a role finds m by n's words only when that role could have found n itself.
 */
const seenWith = (n: string) =>
  `CASE WHEN ${n}.witness_you >= m.witness_you AND ${n}.witness_host >= m.witness_host AND ${n}.witness_guest >= m.witness_guest THEN ${n}.summary ELSE '' END`;
const beside = (direction: '<' | '>') =>
  `coalesce((SELECT ${seenWith('n')} FROM memory_rows n
     WHERE n.owner_id = m.owner_id AND n.chat = m.chat AND n.created_seq ${direction} m.created_seq
     ORDER BY n.created_seq ${direction === '<' ? 'DESC' : 'ASC'} LIMIT 1), '')`;
/** The scene's first memory (its summary once the scene closed), unless that is m or the one before it. */
const sceneOpening = `coalesce((SELECT ${seenWith('f')} FROM memory_rows f
     WHERE f.chat = m.chat AND f.scene_id = m.scene_id AND f.owner_id = m.owner_id AND f.created_seq < (
       SELECT max(p.created_seq) FROM memory_rows p WHERE p.owner_id = m.owner_id AND p.chat = m.chat AND p.created_seq < m.created_seq)
     ORDER BY f.created_seq LIMIT 1), '')`;
/** A memory m's entry in memories_context_fts (migration 0037): the words around it. */
const CONTEXT_ENTRY = `m.created_seq, search_text(${beside('<')} || char(10) || ${beside('>')} || char(10) || ${sceneOpening})`;

/**
 * Writes at most `limit` waiting memories' context afresh (each one's entry is stale or missing:
 * a neighbour came, went or changed); returns how many still wait.
 */
function indexPendingContext(db: Db, limit: number): number {
  return db.transaction(() => {
    const last = db.get<{ k: number | null }>(`SELECT max(created_seq) AS k FROM (SELECT created_seq FROM memories_context_fts_pending ORDER BY created_seq LIMIT ${limit})`)!.k;
    if (last === null) return 0;
    db.run('DELETE FROM memories_context_fts WHERE rowid IN (SELECT created_seq FROM memories_context_fts_pending WHERE created_seq <= ?)', [last]);
    db.run(
      `INSERT INTO memories_context_fts (rowid, context)
       SELECT ${CONTEXT_ENTRY} FROM memories_context_fts_pending p CROSS JOIN memory_rows m ON m.created_seq = p.created_seq WHERE p.created_seq <= ?`,
      [last],
    );
    db.run('DELETE FROM memories_context_fts_pending WHERE created_seq <= ?', [last]);
    return db.get<{ n: number }>('SELECT count(*) AS n FROM memories_context_fts_pending')!.n;
  });
}

/**
 * Refills every full-text index from its table, once, at the end of a full rebuild (their
 * triggers were set aside meanwhile). Nothing waits afterwards.
 */
export function refillSearchIndexes(db: Db): void {
  for (const { fts, pending } of [TRANSCRIPT, MEMORIES]) {
    db.run(`INSERT INTO ${fts} (${fts}) VALUES ('rebuild')`);
    db.run(`DELETE FROM ${pending}`);
  }
  db.run("INSERT INTO memories_context_fts (memories_context_fts) VALUES ('delete-all')");
  db.run(`INSERT INTO memories_context_fts (rowid, context) SELECT ${CONTEXT_ENTRY} FROM memory_rows m`);
  db.run('DELETE FROM memories_context_fts_pending');
}

/** One pass of the transcript's index. */
export const indexPendingTranscript = (db: Db, limit: number = SEARCH_INDEX_BATCH): number => indexPending(db, TRANSCRIPT, limit);

/**
 * The story's turns wait for the background pass until this many have gathered. Each pass writes
 * the index a new segment, and FTS5 rewrites its structure and merges segments as they pile up: a
 * pass per turn was a fifth of what a Send wrote to disk. A search indexes whatever waits first,
 * so it never misses a turn, and a turn waiting in a closed tab is indexed by the next pass.
 */
export const STORY_INDEX_GATHERS = 32;

/** One pass over the indexes (the leader's background work): how many rows still wait beyond what gathers. */
export function indexPendingSearch(db: Db, limit: number = SEARCH_INDEX_BATCH): number {
  const memories = db.transaction(() => indexPending(db, MEMORIES, limit) + indexPendingContext(db, limit));
  const gathered = db.get<{ n: number }>('SELECT count(*) AS n FROM transcript_fts_pending')!.n;
  const story = gathered >= STORY_INDEX_GATHERS ? indexPending(db, TRANSCRIPT, limit) : 0;
  return memories + (story >= STORY_INDEX_GATHERS ? story : 0);
}

/**
 * Indexes the memories waiting, in the caller's transaction, when they are few (a turn's analysis
 * just wrote them): a pass of their own after the commit wrote the waiting tables and the indexes'
 * structure to disk once more, a sixth of what a Send wrote. A backlog (an import, a migration)
 * stays for the background pass, in steps.
 */
export function indexFewWaitingMemories(db: Db, most = 40): void {
  const waiting = (table: string) => db.get<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${table} LIMIT ${most + 1})`)!.n;
  if (waiting(MEMORIES.pending) > most || waiting('memories_context_fts_pending') > most) return;
  indexPending(db, MEMORIES, most);
  indexPendingContext(db, most);
}

/** Indexes every waiting row of one index; usually none wait (the leader's pass got there first). */
function indexAllPending(db: Db, index: DeferredIndex): void {
  if (!db.get(`SELECT 1 AS x FROM ${index.pending} LIMIT 1`)) return;
  while (indexPending(db, index, SEARCH_INDEX_BATCH) > 0);
}

/** What a search across chats does first, so it never misses a turn. */
export const indexAllPendingTranscript = (db: Db): void => indexAllPending(db, TRANSCRIPT);

/** What retrieval does first, so a prompt never misses a memory, nor a memory's new context. */
export function indexAllPendingMemories(db: Db): void {
  indexAllPending(db, MEMORIES);
  if (!db.get('SELECT 1 AS x FROM memories_context_fts_pending LIMIT 1')) return;
  while (indexPendingContext(db, SEARCH_INDEX_BATCH) > 0);
}
