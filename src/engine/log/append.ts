import type { Db } from '../db/port.ts';
import type { EventDefinition, LoggedEvent } from '../events/define.ts';
import { definitionOf } from '../events/registry.ts';
import type { EventDraft } from './draft.ts';
import type { LogContext } from './context.ts';
import { EventValidationError, UnknownEventKindError } from './errors.ts';
import { project } from './project.ts';
import { rebuildAfterMarking } from './rebuild.ts';
import { inheritFromCause } from './visibility.ts';

/**
 * Appends a command's events and applies their projections in one transaction: either every event
 * is logged and projected, or nothing is. Every id comes from the clock, so each new event sorts
 * after every event already here. A marker event (regenerate, rewind, undo) changes what is
 * visible; the chats it touched are then re-projected before the transaction ends.
 */
export function appendEvents(ctx: LogContext, drafts: readonly EventDraft[]): LoggedEvent[] {
  return ctx.db.transaction(() => {
    const appended: LoggedEvent[] = [];
    const remarked: number[] = [];
    for (const draft of drafts) {
      const causeId = draft.causeDraft !== undefined ? appended[draft.causeDraft]?.id : draft.causeId;
      if (draft.causeDraft !== undefined && causeId === undefined) {
        throw new Error(`causeDraft ${draft.causeDraft} of a ${draft.kind} draft names no earlier draft`);
      }
      const { event, def } = insertOne(ctx, draft, causeId ?? null);
      const marked = def.marks?.(ctx.db, event) ?? [];
      if (!inheritFromCause(ctx.db, event)) project(ctx.db, def, event);
      if (marked.length > 0) remarked.push(...marked, event.seq);
      appended.push(event);
    }
    if (remarked.length > 0) rebuildAfterMarking(ctx.db, remarked);
    return appended;
  });
}

/**
 * Logs drafts without projecting them: for a whole new chat written at once (an imported chat),
 * which `projectNewChat` then projects in one pass, markers included, instead of re-projecting the
 * tail after every marker. Each draft is validated as `appendEvents` does. Must run inside the
 * transaction that projects them.
 */
export function insertEvents(ctx: LogContext, drafts: readonly EventDraft[]): LoggedEvent[] {
  const inserted: LoggedEvent[] = [];
  for (const draft of drafts) {
    const causeId = draft.causeDraft !== undefined ? inserted[draft.causeDraft]?.id : draft.causeId;
    if (draft.causeDraft !== undefined && causeId === undefined) throw new Error(`causeDraft ${draft.causeDraft} of a ${draft.kind} draft names no earlier draft`);
    inserted.push(insertOne(ctx, draft, causeId ?? null).event);
  }
  return inserted;
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

function insertOne(ctx: LogContext, draft: EventDraft, causeId: string | null): { event: LoggedEvent; def: EventDefinition } {
  const chatId = draft.chatId ?? null;
  const { def, payload } = validateDraft(draft.kind, chatId, draft.payload);
  const id = ctx.newId();
  const deviceId = ctx.deviceId();
  const ts = ctx.now();
  const commandId = draft.commandId ?? null;
  // `events` is a view (migration 0056): an insert through it leaves no rowid behind, so the seq is
  // chosen here, as SQLite would choose it.
  const seq = ctx.db.get<{ seq: number }>('SELECT coalesce(max(seq), 0) + 1 AS seq FROM event_rows')!.seq;
  ctx.db.run(
    `INSERT INTO events (seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [seq, id, deviceId, ts, draft.kind, chatId, JSON.stringify(payload), causeId, commandId],
  );
  return { def, event: { seq, id, deviceId, ts, kind: draft.kind, chatId, payload, causeId, commandId } };
}
