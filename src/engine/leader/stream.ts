/**
 * A streaming reply as every tab sees it, in order: reply deltas; thinking deltas (`moved`: the
 * reply's last `text` was thinking all along, and moves there); how long it thought, once the
 * reply begins; then the end.
 */
export type StreamMessage =
  | { turnId: string; type: 'delta'; text: string }
  | { turnId: string; type: 'thinking'; text: string; moved?: true }
  | { turnId: string; type: 'thought'; ms: number }
  | { turnId: string; type: 'end' };

/** The topic a chat's reply streams on, from the leader to every tab. */
export const streamTopic = (chatId: string) => `stream:${chatId}`;

/** The topic the leader publishes the sync status on (`SyncStatus` in messages). */
export const SYNC_TOPIC = 'sync';

/** The search indexes catching up with a backlog (a migration's re-index, a large import): how many rows still wait. */
export const SEARCH_INDEX_TOPIC = 'search-index';
export interface SearchIndexProgress {
  waiting: number;
}

/** The topic an import's progress goes out on, for the tab that started it (`{ done, total }` in messages). */
export const importTopic = (progressId: string) => `import:${progressId}`;
