import type { Db } from '../db/port.ts';
import type { LoggedEvent } from '../events/define.ts';

export interface EventRow {
  seq: number;
  id: string;
  device_id: string;
  ts: number;
  kind: string;
  chat_id: string | null;
  payload: string;
  cause_id: string | null;
  command_id: string | null;
}

/** An event's columns as it travels (a backup, another device): everything but the local seq. */
export const TRAVELLING_COLUMNS = 'id, device_id, ts, kind, chat_id, payload, cause_id, command_id';
export const EVENT_COLUMNS = `seq, ${TRAVELLING_COLUMNS}`;

/**
 * A chat's number in the log (migration 0056), from its id in `param`: for a query that compares
 * `events.chat_ref`, so SQLite reads the chat's events from the index by chat as it holds them.
 */
export const chatRef = (param: string): string => `(SELECT ref FROM chat_refs WHERE id = ${param})`;

/**
 * The seq of the log's first event whose id is `param` or sorts after it (NULL: none, or `param` NULL). Seq order is
 * id order (2d9840b), so a stretch of the log from an id on is a range of seqs from there.
 */
export const seqFromId = (param: string): string => `(SELECT seq FROM event_rows WHERE id >= id_key(${param}) ORDER BY id LIMIT 1)`;

const GUARDS = ['events_are_immutable', 'events_are_permanent'];

/**
 * Runs `change` with the log's guards against change and deletion set aside (migration 0006), inside
 * the caller's transaction, and puts them back. For the two writes that rewrite rows of the log with
 * their content unchanged: a restore, and a merge that moves events to later seqs.
 */
export function withoutLogGuards(db: Db, change: () => void): void {
  if (!db.inTransaction) throw new Error('The log\'s guards are set aside only inside a transaction.');
  const guards = db.all<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name IN (SELECT value FROM json_each(?))", [JSON.stringify(GUARDS)]);
  if (guards.length !== GUARDS.length) throw new Error('The log has lost its guards against change; nothing was written.');
  for (const name of GUARDS) db.run(`DROP TRIGGER ${name}`);
  change();
  for (const { sql } of guards) db.exec(sql);
}

export function fromRow(row: EventRow): LoggedEvent {
  return {
    seq: row.seq,
    id: row.id,
    deviceId: row.device_id,
    ts: row.ts,
    kind: row.kind,
    chatId: row.chat_id,
    payload: JSON.parse(row.payload) as unknown,
    causeId: row.cause_id,
    commandId: row.command_id,
  };
}
