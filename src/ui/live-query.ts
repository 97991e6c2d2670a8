import { createResource, onCleanup, type Accessor, type Resource } from 'solid-js';
import { readsOf, type LiveQueryName } from '../engine/for-ui.ts';
import type { ChangeNotice } from '../worker/protocol.ts';
import type { AppClient } from './engine-client.ts';

export interface LiveQueryScope {
  /** The query whose answer is shown: the tables it reads (declared in the API table) decide when it refetches. */
  query: LiveQueryName;
  /** For a chat's query: only that chat's changes count. */
  chatId?: Accessor<string | undefined>;
}

/** Tables of rows that belong to no chat: a change to one matters to every chat that shows it (a bot's name, its deletion). */
const GLOBAL_TABLES = ['you', 'bots', 'settings'];

function affects(notice: ChangeNotice, scope: LiveQueryScope): boolean {
  const chat = scope.chatId?.();
  if (notice.rebuilt) return notice.chats.length === 0 || chat === undefined || notice.chats.includes(chat);
  const reads = readsOf(scope.query);
  const touched = notice.tables.filter((t) => reads.includes(t));
  if (touched.length === 0) return false;
  return chat === undefined || notice.chats.includes(chat) || touched.some((t) => GLOBAL_TABLES.includes(t));
}

/**
 * A Solid resource that stays true to the database: it refetches when a change notice touches a
 * table it reads (and its chat), on a seq gap, or when another tab took over. Queries off screen are disposed
 * with their component and cost nothing.
 */
export function createLiveQuery<T>(client: AppClient, scope: LiveQueryScope, fetcher: () => Promise<T>): Resource<T> {
  const source = () => scope.chatId?.() ?? true;
  const [data, { refetch }] = createResource(source, () => fetcher());
  const stop = client.onChange((notice) => {
    if (notice === 'everything' || affects(notice, scope)) void refetch();
  });
  onCleanup(stop);
  return data;
}
