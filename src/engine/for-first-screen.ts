/**
 * What the first screen (the chat list) takes from the engine: constants, the story clock's words
 * and the kept chat list's reader, none of which builds a schema. Importing anything from
 * `for-ui.ts` runs every module it re-exports, zod's schemas among them (a sixth of the first
 * visit's script), so the screens a start loads import from here; `npm test` checks both
 * (dependency-cruiser, and the first visit's bundle budget).
 */
export { importTopic, SEARCH_INDEX_TOPIC, streamTopic, SYNC_TOPIC, type SearchIndexProgress } from './leader/stream.ts';
export { describeFictionTime, fictionMinutesBetween, storyTimeAgo, storyTimeSpan } from './fiction-time.ts';
export { CHAT_LIST_FILE, readChatListSnapshot, type ChatListSnapshot } from './chat-list-snapshot.ts';
export type { ChatListItem } from './queries/chats.ts';
