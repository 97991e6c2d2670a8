import type { Db } from '../db/port.ts';
import type { EventDefinition, LoggedEvent } from '../events/define.ts';
import { definitionOf } from '../events/registry.ts';
import type { EventDraft } from './draft.ts';
import { EventValidationError, UnknownEventKindError } from './errors.ts';
import { EVENT_COLUMNS, fromRow, type EventRow } from './row.ts';

export interface LogContext {
  db: Db;
  now: () => number;
  newId: () => string;
}

/**
 * Appends a command's events and applies their projections in one transaction: either every event
 * is logged and projected, or nothing is. An id already in the log is refused (ids are unique);
 * re-sent commands are recognised before this, by `command()`.
 */
export function appendEvents(ctx: LogContext, drafts: readonly EventDraft[]): LoggedEvent[] {
  return ctx.db.transaction(() => {
    const appended: LoggedEvent[] = [];
    for (const draft of drafts) {
      const causeSeq = draft.causeDraft !== undefined ? appended[draft.causeDraft]?.seq : draft.causeSeq;
      if (draft.causeDraft !== undefined && causeSeq === undefined) {
        throw new Error(`causeDraft ${draft.causeDraft} of a ${draft.kind} draft names no earlier draft`);
      }
      appended.push(appendOne(ctx, draft, causeSeq ?? null));
    }
    return appended;
  });
}

/** Validates a draft against its kind's schema and scope; returns the payload to store. */
export function validateDraft(kind: string, chatId: string | null, payload: unknown): { def: EventDefinition; payload: unknown } {
  const def = definitionOf(kind);
  if (!def) throw new UnknownEventKindError(kind);
  const parsed = def.schema.safeParse(payload);
  if (!parsed.success) {
    throw new EventValidationError(
      kind,
      parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
    );
  }
  const needsChat = def.scope === 'chat' || (def.scope === 'any' && (def.needsChat?.(parsed.data) ?? false));
  if (needsChat && !chatId) {
    throw new EventValidationError(kind, [{ path: 'chatId', message: 'this event belongs to a chat and needs its id' }]);
  }
  if (def.scope === 'global' && chatId) {
    throw new EventValidationError(kind, [{ path: 'chatId', message: 'this event is global and takes no chat id' }]);
  }
  return { def, payload: parsed.data };
}

function appendOne(ctx: LogContext, draft: EventDraft, causeSeq: number | null): LoggedEvent {
  const chatId = draft.chatId ?? null;
  const { def, payload } = validateDraft(draft.kind, chatId, draft.payload);
  const id = draft.id ?? ctx.newId();
  const ts = ctx.now();
  const inserted = ctx.db.get<{ seq: number }>(
    'INSERT INTO events (id, ts, kind, chat_id, payload, cause_seq) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq',
    [id, ts, draft.kind, chatId, JSON.stringify(payload), causeSeq],
  );
  if (!inserted) throw new Error('INSERT INTO events returned no seq');
  const event: LoggedEvent = {
    seq: inserted.seq,
    id,
    ts,
    kind: draft.kind,
    chatId,
    payload,
    causeSeq,
    supersededBy: null,
    hiddenBy: null,
  };
  project(ctx.db, def, event);
  return event;
}

/** Runs one event's projection, plus the bookkeeping every chat event shares. */
export function project(db: Db, def: EventDefinition, event: LoggedEvent): void {
  def.apply(db, event);
  if (event.chatId) db.run('UPDATE chats SET last_seq = ? WHERE id = ?', [event.seq, event.chatId]);
}
