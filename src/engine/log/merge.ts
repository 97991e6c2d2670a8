import type { Db } from '../db/port.ts';
import { definitionOf } from '../events/registry.ts';
import { checkedEvent } from './backup.ts';
import type { BackupEvent } from './backup-event.ts';
import { project } from './project.ts';
import { noteServerCopies, purgeCheck, purgedSoFar, removePurgedEvents } from './purges.ts';
import { rescueUnsyncedChats } from './purge-rescue.ts';
import { rebuild, rebuildAfterMarking, rebuildChat, remarkChat } from './rebuild.ts';
import { inheritFromCause } from './visibility.ts';
import { fromRow, TRAVELLING_COLUMNS as COLUMNS, type EventRow } from './row.ts';
import { tailAfter, writeInIdOrder } from './id-order.ts';
import { compareIds } from '../ids.ts';

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
  /** Events held back until what they name arrives. */
  waiting: number;
}

/**
 * Splits arriving events into those that can join the log now and those that must wait: an event
 * naming a cause or another event that is neither in the log nor ready to join it waits (in
 * `sync_waiting`, merged with a later batch). A server need not hand events out in the order they
 * were written: a clustered CouchDB merges its shards' feeds as they come.
 */
function readyToMerge(db: Db, arriving: readonly SyncedEvent[]): { ready: SyncedEvent[]; waiting: SyncedEvent[] } {
  const byId = new Map(arriving.map((e) => [e.id, e]));
  const inLog = (id: string) => db.get('SELECT 1 AS x FROM event_rows WHERE id = id_key(?)', [id]) !== undefined;
  const verdict = new Map<string, boolean>();
  const ready = (event: SyncedEvent, trail: Set<string>): boolean => {
    const known = verdict.get(event.id);
    if (known !== undefined) return known;
    if (trail.has(event.id)) return false;
    trail.add(event.id);
    const names = [...(event.cause_id === null ? [] : [event.cause_id]), ...(definitionOf(event.kind)?.refersTo?.(JSON.parse(event.payload) as never) ?? [])];
    const ok = names.every((id) => (byId.has(id) ? ready(byId.get(id)!, trail) : inLog(id)));
    verdict.set(event.id, ok);
    return ok;
  };
  const result = { ready: [] as SyncedEvent[], waiting: [] as SyncedEvent[] };
  for (const event of arriving) (ready(event, new Set()) ? result.ready : result.waiting).push(event);
  return result;
}


const sameEvent = (a: SyncedEvent, b: SyncedEvent) =>
  a.device_id === b.device_id && a.ts === b.ts && a.kind === b.kind && a.chat_id === b.chat_id && a.payload === b.payload && a.cause_id === b.cause_id && a.command_id === b.command_id;

/**
 * Merges events written elsewhere (another device, through sync) into this log: a union. An event
 * already here is skipped, so receiving twice changes nothing; one that arrives under a known id
 * with other content is refused, because an id names one event forever. Every event is checked
 * against its kind's schema and every reference must resolve before anything is written; a bad
 * batch changes nothing and says which event is wrong.
 *
 * A chat's rows are a function of its events in id order, whatever order they arrived in. Events
 * that all sort after everything here (live sync) are projected as an append would project them.
 * One that sorts earlier moves the events here that sort after it: they are written again after it
 * under new local seqs (never reused ones), so local seq order is always id order, the same on
 * every device; the chats touched are then replayed, markers first, or everything is rebuilt when a
 * global event is among them. (Arriving after everything, a global event is projected as appended.)
 */
