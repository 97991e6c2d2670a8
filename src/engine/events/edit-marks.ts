import type { Db } from '../db/port.ts';

/**
 * The "edited by you" marks: which drawer values the player set by hand (manual_edit), until the
 * story changes them again. Targets are named as `editKey` in manual-edit.ts names them.
 */
export function markEdited(db: Db, chatId: string, target: string, field: string, seq: number): void {
  db.run(
    `INSERT INTO state_edits (chat_id, target, field, seq) VALUES (?, ?, ?, ?)
     ON CONFLICT (chat_id, target, field) DO UPDATE SET seq = excluded.seq`,
    [chatId, target, field, seq],
  );
}

/** The story changed these values itself: the "edited by you" marks on them go. */
export function clearEditMarks(db: Db, chatId: string | null, target: string, fields?: readonly string[]): void {
  if (!chatId) return;
  if (!fields) db.run('DELETE FROM state_edits WHERE chat_id = ? AND target = ?', [chatId, target]);
  else db.run('DELETE FROM state_edits WHERE chat_id = ? AND target = ? AND field IN (SELECT value FROM json_each(?))', [chatId, target, JSON.stringify(fields)]);
}
