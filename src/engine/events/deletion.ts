import { forgetMarks } from '../log/visibility.ts';
import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { defineEvent } from './define.ts';
import { uuid } from './fields.ts';
import { CHAT_COLUMN, chatKeyOf, storedTable } from './tables.ts';

/**
 * Deleting only marks: the events stay, "Recently deleted" lists the chat or bot for 30 days, and
 * restoring is another event. A chat of a deleted bot is hidden with it and comes back with it.
 */
export const chatDeleted = defineEvent({
  kind: 'chat_deleted',
  writes: ['chats'],
  scope: 'chat',
  schema: z.object({}),
  apply(db, { ts, chatId }) {
    db.run('UPDATE chats SET deleted_ts = ? WHERE id = ?', [ts, chatId]);
  },
});

export const chatRestored = defineEvent({
  kind: 'chat_restored',
  writes: ['chats'],
  scope: 'chat',
  schema: z.object({}),
  apply(db, { chatId }) {
    db.run('UPDATE chats SET deleted_ts = NULL WHERE id = ?', [chatId]);
  },
});

export const botDeleted = defineEvent({
  kind: 'bot_deleted',
  writes: ['bots'],
  scope: 'global',
  schema: z.object({ botId: uuid }),
  apply(db, { ts, payload }) {
    db.run('UPDATE bots SET deleted_ts = ? WHERE id = ?', [ts, payload.botId]);
  },
});

export const botRestored = defineEvent({
  kind: 'bot_restored',
  writes: ['bots'],
  scope: 'global',
  schema: z.object({ botId: uuid }),
  apply(db, { payload }) {
    db.run('UPDATE bots SET deleted_ts = NULL WHERE id = ?', [payload.botId]);
  },
});

/**
 * The one event that removes data, written by the purge of what was deleted long enough ago (or by
 * "Delete forever"): the chats named go with every event of theirs, and the global events named
 * (a bot's versions, resets, deletion) go too. The log's guard lets exactly those rows be deleted.
 * Replayed, it removes whatever rows of theirs a projection still holds (none, once they are gone).
 */
export const purged = defineEvent({
  kind: 'purged',
  // Every table that holds a chat's rows (forgetChat), and the global ones a purged bot leaves.
  writes: [...Object.keys(CHAT_COLUMN), 'bots', 'visibility', 'undone_changes', 'images', 'bot_cards', 'lore_entries'],
  scope: 'global',
  schema: z.object({
    chats: z.array(uuid).max(10_000),
    bots: z.array(uuid).max(10_000),
    /** Global events removed with the bots: named one by one, since they carry no chat. */
    events: z.array(z.string().max(64)).max(100_000),
    /**
     * The newest event of each device the purging device had: what another device wrote after
     * that, it never saw, and the device that wrote it keeps a copy before the purge takes it.
     */
    seen: z.record(z.string().max(64), z.string().max(64)).optional(),
  }),
  apply(db, { payload }) {
    for (const chatId of payload.chats) forgetChat(db, chatId);
    // What other stories hold of a purged bot (its feelings, its memories as a guest) goes too:
    // its reset, which had removed them, is among the events purged.
    for (const { id } of db.all<{ id: string }>('SELECT id FROM chats')) for (const botId of payload.bots) forgetBotIn(db, botId, id);
    for (const botId of payload.bots) {
      db.run('DELETE FROM bots WHERE id = ?', [botId]);
      // The card it came from and the player's edits of its lorebook go with it.
      db.run('DELETE FROM bot_cards WHERE bot_id = ?', [botId]);
      db.run('DELETE FROM lore_entries WHERE book_id = ?', [botId]);
    }
    // A picture named among the removed events is removed with them.
    for (const id of payload.events) db.run('DELETE FROM images WHERE seq = (SELECT seq FROM event_rows WHERE id = id_key(?))', [id]);
  },
  applyToChat(db, { payload }, chatId) {
    if (payload.chats.includes(chatId)) forgetChat(db, chatId);
    for (const botId of payload.bots) forgetBotIn(db, botId, chatId);
  },
});

function forgetBotIn(db: Db, botId: string, chatId: string): void {
  db.run(`DELETE FROM memory_rows WHERE owner_id = id_key(?) AND chat = ${chatKeyOf('memories', '?')}`, [botId, chatId]);
  db.run('DELETE FROM scene_summaries WHERE owner_id = ? AND chat_id = ?', [botId, chatId]);
  db.run('DELETE FROM edges WHERE chat_id = ? AND (source = ?2 OR target = ?2)', [chatId, botId]);
  db.run(`DELETE FROM edge_fact_rows WHERE chat = ${chatKeyOf('edge_facts', '?1')} AND (source = id_key(?2) OR target = id_key(?2))`, [chatId, botId]);
  db.run('DELETE FROM activity WHERE chat_id = ? AND entity = ?', [chatId, botId]);
}

function forgetChat(db: Db, chatId: string): void {
  forgetMarks(db, 'SELECT seq FROM events WHERE chat_id = ?', [chatId]);
  for (const [table, column] of Object.entries(CHAT_COLUMN)) db.run(`DELETE FROM ${storedTable(table)} WHERE ${column} = ${chatKeyOf(table, '?')}`, [chatId]);
}
