import type { Db } from '../db/port.ts';
import { CHAT_COLUMN, definitionOf, KINDS_REACHING_CHATS, PROJECTED_TABLES } from '../events/registry.ts';
import { project } from './append.ts';
import { UnknownEventKindError } from './errors.ts';
import { EVENT_COLUMNS, fromRow, type EventRow } from './row.ts';

const BATCH = 2_000;
const VISIBLE = 'superseded_by IS NULL AND hidden_by IS NULL';

function replay(db: Db, where: string, params: readonly (string | number)[], each: (row: EventRow) => void): number {
  let replayed = 0;
  let after = 0;
  for (;;) {
    const rows = db.all<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events WHERE seq > ? AND ${VISIBLE} AND (${where}) ORDER BY seq LIMIT ${BATCH}`,
      [after, ...params],
    );
    for (const row of rows) each(row);
    replayed += rows.length;
    const last = rows.at(-1);
    if (!last || rows.length < BATCH) return replayed;
    after = last.seq;
  }
}

function definition(kind: string) {
  const def = definitionOf(kind);
  if (!def) throw new UnknownEventKindError(kind);
  return def;
}

/**
 * Clears every projected table and replays the visible events (neither superseded nor hidden) in
 * log order. Always a legal way to reach the current state; the property test holds it equal to
 * what incremental projection produced.
 */
export function rebuild(db: Db): number {
  return db.transaction(() => {
    for (const table of PROJECTED_TABLES) db.run(`DELETE FROM ${table}`);
    return replay(db, '1', [], (row) => project(db, definition(row.kind), fromRow(row)));
  });
}

/**
 * Rebuilds one chat's rows alone: its own events, plus the global events that reach into chat rows,
 * limited to this chat. A regenerate or rewind then costs the size of that story, not of every
 * story the user has. Chat projections touch only rows of their own chat; that is what makes this
 * equal to a full rebuild, and the property test checks it.
 */
export function rebuildChat(db: Db, chatId: string): number {
  return db.transaction(() => {
    for (const [table, column] of Object.entries(CHAT_COLUMN)) db.run(`DELETE FROM ${table} WHERE ${column} = ?`, [chatId]);
    const reaching = JSON.stringify(KINDS_REACHING_CHATS);
    return replay(
      db,
      'chat_id = ? OR (chat_id IS NULL AND kind IN (SELECT value FROM json_each(?)))',
      [chatId, reaching],
      (row) => {
        const def = definition(row.kind);
        const event = fromRow(row);
        if (row.chat_id === null) def.applyToChat?.(db, event, chatId);
        else project(db, def, event);
      },
    );
  });
}

/** Brings projections back in line after markers changed on `seqs`: per chat when it can, else whole. */
export function rebuildAfterMarking(db: Db, seqs: readonly number[]): void {
  const chats = db.all<{ chat_id: string | null }>(
    'SELECT DISTINCT chat_id FROM events WHERE seq IN (SELECT value FROM json_each(?))',
    [JSON.stringify(seqs)],
  );
  if (chats.some((c) => c.chat_id === null)) {
    rebuild(db);
    return;
  }
  for (const { chat_id } of chats) rebuildChat(db, chat_id!);
}
