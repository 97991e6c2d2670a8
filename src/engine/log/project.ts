import type { Db } from '../db/port.ts';
import type { EventDefinition, LoggedEvent } from '../events/define.ts';

/** Runs one event's projection, plus the bookkeeping every chat event shares. */
export function project(db: Db, def: EventDefinition, event: LoggedEvent): void {
  def.apply(db, event);
  if (event.chatId) db.run('UPDATE chats SET last_seq = ? WHERE id = ?', [event.seq, event.chatId]);
}
