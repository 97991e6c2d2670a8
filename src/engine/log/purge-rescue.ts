import type { Db } from '../db/port.ts';
import { chatAsSillyTavern } from '../queries/chat-export.ts';
import type { Purged } from './purges.ts';

/** A chat another device deleted forever that held turns written here and never synced. */
export interface PurgeRescue {
  chatId: string;
  title: string;
  /** The host bot, when it is still here: a kept copy is a chat with it. */
  botId: string | null;
  botName: string | null;
  /** Turns written on this device that no other device ever received. */
  unsyncedTurns: number;
  at: number;
}

/**
 * Before a purge that arrived from another device removes chats here, keeps a copy of each that
 * holds turns written on this device that the purging device never had (played while paused or
 * offline, on either side; pushed or not): the chat
 * as shown, as a SillyTavern file, in `purge_rescues`. The purge goes through as on every device;
 * the player is told what went and may keep the copy (a new chat, or the file) or let it go.
 * Runs in the merge's transaction, while the chats' rows are still here.
 */
export function rescueUnsyncedChats(db: Db, purged: Purged, purges: readonly { ts: number; payload: string }[]): number {
  const device = db.get<{ id: string }>('SELECT id FROM database_identity LIMIT 1')?.id;
  if (!device || purges.length === 0) return 0;
  const now = Math.max(...purges.map((p) => p.ts));
  // The purging device's knowledge of this one: its newest event from here. A purge without it
  // (written before purges said) falls back to what this device never pushed.
  const seen = purges.map((p) => (JSON.parse(p.payload) as { seen?: Record<string, string> }).seen);
  const unseenSql = seen.every((s) => s !== undefined)
    ? { where: 'id > ?', value: seen.map((s) => s![device] ?? '').reduce((a, b) => (a < b ? a : b)) }
    : { where: 'seq > ?', value: db.get<{ s: number | null }>('SELECT min(pushed_seq) AS s FROM sync_state')?.s ?? 0 };
  const candidates = db.all<{ id: string; title: string; bot_id: string | null; bot_name: string | null }>(
    `SELECT c.id, c.title, c.bot_id, b.name AS bot_name FROM chats c LEFT JOIN bots b ON b.id = c.bot_id
     WHERE c.id IN (SELECT value FROM json_each(?1)) OR c.bot_id IN (SELECT value FROM json_each(?2))`,
    [JSON.stringify([...purged.chats]), JSON.stringify([...purged.bots])],
  );
  let rescued = 0;
  for (const chat of candidates) {
    const unsynced = db.get<{ n: number }>(
      `SELECT count(*) AS n FROM events WHERE chat_id = ? AND device_id = ? AND ${unseenSql.where} AND kind IN ('user_turn', 'assistant_turn')`,
      [chat.id, device, unseenSql.value],
    )!.n;
    if (unsynced === 0) continue;
    db.run(
      `INSERT INTO purge_rescues (chat_id, title, bot_id, bot_name, unsynced_turns, file, at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (chat_id) DO NOTHING`,
      [chat.id, chat.title, purged.bots.has(chat.bot_id ?? '') ? null : chat.bot_id, chat.bot_name, unsynced, chatAsSillyTavern(db, chat.id), now],
    );
    rescued++;
  }
  return rescued;
}

export function purgeRescues(db: Db): PurgeRescue[] {
  return db.all<PurgeRescue>(
    'SELECT chat_id AS chatId, title, bot_id AS botId, bot_name AS botName, unsynced_turns AS unsyncedTurns, at FROM purge_rescues ORDER BY at, chat_id',
  );
}

export function rescuedFile(db: Db, chatId: string): string | null {
  return db.get<{ file: string }>('SELECT file FROM purge_rescues WHERE chat_id = ?', [chatId])?.file ?? null;
}
