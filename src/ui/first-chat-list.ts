import { CHAT_LIST_FILE, readChatListSnapshot, type ChatListSnapshot } from '../engine/for-first-screen.ts';

/** The id of the database this browser last opened, to tell "missing" from "first run". */
export const KNOWN_DB_KEY = 'roleplay-engine/database-id';

let first: ChatListSnapshot | null = null;

/**
 * Reads the chat list the leader kept (`src/worker/chat-list-keeper.ts`) for a start on the list:
 * painted at once, it is the list as the database holds it, and the list read from the database
 * takes its place when that opens. Only a list of the database this browser last opened is taken.
 */
export async function loadFirstChatList(): Promise<void> {
  const dbId = localStorage.getItem(KNOWN_DB_KEY);
  if (!dbId || !navigator.storage?.getDirectory) return;
  try {
    const root = await navigator.storage.getDirectory();
    const file = await (await root.getFileHandle(CHAT_LIST_FILE)).getFile();
    first = readChatListSnapshot(await file.text(), dbId);
  } catch {
    // No list kept yet (a first visit, a private window): the list waits for the database.
  }
}

/** Whether the start has a list to paint before the database opens. */
export const hasFirstChatList = (): boolean => first !== null;

/** The kept list, once: a list shown again later is read from the database. */
export function takeFirstChatList(): ChatListSnapshot['chats'] | undefined {
  const chats = first?.chats;
  first = null;
  return chats;
}
