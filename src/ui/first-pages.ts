import type { TranscriptPage } from '../engine/for-ui.ts';
import type { AppClient } from './engine-client.ts';
import { affects } from './live-query.ts';

/**
 * A chat opens on its latest 20 turns (what fills a screen or two: laying out 50 long ones was a
 * fifth of opening a 10,000-turn chat). Ten would lay out ~8 ms sooner, but ten short turns leave a
 * tall screen unfilled, and loading the turns above at once moved the view off the newest reply.
 */
export const FIRST_PAGE = 20;

interface Fetched {
  page?: TranscriptPage;
}

const kept = new WeakMap<AppClient, Map<string, Fetched>>();

function keptFor(client: AppClient): Map<string, Fetched> {
  let pages = kept.get(client);
  if (!pages) {
    const fresh = new Map<string, Fetched>();
    // A page read ahead is dropped as soon as its chat's transcript changes: it is never shown stale.
    client.onChange((notice) => {
      if (notice === 'everything') return fresh.clear();
      for (const chatId of fresh.keys()) if (affects(notice, { query: 'transcript', chatId: () => chatId })) fresh.delete(chatId);
    });
    kept.set(client, (pages = fresh));
  }
  return pages;
}

/**
 * Reads a chat's first page before it is opened (the chats at the top of the list, the one under
 * the pointer), so opening it lays the story out at once instead of asking the database first.
 */
export function readAhead(client: AppClient, chatId: string): void {
  const pages = keptFor(client);
  if (pages.has(chatId)) return;
  const fetched: Fetched = {};
  pages.set(chatId, fetched);
  client.engine.transcript(chatId, { limit: FIRST_PAGE }).then(
    (page) => {
      if (pages.get(chatId) !== fetched) return;
      fetched.page = page;
      // Its turns' words rendered ahead too (in idle time; the renderer loads with them, off the list's own script).
      const texts = page.turns.filter((turn) => !turn.hidden && turn.status !== 'streaming').map((turn) => turn.text);
      void import('./chat/story-markdown.ts').then(({ renderAhead }) => renderAhead(texts));
    },
    () => pages.delete(chatId),
  );
}

/** The chat's first page if it was read ahead and nothing has changed since, once: the open's live query takes over. */
export function takeReadAhead(client: AppClient, chatId: string): TranscriptPage | undefined {
  const pages = keptFor(client);
  const page = pages.get(chatId)?.page;
  if (page) pages.delete(chatId);
  return page;
}
