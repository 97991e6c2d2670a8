import { z } from 'zod';
import { defineCommand, defineQuery, id, none } from '../call.ts';
import type { LogContext } from '../log/context.ts';
import { appendEvents } from '../log/append.ts';
import { command, type StampFirst } from '../log/command.ts';
import { CommandRejectedError } from '../log/errors.ts';
import { BOT_EVENT_KINDS, removePurgedEvents } from '../log/purges.ts';
import { rareKind } from '../log/rare-kinds.ts';

/** How long a deleted chat or bot can be brought back before it is purged. */
export const KEPT_DELETED_MS = 30 * 24 * 60 * 60 * 1000;


export interface DeletedChat {
  id: string;
  title: string;
  botName: string | null;
  deletedTs: number;
  /** When the purge takes it for good (ms). */
  purgeTs: number;
}
export interface DeletedBot {
  id: string;
  name: string;
  /** The chats it hosts, which went and come back with it. */
  chats: number;
  deletedTs: number;
  purgeTs: number;
}

const nothing = () => undefined;
const chatRow = ({ db }: LogContext, chatId: string) => db.get<{ deleted_ts: number | null }>('SELECT deleted_ts FROM chats WHERE id = ?', [chatId]);
const botRow = ({ db }: LogContext, botId: string) => db.get<{ deleted_ts: number | null }>('SELECT deleted_ts FROM bots WHERE id = ?', [botId]);

/** Appends the purge and removes exactly what it names, in one transaction. */
function purge(ctx: LogContext, chatIds: readonly string[], botIds: readonly string[], stampFirst: StampFirst = (d) => [...d]): void {
  const { db } = ctx;
  const hosted = botIds.length
    ? db.all<{ id: string }>(`SELECT id FROM chats WHERE bot_id IN (${botIds.map(() => '?').join(', ')})`, [...botIds]).map((r) => r.id)
    : [];
  const chats = [...new Set([...chatIds, ...hosted])];
  const events = botIds.length
    ? db
        .all<{ id: string }>(
          `SELECT e.id FROM events e WHERE e.chat_id IS NULL AND (
             (e.kind IN (${BOT_EVENT_KINDS.map(() => '?').join(', ')}) AND ${rareKind('e')} AND json_extract(e.payload, '$.botId') IN (${botIds.map(() => '?').join(', ')}))
             OR (e.kind = 'bot_reset_undone' AND ${rareKind('e')} AND json_extract(e.payload, '$.reset') IN
               (SELECT r.id FROM events r WHERE r.kind = 'bot_reset' AND ${rareKind('r')} AND json_extract(r.payload, '$.botId') IN (${botIds.map(() => '?').join(', ')}))))`,
          [...BOT_EVENT_KINDS, ...botIds, ...botIds],
        )
        .map((r) => r.id)
    : [];
  // The pictures only what is purged wears go too (a bot's face and background, a chat's chosen
  // background), unless you, a bot that stays or a chat that stays still wears one of them.
  const goneChats = new Set(chats);
  const goneBots = new Set(events);
  const worn = db.all<{ id: string; chat_id: string | null; avatar: string | null; background: string | null }>(
    `SELECT id, chat_id, json_extract(payload, '$.avatar') AS avatar, json_extract(payload, '$.background') AS background FROM events
     WHERE ${rareKind()} AND ((kind IN ('bot_authored', 'you_authored') AND chat_id IS NULL) OR kind = 'chat_background_set')`,
  );
  const purgedHere = (r: { id: string; chat_id: string | null }) => (r.chat_id === null ? goneBots.has(r.id) : goneChats.has(r.chat_id));
  const pictures = (r: { avatar: string | null; background: string | null }) => [r.avatar, r.background].filter((h): h is string => h !== null && h.length === 64);
  const theirs = new Set(worn.filter(purgedHere).flatMap(pictures));
  for (const r of worn) if (!purgedHere(r)) for (const hash of pictures(r)) theirs.delete(hash);
  for (const hash of theirs) {
    const image = db.get<{ id: string }>(`SELECT id FROM events WHERE kind = 'image_added' AND ${rareKind()} AND json_extract(payload, '$.hash') = ?`, [hash]);
    if (image) events.push(image.id);
  }
  // What this device had of every device's writing: a device that wrote later in these chats keeps a copy (log/purge-rescue.ts).
  const seen = Object.fromEntries(db.all<{ device_id: string; id: string }>('SELECT device_id, id_text(max(event_key)) AS id FROM events GROUP BY device_id').map((r) => [r.device_id, r.id]));
  appendEvents(ctx, stampFirst([{ kind: 'purged', payload: { chats, bots: [...botIds], events, seen } }]));
  // The same rule removes them here and on every device the purge reaches (log/purges.ts).
  removePurgedEvents(db, { chats: new Set(chats), bots: new Set(botIds), events: new Set(events) }, false);
}

