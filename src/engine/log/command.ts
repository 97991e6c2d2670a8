import type { LoggedEvent } from '../events/define.ts';
import type { LogContext } from './context.ts';
import type { EventDraft } from './draft.ts';
import { EVENT_COLUMNS, fromRow, type EventRow } from './row.ts';

/** Puts the command's id on its first event (`command_id`): the mark by which a re-send is recognised. */
export type StampFirst = (drafts: readonly EventDraft[]) => EventDraft[];

/**
 * The one place a command id is tied to the log. A tab makes the id once per user action and
 * re-sends it after a leader change; the command then finds its first event already in the log and
 * answers from it instead of running again. Runs in one transaction, so a command is either wholly
 * applied or not at all. A command that appends nothing (unpinning what is not pinned) leaves no
 * mark, and running it again is as harmless as the first time.
 */
export function command<R>(
  ctx: LogContext,
  commandId: string | undefined,
  run: (stampFirst: StampFirst) => R,
  answer: (first: LoggedEvent) => R,
): R {
  return ctx.db.transaction(() => {
    if (commandId !== undefined) {
      const row = ctx.db.get<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE command_key = id_key(?)`, [commandId]);
      if (row) return answer(fromRow(row));
    }
    return run((drafts) => drafts.map((d, i) => (i === 0 && commandId !== undefined ? { ...d, commandId } : d)));
  });
}