export function mergeEvents(db: Db, incoming: readonly SyncedEvent[]): MergeResult {
  const fresh = new Map<string, SyncedEvent>();
  const waitingBefore = db.all<{ event: string }>('SELECT event FROM sync_waiting').map((r) => JSON.parse(r.event) as SyncedEvent);
  for (const raw of [...waitingBefore, ...incoming]) {
    const row = checkedEvent(raw, `Event ${String(raw.id).slice(0, 40)} (${String(raw.kind).slice(0, 60)})`, (message) => new MergeError(message));
    const known = fresh.get(row.id) ?? db.get<SyncedEvent>(`SELECT ${COLUMNS} FROM events WHERE event_key = id_key(?)`, [row.id]);
    if (known) {
      if (!sameEvent(known, row)) throw new MergeError(`Event ${row.id} (${row.kind}) arrived with other content than the copy already here; nothing was merged.`);
      continue;
    }
    fresh.set(row.id, row);
  }
  const arriving = [...fresh.values()];
  const purged = purgedSoFar(db, arriving);
  const newPurges = arriving.some((e) => e.kind === 'purged');
  // What a purge (here or arriving) removed never enters the log; the server is told to let it go.
  const isPurged = purgeCheck(db, purged, arriving);
  const removed = new Set(arriving.filter(isPurged).map((e) => e.id));
  // A chat taken with its purged bot is remembered, for its events that come in later pages.
  const removedChats = arriving.filter((e) => e.kind === 'chat_created' && removed.has(e.id) && !purged.chats.has(e.chat_id!)).map((e) => e.chat_id!);
  for (const e of arriving) if (e.chat_id !== null && removedChats.includes(e.chat_id)) removed.add(e.id);
  const { ready, waiting } = readyToMerge(db, arriving.filter((e) => !removed.has(e.id)));
  const rows = ready.sort((a, b) => compareIds(a.id, b.id));
  // Another device's Delete forever: work here it never received is copied aside first, while the
  // chats' rows still stand as shown, for the player to keep or let go.
  const keepWaiting = () => {
    if (newPurges) rescueUnsyncedChats(db, purged, arriving.filter((e) => e.kind === 'purged'));
    if (waitingBefore.length > 0) db.run('DELETE FROM sync_waiting');
    for (const e of waiting) db.run('INSERT INTO sync_waiting (id, event) VALUES (?, ?)', [e.id, JSON.stringify(e)]);
    for (const chatId of removedChats) db.run('INSERT INTO purged_chats (chat_id) VALUES (?) ON CONFLICT DO NOTHING', [chatId]);
    noteServerCopies(db, [...removed]);
  };
  // A chat found to be hosted by a purged bot may have events here that came before its creation did.
  const strays = removedChats.some((chatId) => db.get('SELECT 1 AS x FROM events WHERE chat_id = ?', [chatId]));
  const removeHere = () => {
    for (const chatId of removedChats) purged.chats.add(chatId);
    removePurgedEvents(db, purged, true);
    rebuild(db);
  };
  if (rows.length === 0) {
    db.transaction(() => {
      keepWaiting();
      if (strays) removeHere();
    });
    return { added: 0, chats: [], everything: strays, waiting: waiting.length };
  }

  return db.transaction(() => {
    keepWaiting();
    for (const row of rows) {
      if (row.command_id !== null && db.get('SELECT 1 AS x FROM event_rows WHERE command_id = id_key(?)', [row.command_id])) {
        throw new MergeError(`Event ${row.id} (${row.kind}) repeats the command id of another event; nothing was merged.`);
      }
    }
    // Events here that sort after the earliest arrival are written again after it, under new local
    // seqs: seq order stays id order, so every list kept in seq order reads alike on every device.
    const { written, seqs, moved } = writeInIdOrder(db, tailAfter(db, rows[0]!.id), rows);
    const chats = [...new Set(written.map((r) => r.chat_id).filter((c): c is string => c !== null))];
    if (newPurges || strays) {
      // Another device purged: what it removed goes here too (rare enough to rebuild for).
      removeHere();
      return { added: rows.length, chats, everything: true, waiting: waiting.length };
    }
    if (moved > 0) {
      if (written.some((r) => r.chat_id === null)) {
        rebuild(db);
        return { added: rows.length, chats, everything: true, waiting: waiting.length };
      }
      for (const chatId of chats) {
        remarkChat(db, chatId);
        rebuildChat(db, chatId);
      }
      return { added: rows.length, chats, everything: false, waiting: waiting.length };
    }
    // Everything arrived after everything here: projected as if appended, markers and all.
    const remarked: number[] = [];
    for (const row of rows) {
      const event = fromRow({ ...row, seq: seqs.get(row.id)! } as EventRow);
      const def = definitionOf(row.kind)!;
      const marked = def.marks?.(db, event) ?? [];
      if (!inheritFromCause(db, event)) project(db, def, event);
      if (marked.length > 0) remarked.push(...marked, event.seq);
    }
    if (remarked.length > 0) rebuildAfterMarking(db, remarked);
    return { added: rows.length, chats, everything: false, waiting: waiting.length };
  });
}
