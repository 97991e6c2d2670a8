import type { Db } from '../db/port.ts';
import type { BackupEvent } from './backup-event.ts';
import { rebuild } from './rebuild.ts';
import { TRAVELLING_COLUMNS as COLUMNS, withoutLogGuards } from './row.ts';
import { forgetMarks } from './visibility.ts';
import { compareIds } from '../ids.ts';

/**
 * Writes the log's events from seq `tailFrom` on (none when null) again after its head, together
 * with `arriving`, all in id order under new local seqs (never reused ones). Seq order stays id
 * order, so every list kept in seq order reads alike on every device, and a chat's events are
 * walked in order by seq (the log's index by chat holds it). The moved events are pushed again
 * under their new seqs: the server already has them. What they showed is left to the caller to
 * project again. Returns the events written, in order, each one's seq, and how many of them moved.
 */
export function writeInIdOrder(db: Db, tailFrom: number | null, arriving: readonly BackupEvent[]): { written: BackupEvent[]; seqs: Map<string, number>; moved: number } {
  const head = db.get<{ s: number | null }>('SELECT max(seq) AS s FROM event_rows')?.s ?? 0;
  const moved = tailFrom === null ? [] : db.all<BackupEvent & { seq: number }>(`SELECT seq, ${COLUMNS} FROM events WHERE seq >= ? ORDER BY seq`, [tailFrom]);
  if (moved.length > 0) {
    forgetMarks(db, 'SELECT value FROM json_each(?)', [JSON.stringify(moved.map((m) => m.seq))]);
    withoutLogGuards(db, () => db.run('DELETE FROM events WHERE seq >= ?', [tailFrom!]));
    db.run('UPDATE sync_state SET pushed_seq = min(pushed_seq, ?)', [tailFrom! - 1]);
  }
  const written = [...moved.map(({ seq: _, ...event }) => event), ...arriving].sort((x, y) => compareIds(x.id, y.id));
  const seqs = new Map<string, number>();
  let next = head + 1;
  for (const row of written) {
    db.run(`INSERT INTO events (seq, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [next, row.id, row.device_id, row.ts, row.kind, row.chat_id, row.payload, row.cause_id, row.command_id]);
    seqs.set(row.id, next++);
  }
  return { written, seqs, moved: moved.length };
}

/** The seq of the first event here that sorts after `id`: where events arriving from `id` on must go. */
export const tailAfter = (db: Db, id: string): number | null =>
  db.get<{ s: number | null }>('SELECT min(seq) AS s FROM event_rows WHERE id > id_key(?)', [id])?.s ?? null;

/**
 * A log synced before seq order was kept to id order (2d9840b) may hold events out of it; migration
 * 0059 noted the least such id. The log is written again from there in id order, once, and every
 * projection rebuilt from it (rare: a few players' logs, once).
 */
export function putLogInIdOrder(db: Db): boolean {
  const noted = db.get<{ from_id: string }>('SELECT from_id FROM log_out_of_order LIMIT 1');
  if (!noted) return false;
  db.transaction(() => {
    const { moved } = writeInIdOrder(db, tailAfter(db, noted.from_id), []);
    db.run('DELETE FROM log_out_of_order');
    if (moved > 0) rebuild(db);
  });
  return true;
}
