import type { Db } from '../db/port.ts';
import { definitionOf } from '../events/registry.ts';
import { isUuid } from '../ids.ts';
import { validateDraft } from './append.ts';
import type { BackupEvent } from './backup.ts';
import { project } from './project.ts';
import { rebuild, rebuildAfterMarking, rebuildChat, remarkChat } from './rebuild.ts';
import { fromRow, type EventRow } from './row.ts';

/** An event as it travels between devices: the backup's shape, no local seq, references by id. */
export type SyncedEvent = BackupEvent;

export class MergeError extends Error {
  override name = 'MergeError';
}

export interface MergeResult {
  /** Events that were new to this log. */
  added: number;
  /** The chats whose rows changed. */
  chats: string[];
  /** A global event arrived: every projection was rebuilt. */
  everything: boolean;
}

const COLUMNS = 'id, device_id, ts, kind, chat_id, payload, cause_id, command_id';

const sameEvent = (a: SyncedEvent, b: SyncedEvent) =>
  a.device_id === b.device_id && a.ts === b.ts && a.kind === b.kind && a.chat_id === b.chat_id && a.payload === b.payload && a.cause_id === b.cause_id && a.command_id === b.command_id;

/** One incoming event checked as an append would check it; its payload as this app stores it. */
function checked(row: SyncedEvent): SyncedEvent {
  const where = `Event ${String(row.id).slice(0, 40)} (${String(row.kind).slice(0, 60)})`;
  if (!isUuid(row.id)) throw new MergeError(`${where} has an id that is not a UUID.`);
  let payload: unknown;
  try {
    payload = JSON.parse(row.payload);
  } catch {
    throw new MergeError(`${where} has a payload that is not JSON.`);
  }
  try {
    return { ...row, payload: JSON.stringify(validateDraft(row.kind, row.chat_id, payload).payload) };
  } catch (error) {
    throw new MergeError(`${where} is invalid: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Merges events written elsewhere (another device, through sync) into this log: a union. An event
 * already here is skipped, so receiving twice changes nothing; one that arrives under a known id
 * with other content is refused, because an id names one event forever. Every event is checked
 * against its kind's schema and every reference must resolve before anything is written; a bad
 * batch changes nothing and says which event is wrong.
 *
 * A chat's rows are a function of its events in id order, whatever order they arrived in. New
 * events that all sort after everything the chat (and the global log) already had are projected
 * as an append would project them; an event that sorts earlier replays the chat, its markers
 * first. A global event rebuilds everything.
 */
export function mergeEvents(db: Db, incoming: readonly SyncedEvent[]): MergeResult {
  const fresh = new Map<string, SyncedEvent>();
  for (const raw of incoming) {
    const row = checked(raw);
    const known = fresh.get(row.id) ?? db.get<SyncedEvent>(`SELECT ${COLUMNS} FROM events WHERE id = ?`, [row.id]);
    if (known) {
      if (!sameEvent(known, row)) throw new MergeError(`Event ${row.id} (${row.kind}) arrived with other content than the copy already here; nothing was merged.`);
      continue;
    }
    fresh.set(row.id, row);
  }
  const rows = [...fresh.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  if (rows.length === 0) return { added: 0, chats: [], everything: false };

  return db.transaction(() => {
    const chats = [...new Set(rows.map((r) => r.chat_id).filter((c): c is string => c !== null))];
    // The newest event each chat's rows already reflect, its own or a global one reaching into it.
    const reached = new Map(
      chats.map((chatId) => [chatId, db.get<{ id: string | null }>('SELECT max(id) AS id FROM events WHERE chat_id = ? OR chat_id IS NULL', [chatId])?.id ?? '']),
    );
    const seqs = new Map<string, number>();
    for (const row of rows) {
      if (row.command_id !== null && db.get('SELECT 1 AS x FROM events WHERE command_id = ?', [row.command_id])) {
        throw new MergeError(`Event ${row.id} (${row.kind}) repeats the command id of another event; nothing was merged.`);
      }
      seqs.set(row.id, db.insert(`INSERT INTO events (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [row.id, row.device_id, row.ts, row.kind, row.chat_id, row.payload, row.cause_id, row.command_id]));
    }
    const present = (id: string) => db.get('SELECT 1 AS x FROM events WHERE id = ?', [id]) !== undefined;
    for (const row of rows) {
      if (row.cause_id !== null && !present(row.cause_id)) throw new MergeError(`Event ${row.id} (${row.kind}) was caused by event ${row.cause_id}, which has not arrived; nothing was merged.`);
      for (const ref of definitionOf(row.kind)?.refersTo?.(JSON.parse(row.payload) as never) ?? []) {
        if (!present(ref)) throw new MergeError(`Event ${row.id} (${row.kind}) refers to event ${ref}, which has not arrived; nothing was merged.`);
      }
    }

    if (rows.some((r) => r.chat_id === null)) {
      rebuild(db);
      return { added: rows.length, chats, everything: true };
    }
    for (const chatId of chats) {
      const own = rows.filter((r) => r.chat_id === chatId);
      if (own[0]!.id > reached.get(chatId)!) {
        // After everything here: projected as if appended, markers and all.
        const remarked: number[] = [];
        for (const row of own) {
          const event = fromRow({ ...row, seq: seqs.get(row.id)! } as EventRow);
          const def = definitionOf(row.kind)!;
          const marked = def.marks?.(db, event) ?? [];
          project(db, def, event);
          if (marked.length > 0) remarked.push(...marked, event.seq);
        }
        if (remarked.length > 0) rebuildAfterMarking(db, remarked);
      } else {
        remarkChat(db, chatId);
        rebuildChat(db, chatId);
      }
    }
    return { added: rows.length, chats, everything: false };
  });
}
