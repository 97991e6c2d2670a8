import type { Db } from '../db/port.ts';

/**
 * What regenerate, rewind and undo do to the log, as projected state: rows of `visibility` for
 * events no longer shown. Event rows themselves never change. The marker events' `marks` hooks
 * call these, so the same code runs when a command appends a marker and when a rebuild replays it.
 */

export const seqOfId = (db: Db, id: string): number | undefined => db.get<{ seq: number }>('SELECT seq FROM events WHERE id = ?', [id])?.seq;
export const idOfSeq = (db: Db, seq: number): string | undefined => db.get<{ id: string }>('SELECT id FROM events WHERE seq = ?', [seq])?.id;

/** Whether an event is shown: neither superseded by a regenerate nor hidden by a rewind. */
export const VISIBLE = (alias: string): string => `NOT EXISTS (SELECT 1 FROM visibility v WHERE v.seq = ${alias}.seq)`;

/** The event and everything it caused, transitively (a reply and its analysis results). */
export function causedClosure(db: Db, id: string): number[] {
  return db
    .all<{ seq: number }>(
      `WITH RECURSIVE caused(id, seq) AS (
         SELECT id, seq FROM events WHERE id = ?1
         UNION SELECT e.id, e.seq FROM events e JOIN caused c ON e.cause_id = c.id
       ) SELECT seq FROM caused ORDER BY seq`,
      [id],
    )
    .map((r) => r.seq);
}

/** A regenerate: the reply `id` and all it caused give way to the event at `bySeq`, and stay in the log as an earlier version. */
export function supersede(db: Db, id: string, bySeq: number): number[] {
  const closure = causedClosure(db, id);
  db.run(
    `INSERT INTO visibility (seq, superseded_by) SELECT value, ?1 FROM json_each(?2) WHERE true
     ON CONFLICT (seq) DO UPDATE SET superseded_by = coalesce(superseded_by, excluded.superseded_by)`,
    [bySeq, JSON.stringify(closure)],
  );
  return closure;
}

/** A rewind: hides the chat's events from `fromId` up to the rewind, and whatever they caused. */
export function hide(db: Db, chatId: string, fromId: string, rewind: { id: string; seq: number }): number[] {
  return db
    .all<{ seq: number }>(
      `WITH RECURSIVE hidden(id, seq) AS (
         SELECT id, seq FROM events WHERE chat_id = ?1 AND id >= ?2 AND id < ?3
         UNION SELECT e.id, e.seq FROM events e JOIN hidden h ON e.cause_id = h.id WHERE e.id < ?3
       )
       INSERT INTO visibility (seq, hidden_by) SELECT seq, ?4 FROM hidden WHERE true
       ON CONFLICT (seq) DO UPDATE SET hidden_by = ?4 WHERE hidden_by IS NULL
       RETURNING seq`,
      [chatId, fromId, rewind.id, rewind.seq],
    )
    .map((r) => r.seq);
}

/** An undo: shows again what the rewind `rewindId` hid. */
export function unhide(db: Db, rewindId: string): number[] {
  const rewindSeq = seqOfId(db, rewindId);
  if (rewindSeq === undefined) return [];
  const shown = db.all<{ seq: number }>('SELECT seq FROM visibility WHERE hidden_by = ?', [rewindSeq]).map((r) => r.seq);
  db.run('DELETE FROM visibility WHERE hidden_by = ? AND superseded_by IS NULL', [rewindSeq]);
  db.run('UPDATE visibility SET hidden_by = NULL WHERE hidden_by = ?', [rewindSeq]);
  return shown;
}
