import type { LogContext } from './log/append.ts';
import { appendEvents } from './log/append.ts';
import { command } from './log/command.ts';
import type { EventDraft } from './log/draft.ts';
import { CommandRejectedError } from './log/errors.ts';
import { EVENT_COLUMNS, fromRow, type EventRow } from './log/row.ts';
import { VISIBLE } from './log/visibility.ts';
import { isUuid } from './ids.ts';

/** Kinds whose whole effect is on visibility: a branch copies what they left shown, not them. */
const MARKERS_ONLY = new Set(['chat_rewound', 'rewind_undone', 'reply_version_chosen']);
/** Payload fields naming other events, which only mean something in the chat they were written in. */
const EVENT_REFERENCES = ['regenerateOf', 'analysisOf'];

/**
 * "Branch from here": a new chat whose story is this one up to and including a turn, with its state
 * exactly as it was then. The visible events up to that turn are written again under the new chat,
 * every id they own (turns, memories, scenes, places) made anew so the two stories never share a
 * row; the bots and you stay shared. The original is untouched.
 */
export function branchCommands(ctx: LogContext) {
  const { db } = ctx;
  return {
    branchChat(chatId: string, atSeq: number, commandId?: string): string {
      return command(
        ctx,
        commandId,
        (stampFirst) => {
          const chat = db.get<{ title: string; bot_id: string }>('SELECT title, bot_id FROM chats WHERE id = ?', [chatId]);
          if (!chat) throw new CommandRejectedError('That chat does not exist.');
          const at = db.get<{ seq: number }>('SELECT seq FROM transcript WHERE chat_id = ? AND seq = ?', [chatId, atSeq]);
          if (!at) throw new CommandRejectedError('That turn is not part of this chat as it stands.');
          if (db.get("SELECT 1 AS x FROM transcript WHERE chat_id = ? AND status = 'streaming'", [chatId])) {
            throw new CommandRejectedError('A reply is still being written. Wait for it or press Stop.');
          }
          // Everything up to the next turn: this turn, its reply's analysis, what followed it.
          const next = db.get<{ id: string }>(
            'SELECT e.id FROM transcript t JOIN events e ON e.seq = t.seq WHERE t.chat_id = ? AND t.seq > ? ORDER BY t.seq LIMIT 1',
            [chatId, atSeq],
          );
          const rows = db.all<EventRow>(
            `SELECT ${EVENT_COLUMNS} FROM events e WHERE chat_id = ? AND id < ? AND ${VISIBLE('e')} ORDER BY id`,
            [chatId, next?.id ?? '~'],
          );
          const shared = new Set(db.all<{ id: string }>('SELECT id FROM bots').map((b) => b.id));
          const branchId = ctx.newId();
          const renamed = new Map<string, string>([[chatId, branchId]]);
          const rename = (value: unknown): unknown => {
            if (typeof value === 'string') {
              if (!isUuid(value) || shared.has(value)) return value;
              let id = renamed.get(value);
              if (!id) renamed.set(value, (id = ctx.newId()));
              return id;
            }
            if (Array.isArray(value)) return value.map(rename);
            if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rename(v)]));
            return value;
          };
          // A bot reset is global: a copy written after it would bring back what it cleared. Rare;
          // refused plainly until branches share history instead of copying it.
          const reset = db.get<{ id: string }>(
            `SELECT r.id FROM events r WHERE r.kind = 'bot_reset' AND ${VISIBLE('r')} AND r.id > ?1 AND r.id < ?2
               AND json_extract(r.payload, '$.botId') IN (SELECT bot_id FROM chats WHERE id = ?3 UNION SELECT entity FROM activity WHERE chat_id = ?3)`,
            [rows[0]?.id ?? '~', next?.id ?? '~', chatId],
          );
          if (reset) throw new CommandRejectedError('A bot in this story was reset partway through, so it cannot be branched yet.');
          const draftIndex = new Map<string, number>();
          const drafts: EventDraft[] = [];
          for (const row of rows.map(fromRow)) {
            if (MARKERS_ONLY.has(row.kind)) continue;
            const payload = { ...(row.payload as Record<string, unknown>) };
            for (const field of EVENT_REFERENCES) delete payload[field];
            const cause = row.causeId === null ? undefined : draftIndex.get(row.causeId);
            draftIndex.set(row.id, drafts.length);
            drafts.push({ kind: row.kind, chatId: branchId, payload: rename(payload), ...(cause !== undefined ? { causeDraft: cause } : {}) } as EventDraft);
          }
          drafts.push({ kind: 'manual_edit', chatId: branchId, payload: { target: { type: 'chat' }, field: 'title', prior: null, value: `${chat.title} (branch)`.slice(0, 120) } });
          appendEvents(ctx, stampFirst(drafts));
          return branchId;
        },
        (first) => first.chatId!,
      );
    },
  };
}
