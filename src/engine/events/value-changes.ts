import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { changeKey, defineEvent, type EventDefinition, type LoggedEvent } from './define.ts';
import { eventId } from './fields.ts';
import { chatKeyOf } from './tables.ts';

/**
 * "Undo this change" (issue 33, part 1): one change of one earlier event is taken back, and the
 * changes after it stay. A marker: it records the change in `undone_changes`, and the chat is
 * projected again from that event on, the event applying its payload `without` the change. So a
 * delta is taken out of everything added since, and a value that was set falls back to the one
 * before unless a later change set it again. A rewind that hides the marker brings the change back.
 */
export const changeUndone = defineEvent({
  kind: 'change_undone',
  writes: ['undone_changes'],
  scope: 'chat',
  schema: z.object({ event: eventId, change: z.string().min(1).max(1_000) }),
  apply() {},
  marks(db, marker) {
    const undone = db.get<{ seq: number }>('SELECT seq FROM events WHERE event_key = id_key(?) AND chat_id = ?', [marker.payload.event, marker.chatId]);
    if (!undone) return [];
    db.run('INSERT INTO undone_changes (seq, change, undone_by) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [undone.seq, marker.payload.change, marker.seq]);
    return [undone.seq];
  },
  refersTo: (payload) => [payload.event],
});

/** The changes of the event at `seq` taken back by markers still shown. */
function undoneChangesOf(db: Db, seq: number): Set<string> {
  return new Set(
    db
      .all<{ change: string }>('SELECT change FROM undone_changes u WHERE u.seq = ? AND NOT EXISTS (SELECT 1 FROM visibility v WHERE v.seq = u.undone_by)', [seq])
      .map((r) => r.change),
  );
}

/**
 * Applies an event's projection as every path does (append, rebuild, replay, merge): without the
 * changes the player took back, and with each change it declares recorded for "Why?". `undoneKnown`
 * false says no change anywhere is undone, which spares a full rebuild a lookup per event.
 */
export function applyProjection(db: Db, def: EventDefinition, event: LoggedEvent, undoneKnown = true): void {
  if (!def.changes) {
    def.apply(db, event);
    return;
  }
  const undone = undoneKnown ? undoneChangesOf(db, event.seq) : new Set<string>();
  const payload = undone.size > 0 ? def.without!(event.payload, undone) : event.payload;
  if (payload !== null) def.apply(db, undone.size > 0 ? { ...event, payload } : event);
  if (!event.chatId) return;
  for (const change of def.changes(event.payload)) {
    db.run(
      `INSERT INTO value_change_rows (chat, target, field, seq, part, how, undone) VALUES (${chatKeyOf('value_changes', '?')}, payload_packed(?), ?, ?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET how = excluded.how, undone = excluded.undone`,
      [event.chatId, change.target, change.field, event.seq, change.part ?? '', change.how, undone.has(changeKey(change)) ? 1 : 0],
    );
  }
}

/** Whether any change is undone anywhere: a full rebuild asks once. */
export const anyChangeUndone = (db: Db): boolean => db.get('SELECT 1 AS x FROM undone_changes LIMIT 1') !== undefined;

/** The events whose changes markers among `seqs` took back: replayed with them when those markers' visibility changes. */
export function eventsUndoneBy(db: Db, seqs: readonly number[]): number[] {
  return db.all<{ seq: number }>('SELECT seq FROM undone_changes WHERE undone_by IN (SELECT value FROM json_each(?))', [JSON.stringify(seqs)]).map((r) => r.seq);
}
