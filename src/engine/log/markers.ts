import type { Db } from '../db/port.ts';

/** The event and everything it caused, transitively (an assistant turn and its analysis results). */
export function causedClosure(db: Db, seq: number): number[] {
  return db
    .all<{ seq: number }>(
      `WITH RECURSIVE caused(seq) AS (
         SELECT ?1
         UNION SELECT e.seq FROM events e JOIN caused c ON e.cause_seq = c.seq
       ) SELECT seq FROM caused ORDER BY seq`,
      [seq],
    )
    .map((r) => r.seq);
}

/**
 * Marks an event and all it caused as superseded by `bySeq` (regenerate). The caller rebuilds in the
 * same transaction; the old events stay in the log, selectable as swipes.
 */
export function markSuperseded(db: Db, seq: number, bySeq: number): number[] {
  const marked = causedClosure(db, seq);
  db.run(
    `UPDATE events SET superseded_by = ? WHERE seq IN (SELECT value FROM json_each(?)) AND superseded_by IS NULL`,
    [bySeq, JSON.stringify(marked)],
  );
  return marked;
}

/** Hides a chat's events from `fromSeq` up to the rewind, and whatever they caused elsewhere. */
export function markHidden(db: Db, chatId: string, fromSeq: number, rewindSeq: number): number[] {
  return db
    .all<{ seq: number }>(
      `WITH RECURSIVE hidden(seq) AS (
         SELECT seq FROM events WHERE chat_id = ?1 AND seq >= ?2 AND seq < ?3
         UNION SELECT e.seq FROM events e JOIN hidden h ON e.cause_seq = h.seq WHERE e.seq < ?3
       )
       UPDATE events SET hidden_by = ?3 WHERE seq IN (SELECT seq FROM hidden) AND hidden_by IS NULL RETURNING seq`,
      [chatId, fromSeq, rewindSeq],
    )
    .map((r) => r.seq);
}

export function clearHidden(db: Db, rewindSeq: number): number[] {
  return db
    .all<{ seq: number }>('UPDATE events SET hidden_by = NULL WHERE hidden_by = ? RETURNING seq', [rewindSeq])
    .map((r) => r.seq);
}