/** Purges what was deleted more than 30 days ago; run when a tab starts leading. Answers whether anything went. */
export function purgeExpired(ctx: LogContext): boolean {
  const { db } = ctx;
  return db.transaction(() => {
    const before = ctx.now() - KEPT_DELETED_MS;
    const chats = db.all<{ id: string }>('SELECT id FROM chats WHERE deleted_ts IS NOT NULL AND deleted_ts < ?', [before]).map((r) => r.id);
    const bots = db.all<{ id: string }>('SELECT id FROM bots WHERE deleted_ts IS NOT NULL AND deleted_ts < ?', [before]).map((r) => r.id);
    if (chats.length === 0 && bots.length === 0) return false;
    purge(ctx, chats, bots);
    return true;
  });
}

/**
 * Delete and restore chats and bots, and the purge. Deleting marks (the events stay); only a purge,
 * itself a logged event, removes data: what was deleted more than 30 days ago, or at once when the
 * player says "Delete forever".
 */
export const deletionCalls = {
  deleteChat: defineCommand({
    args: z.tuple([id]),
    run(ctx, chatId: string): void {
      command(ctx, ctx.commandId, (stampFirst) => {
        const row = chatRow(ctx, chatId);
        if (!row) throw new CommandRejectedError('That chat no longer exists.');
        if (row.deleted_ts !== null) return;
        appendEvents(ctx, stampFirst([{ kind: 'chat_deleted', chatId, payload: {} }]));
      }, nothing);
    },
  }),

  restoreChat: defineCommand({
    args: z.tuple([id]),
    run(ctx, chatId: string): void {
      command(ctx, ctx.commandId, (stampFirst) => {
        const row = chatRow(ctx, chatId);
        if (!row) throw new CommandRejectedError('That chat was deleted for good: it cannot come back.');
        if (row.deleted_ts === null) return;
        appendEvents(ctx, stampFirst([{ kind: 'chat_restored', chatId, payload: {} }]));
      }, nothing);
    },
  }),

  deleteBot: defineCommand({
    args: z.tuple([id]),
    run(ctx, botId: string): void {
      command(ctx, ctx.commandId, (stampFirst) => {
        const row = botRow(ctx, botId);
        if (!row) throw new CommandRejectedError('That bot no longer exists.');
        if (row.deleted_ts !== null) return;
        appendEvents(ctx, stampFirst([{ kind: 'bot_deleted', payload: { botId } }]));
      }, nothing);
    },
  }),

  restoreBot: defineCommand({
    args: z.tuple([id]),
    run(ctx, botId: string): void {
      command(ctx, ctx.commandId, (stampFirst) => {
        const row = botRow(ctx, botId);
        if (!row) throw new CommandRejectedError('That bot was deleted for good: it cannot come back.');
        if (row.deleted_ts === null) return;
        appendEvents(ctx, stampFirst([{ kind: 'bot_restored', payload: { botId } }]));
      }, nothing);
    },
  }),

  /** "Delete forever" in Recently deleted: only what is deleted already can be purged. */
  purgeNow: defineCommand({
    args: z.tuple([z.object({ chatId: id.optional(), botId: id.optional() })]),
    rebuilds: true,
    run(ctx, target: { chatId?: string; botId?: string }): void {
      command(ctx, ctx.commandId, (stampFirst) => {
        if (target.chatId) {
          if (chatRow(ctx, target.chatId)?.deleted_ts == null) throw new CommandRejectedError('Only a deleted chat can be deleted forever.');
          purge(ctx, [target.chatId], [], stampFirst);
        } else if (target.botId) {
          if (botRow(ctx, target.botId)?.deleted_ts == null) throw new CommandRejectedError('Only a deleted bot can be deleted forever.');
          purge(ctx, [], [target.botId], stampFirst);
        }
      }, nothing);
    },
  }),

  /** "Recently deleted": what can still be brought back, newest first, with when it goes for good. */
  recentlyDeleted: defineQuery({
    args: none,
    reads: ['chats', 'bots'],
    run(ctx): { chats: DeletedChat[]; bots: DeletedBot[] } {
      const { db } = ctx;
      const chats = db
        .all<{ id: string; title: string; bot_name: string | null; deleted_ts: number }>(
          `SELECT c.id, c.title, b.name AS bot_name, c.deleted_ts FROM chats c LEFT JOIN bots b ON b.id = c.bot_id
           WHERE c.deleted_ts IS NOT NULL ORDER BY c.deleted_ts DESC`,
        )
        .map((r) => ({ id: r.id, title: r.title, botName: r.bot_name, deletedTs: r.deleted_ts, purgeTs: r.deleted_ts + KEPT_DELETED_MS }));
      const bots = db
        .all<{ id: string; name: string; chats: number; deleted_ts: number }>(
          `SELECT b.id, b.name, b.deleted_ts, (SELECT count(*) FROM chats c WHERE c.bot_id = b.id) AS chats FROM bots b
           WHERE b.deleted_ts IS NOT NULL ORDER BY b.deleted_ts DESC`,
        )
        .map((r) => ({ id: r.id, name: r.name, chats: r.chats, deletedTs: r.deleted_ts, purgeTs: r.deleted_ts + KEPT_DELETED_MS }));
      return { chats, bots };
    },
  }),
};
