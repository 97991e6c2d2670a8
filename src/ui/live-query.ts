import { createResource, onCleanup, type Accessor, type Resource } from 'solid-js';
import type { LiveQueryName } from '../engine/for-ui.ts';
import type { ChangeNotice } from '../worker/protocol.ts';
import type { AppClient } from './engine-client.ts';

export interface LiveQueryScope {
  /** The query whose answer is shown: a change notice names the live queries it made stale (from what each declares it reads). */
  query: LiveQueryName;
  /** For a chat's query: only that chat's changes count. */
  chatId?: Accessor<string | undefined>;
}

/** Whether a change notice makes a live query of `scope` stale. */
export function affects(notice: ChangeNotice, scope: LiveQueryScope): boolean {
  const chat = scope.chatId?.();
  if (notice.rebuilt) return notice.chats.length === 0 || chat === undefined || notice.chats.includes(chat);
  if (!notice.queries.includes(scope.query)) return false;
  return chat === undefined || notice.chats.includes(chat) || notice.global.includes(scope.query);
}

/**
 * A Solid resource that stays true to the database: it refetches when a change notice touches a
 * table it reads (and its chat), on a seq gap, or when another tab took over. Queries off screen are disposed
 * with their component and cost nothing.
 */
export function createLiveQuery<T>(client: AppClient, scope: LiveQueryScope, fetcher: () => Promise<T>, shownFirst?: T): Resource<T> {
  const source = () => scope.chatId?.() ?? true;
  // `shownFirst` (the chat list the leader kept) is shown while the first answer is on its way.
  const [data, { refetch }] = createResource(source, () => fetcher(), shownFirst === undefined ? {} : { initialValue: shownFirst });
  const stop = client.onChange((notice) => {
    if (notice === 'everything' || affects(notice, scope)) void refetch();
  });
  onCleanup(stop);
  return data;
}
