import type { Db } from '../db/port.ts';
import { CHAT_COLUMN, definitionOf, EVENT_DEFINITIONS, KINDS_REACHING_CHATS, PROJECTED_TABLES } from '../events/registry.ts';
import { UnknownEventKindError } from './errors.ts';
import { project } from './project.ts';
import { EVENT_COLUMNS, fromRow, type EventRow } from './row.ts';
import { VISIBLE } from './visibility.ts';

const BATCH = 2_000;
const MARKING_KINDS = JSON.stringify(EVENT_DEFINITIONS.filter((d) => 'marks' in d).map((d) => d.kind));

/** Replays the matching events in id order (the order of events on every device), in pages. */
function replay(db: Db, where: string, params: readonly (string | number)[], each: (row: EventRow) => void): number {
  let replayed = 0;
  let after = '';
  for (;;) {
    const rows = db.all<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE id > ? AND (${where}) ORDER BY id LIMIT ${BATCH}`,
      [after, ...params],
    );
    for (const row of rows) each(row);
    replayed += rows.length;
    const last = rows.at(-1);
    if (!last || rows.length < BATCH) return replayed;
    after = last.id;
  }
}

function definition(kind: string) {
  const def = definitionOf(kind);
  if (!def) throw new UnknownEventKindError(kind);
  return def;
}

/**
 * Clears every projected table and fills it again from the event rows alone: first which events
 * are visible (every marker event in id order, hidden ones too, so each sees what the earlier ones
 * left), then the visible events' projections in id order. Always a legal way to reach the current
 * state; the property test holds it equal to what incremental projection produced.
 */
export function rebuild(db: Db): number {
  return db.transaction(() => {
    for (const table of PROJECTED_TABLES) db.run(`DELETE FROM ${table}`);
    replay(db, 'kind IN (SELECT value FROM json_each(?))', [MARKING_KINDS], (row) => definition(row.kind).marks?.(db, fromRow(row)));
    return replay(db, VISIBLE('e'), [], (row) => project(db, definition(row.kind), fromRow(row)));
  });
}

/**
 * Rebuilds one chat's rows alone: its own visible events, plus the global events that reach into
 * chat rows, limited to this chat. A regenerate or rewind then costs the size of that story, not of
 * every story the user has. Chat projections touch only rows of their own chat; that is what makes
 * this equal to a full rebuild, and the property test checks it. Visibility is left as it is: it is
 * kept current by the marker events as they are appended.
 */
export function rebuildChat(db: Db, chatId: string): number {
  return db.transaction(() => {
    for (const [table, column] of Object.entries(CHAT_COLUMN)) db.run(`DELETE FROM ${table} WHERE ${column} = ?`, [chatId]);
    const reaching = JSON.stringify(KINDS_REACHING_CHATS);
    return replay(
      db,
      `${VISIBLE('e')} AND (chat_id = ? OR (chat_id IS NULL AND kind IN (SELECT value FROM json_each(?))))`,
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

/** Brings projections back in line after visibility changed on `seqs`: per chat when it can, else whole. */
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
