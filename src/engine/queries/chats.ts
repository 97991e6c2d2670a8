import type { Db } from '../db/port.ts';
import { defineQuery, none } from '../call.ts';

export interface ChatListItem {
  id: string;
  title: string;
  botId: string;
  botName: string | null;
  botAvatar: string | null;
  fictionTime: string;
  /** First line of the newest finished assistant reply, or null before the first reply. */
  lastReply: string | null;
  lastSeq: number;
}

interface ChatRow {
  id: string;
  title: string;
  bot_id: string;
  bot_name: string | null;
  bot_avatar: string | null;
  fiction_time: string;
  last_reply: string | null;
  last_seq: number;
}

const SNIPPET_LENGTH = 160;

export function firstLine(text: string): string {
  const line = text.trim().split(/\n/, 1)[0]?.trim() ?? '';
  return line.length > SNIPPET_LENGTH ? `${line.slice(0, SNIPPET_LENGTH - 1).trimEnd()}…` : line;
}

/** Every chat, newest activity first, with its bot and the first line of the last reply. */
export function listChats(db: Db): ChatListItem[] {
  return db
    .all<ChatRow>(
      `SELECT c.id, c.title, c.bot_id, b.name AS bot_name, b.avatar AS bot_avatar, s.fiction_time, c.last_seq,
         (SELECT t.text FROM transcript t
           WHERE t.chat_id = c.id AND t.role = 'assistant' AND t.status != 'streaming' AND t.text != '' AND t.hidden = 0
           ORDER BY t.seq DESC LIMIT 1) AS last_reply
       FROM chats c
       JOIN chat_state s ON s.chat_id = c.id
       LEFT JOIN bots b ON b.id = c.bot_id
       -- a deleted chat, or one whose bot was deleted, is in "Recently deleted" instead
       WHERE c.deleted_ts IS NULL AND b.deleted_ts IS NULL
       ORDER BY c.last_seq DESC`,
    )
    .map((r) => ({
      id: r.id,
      title: r.title,
      botId: r.bot_id,
      botName: r.bot_name,
      botAvatar: r.bot_avatar,
      fictionTime: r.fiction_time,
      lastReply: r.last_reply === null ? null : firstLine(r.last_reply),
      lastSeq: r.last_seq,
    }));
}

/** The seq of the last reset of the chat's host bot, or 0: the story before it is no longer told. */
export function hostResetSeq(db: Db, chatId: string): number {
  return db.get<{ seq: number | null }>('SELECT b.reset_seq AS seq FROM chats c JOIN bots b ON b.id = c.bot_id WHERE c.id = ?', [chatId])?.seq ?? 0;
}

export const chatListCalls = {
  listChats: defineQuery({ args: none, reads: ['chats', 'chat_state', 'transcript', 'bots'], run: ({ db }) => listChats(db) }),
};
