import type { Db } from '../db/port.ts';
import type { EventDraft } from '../log/draft.ts';

/** Pinned memories always reach the prompt, so they are capped per bot in each chat. */
export const PIN_CAP = 8;

export function pinnedCount(db: Db, chatId: string, ownerId: string): number {
  return db.get<{ n: number }>('SELECT count(*) AS n FROM memories WHERE chat_id = ? AND owner_key = id_key(?) AND pinned = 1', [chatId, ownerId])?.n ?? 0;
}

/** The pin that gives way when a new one would pass the cap: the oldest the engine made. Never a user's. */
export function evictableAutoPin(db: Db, chatId: string, ownerId: string): string | undefined {
  return db.get<{ id: string }>(
    'SELECT id FROM memories WHERE chat_id = ? AND owner_key = id_key(?) AND pinned = 1 AND auto_pinned = 1 ORDER BY created_seq LIMIT 1',
    [chatId, ownerId],
  )?.id;
}

/**
 * Room for one more pin: nothing to do under the cap; at the cap, the unpin of the oldest auto-pin;
 * undefined when every pin is the user's (then nothing may be evicted).
 */
export function makeRoomForPin(db: Db, chatId: string, ownerId: string): EventDraft[] | undefined {
  if (pinnedCount(db, chatId, ownerId) < PIN_CAP) return [];
  const evict = evictableAutoPin(db, chatId, ownerId);
  if (!evict) return undefined;
  return [{ kind: 'memory_pin_changed', chatId, payload: { memoryId: evict, pinned: false, auto: true } }];
}
