import type { ChatListItem } from './queries/chats.ts';

/**
 * The chat list as the leader last saw it, in a file of the origin's private file system beside the
 * database: what a tab starting cold paints before the database has opened. Written by the leader
 * (`chat-list-keeper.ts`), read by the page (`src/ui/first-chat-list.ts`).
 */
export const CHAT_LIST_FILE = 'roleplay-engine-chat-list.json';

export interface ChatListSnapshot {
  version: 1;
  /** The database it was read from: a list from another one is never shown. */
  dbId: string;
  chats: ChatListItem[];
}

/** Each field of a listed chat and whether it may be null: anything else makes the file unreadable. */
const CHAT_FIELDS: [keyof ChatListItem, 'string' | 'number', boolean][] = [
  ['id', 'string', false],
  ['title', 'string', false],
  ['botId', 'string', false],
  ['botName', 'string', true],
  ['botAvatar', 'string', true],
  ['fictionTime', 'string', false],
  ['lastReply', 'string', true],
  ['lastSeq', 'number', false],
];

const isChat = (v: unknown): v is ChatListItem =>
  typeof v === 'object' && v !== null && CHAT_FIELDS.every(([name, type, nullable]) => typeof (v as ChatListItem)[name] === type || (nullable && (v as ChatListItem)[name] === null));

/**
 * The file's list, or null for anything but a whole, well-formed one of `dbId`: a file cut short,
 * edited, or left by another database paints nothing, and the list waits for the database instead.
 */
export function readChatListSnapshot(text: string, dbId: string): ChatListSnapshot | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const s = parsed as Record<string, unknown>;
  if (s.version !== 1 || s.dbId !== dbId || !Array.isArray(s.chats) || !s.chats.every(isChat)) return null;
  return parsed as ChatListSnapshot;
}
