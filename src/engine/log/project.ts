import type { Db } from '../db/port.ts';
import type { EventDefinition, LoggedEvent } from '../events/define.ts';
import { journaled } from './journal.ts';
import { applyProjection } from '../events/value-changes.ts';

/**
 * Runs one event's projection, plus the bookkeeping every chat event shares, with its writes to
 * chat rows journaled so they can be undone from the tail.
 */
export function project(db: Db, def: EventDefinition, event: LoggedEvent): void {
  journaled(db, event.seq, () => {
    applyProjection(db, def, event);
    if (event.chatId) db.run('UPDATE chats SET last_seq = ? WHERE id = ?', [event.seq, event.chatId]);
  });
}

/** A global event's effect on one chat's rows (a bot reset), journaled like a projection. */
export function projectIntoChat(db: Db, def: EventDefinition, event: LoggedEvent, chatId: string): void {
  journaled(db, event.seq, () => def.applyToChat?.(db, event, chatId));
}

