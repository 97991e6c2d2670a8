import { forgetMarks } from './visibility.ts';
import type { Db } from '../db/port.ts';
import type { BackupEvent } from './backup-event.ts';
import { chatRef, withoutLogGuards } from './row.ts';
import { rareKind } from './rare-kinds.ts';

/** Global event kinds that belong to one bot (its `botId`), removed when the bot is purged. */
export const BOT_EVENT_KINDS = ['bot_authored', 'bot_reset', 'bot_deleted', 'bot_restored', 'card_kept', 'lore_entry_saved'];

/**
 * What the purges in a log removed, for good: the chats, the bots and the global events they name.
 * A purge is a rule, not only a list, so that it holds on every device: whatever another device
 * wrote in a purged chat or about a purged bot before it heard of the purge goes too, wherever
 * and whenever it arrives, and never comes back through sync.
 */
export interface Purged {
  chats: Set<string>;
  bots: Set<string>;
  events: Set<string>;
}

interface PurgePayload {
  chats: string[];
  bots: string[];
  events: string[];
}

/** The purges already in the log, with those among `arriving` (another device's). */
export function purgedSoFar(db: Db, arriving: readonly BackupEvent[] = []): Purged {
  const purged: Purged = { chats: new Set(), bots: new Set(), events: new Set() };
  for (const { chat_id } of db.all<{ chat_id: string }>('SELECT chat_id FROM purged_chats')) purged.chats.add(chat_id);
  const payloads = [
    ...db.all<{ payload: string }>(`SELECT payload FROM events WHERE kind = 'purged' AND ${rareKind()}`).map((r) => r.payload),
    ...arriving.filter((e) => e.kind === 'purged').map((e) => e.payload),
  ];
  for (const text of payloads) {
    const payload = JSON.parse(text) as PurgePayload;
    for (const id of payload.chats) purged.chats.add(id);
    for (const id of payload.bots) purged.bots.add(id);
    for (const id of payload.events) purged.events.add(id);
  }
  return purged;
}

/**
 * Whether a purge removed an event: it is named, or in a purged chat, or a chat hosted by a purged
 * bot, or one of a purged bot's own events. `arriving` are the events that come with it, where a
 * chat's creation may be found before it is in the log. Made once per batch: each chat's host is
 * looked up once.
 */
export function purgeCheck(db: Db, purged: Purged, arriving: readonly BackupEvent[] = []): (event: BackupEvent) => boolean {
  const byId = new Map(arriving.map((e) => [e.id, e]));
  const createdIn = new Map(arriving.filter((e) => e.kind === 'chat_created').map((e) => [e.chat_id!, e.payload]));
  const hosts = new Map<string, string | null>();
  const botOf = (payload: string | undefined) => (payload === undefined ? null : ((JSON.parse(payload) as { botId?: string }).botId ?? null));
  const hostOf = (chatId: string): string | null => {
    if (!hosts.has(chatId)) {
      const created = createdIn.get(chatId) ?? db.get<{ payload: string }>("SELECT payload FROM events WHERE chat_id = ? AND kind = 'chat_created'", [chatId])?.payload;
      hosts.set(chatId, botOf(created));
    }
    return hosts.get(chatId)!;
  };
  return (event) => {
    if (event.kind === 'purged') return false;
    if (purged.events.has(event.id)) return true;
    if (event.chat_id !== null) return purged.chats.has(event.chat_id) || (purged.bots.size > 0 && purged.bots.has(hostOf(event.chat_id) ?? ''));
    if (purged.bots.size === 0) return false;
    const payload = JSON.parse(event.payload) as { botId?: string; reset?: string };
    if (BOT_EVENT_KINDS.includes(event.kind)) return purged.bots.has(payload.botId ?? '');
    if (event.kind !== 'bot_reset_undone' || payload.reset === undefined) return false;
    const reset = byId.get(payload.reset)?.payload ?? db.get<{ payload: string }>('SELECT payload FROM events WHERE event_key = id_key(?)', [payload.reset])?.payload;
    return purged.bots.has(botOf(reset) ?? '');
  };
}

/**
 * Deletes every event of this log that the purges removed (`isPurged`, in SQL), with the scratch
 * state of the chats they took, and notes their ids for the sync server, which may still hold
 * copies (`sync_removals`): always for a purge that arrived through it, for one made here only on
 * a device that has synced (one that never did has no copies out there). Answers the ids. Runs
 * inside the caller's transaction; the caller brings the projections in line.
 */
export function removePurgedEvents(db: Db, purged: Purged, arrived: boolean): string[] {
  const bots = JSON.stringify([...purged.bots]);
  const hosted = db
    .all<{ c: string }>(`SELECT chat_id AS c FROM events WHERE kind = 'chat_created' AND ${rareKind()} AND json_extract(payload, '$.botId') IN (SELECT value FROM json_each(?))`, [bots])
    .map((r) => r.c);
  const chats = JSON.stringify([...purged.chats, ...hosted]);
  const ids = db
    .all<{ id: string }>(
      `SELECT id FROM events WHERE kind <> 'purged' AND (
         chat_ref IN (SELECT ref FROM chat_refs WHERE id IN (SELECT value FROM json_each(?1))) OR event_key IN (SELECT id_key(value) FROM json_each(?2))
         OR (chat_ref IS NULL AND ${rareKind()} AND kind IN (SELECT value FROM json_each(?3)) AND json_extract(payload, '$.botId') IN (SELECT value FROM json_each(?4)))
         OR (kind = 'bot_reset_undone' AND ${rareKind()} AND json_extract(payload, '$.reset') IN
           (SELECT r.id FROM events r WHERE r.kind = 'bot_reset' AND ${rareKind('r')} AND json_extract(r.payload, '$.botId') IN (SELECT value FROM json_each(?4)))))`,
      [chats, JSON.stringify([...purged.events]), JSON.stringify(BOT_EVENT_KINDS), bots],
    )
    .map((r) => r.id);
  if (ids.length === 0) return [];
  const list = JSON.stringify(ids);
  if (arrived || db.get('SELECT 1 AS x FROM sync_state LIMIT 1')) noteServerCopies(db, ids);
  // A chat taken with its bot that no purge may name: its events arriving later from another device go too.
  db.run('INSERT INTO purged_chats (chat_id) SELECT value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING', [JSON.stringify(hosted)]);
  // What they hid goes with them (a purged bot's reset and its undo are both among them).
  forgetMarks(db, 'SELECT seq FROM event_rows WHERE id IN (SELECT id_key(value) FROM json_each(?))', [list]);
  withoutLogGuards(db, () => db.run('DELETE FROM event_rows WHERE id IN (SELECT id_key(value) FROM json_each(?))', [list]));
  db.run(`DELETE FROM projection_journal WHERE chat IN (SELECT ${chatRef('value')} FROM json_each(?))`, [chats]);
  for (const table of ['journal_horizon', 'stream_checkpoints']) {
    db.run(`DELETE FROM ${table} WHERE chat_id IN (SELECT value FROM json_each(?))`, [chats]);
  }
  return ids;
}

/** Notes ids of events that arrived from the sync server but were purged here: the server is to let go of them too. */
export function noteServerCopies(db: Db, ids: readonly string[]): void {
  if (ids.length > 0) db.run('INSERT INTO sync_removals (id) SELECT value FROM json_each(?) WHERE true ON CONFLICT (id) DO NOTHING', [JSON.stringify(ids)]);
}
