import type { Db } from '../db/port.ts';
import type { TrackedTarget } from '../state/tracked-values.ts';
import { trackedKey } from '../state/tracked-value.ts';

/** A drawer value's owner, as a manual_edit names it (its schema is in manual-edit.ts); a tracked value's targets follow from its declaration. */
export type EditTarget =
  | { type: 'you' }
  | { type: 'bot'; id: string }
  | { type: 'chat' }
  | { type: 'chat_state' }
  | { type: 'edge'; source: string; target: string }
  | { type: 'memory'; id: string }
  | { type: 'turn'; id: string }
  | { type: 'activity'; entity: string }
  | TrackedTarget;

/**
 * How a state_edits row names what was edited: one key per drawer item. The one place these keys
 * are made: the projections that set and clear marks, the query and the drawer all come here.
 */
export function editKey(t: EditTarget): string {
  switch (t.type) {
    case 'edge':
      return `edge:${t.source}:${t.target}`;
    case 'activity':
      return `activity:${t.entity}`;
    case 'memory':
    case 'turn':
    case 'bot':
      return `${t.type}:${t.id}`;
    case 'you':
    case 'chat':
    case 'chat_state':
      return t.type;
    default:
      // A tracked value: its type, then its key's values in the order its target lists them.
      return trackedKey(t.type, ...Object.entries(t).flatMap(([name, value]) => (name === 'type' ? [] : [value])));
  }
}

/** One value's "edited by you" key, as `ChatState.edited` lists it. */
export const editMarkKey = (t: EditTarget, field: string): string => markKey(editKey(t), field);

/** A state_edits row's key: its target's key and its field. */
export const markKey = (targetKey: string, field: string): string => `${targetKey}:${field}`;

/**
 * The "edited by you" marks: which drawer values the player set by hand (manual_edit), until the
 * story changes them again.
 */
export function markEdited(db: Db, chatId: string, target: EditTarget, field: string, seq: number): void {
  db.run(
    `INSERT INTO state_edits (chat_id, target, field, seq) VALUES (?, ?, ?, ?)
     ON CONFLICT (chat_id, target, field) DO UPDATE SET seq = excluded.seq`,
    [chatId, editKey(target), field, seq],
  );
}

/** The story changed these values itself: the "edited by you" marks on them go. */
export function clearEditMarks(db: Db, chatId: string | null, target: EditTarget, fields?: readonly string[]): void {
  if (!chatId) return;
  const key = editKey(target);
  if (!fields) db.run('DELETE FROM state_edits WHERE chat_id = ? AND target = ?', [chatId, key]);
  else db.run('DELETE FROM state_edits WHERE chat_id = ? AND target = ? AND field IN (SELECT value FROM json_each(?))', [chatId, key, JSON.stringify(fields)]);
}
