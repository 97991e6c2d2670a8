import { z } from 'zod';
import { defineCommand, id, seq } from '../call.ts';
import { appendEvents } from '../log/append.ts';
import { command } from '../log/command.ts';
import { copyChat } from '../log/copy-chat.ts';
import type { EventDraft } from '../log/draft.ts';
import { CommandRejectedError } from '../log/errors.ts';
import { VISIBLE } from '../log/visibility.ts';
import { seqFromId } from '../log/row.ts';
import { rareKind } from '../log/rare-kinds.ts';

/**
 * "Branch from here": a new chat whose story is this one up to and including a turn, with its state
 * exactly as it was then. The visible events up to that turn are written again under the new chat
 * (`copyChat`, in SQL: a 10,000-turn story branches in well under a second), keeping the ids of the
 * turns, memories, scenes and places they made, so the two stories share their history's names
 * but never a row. Those turns read as the player sees them now (later edits and deletions of them
 * come along); the story state is as it was at that turn. The bots and you are shared. The original
 * is untouched.
 */
export const branchCalls = {
  branchChat: defineCommand({
    args: z.tuple([id, seq]),
    run(ctx, chatId: string, atSeq: number): string {
      const { db } = ctx;
      return command(
        ctx,
        ctx.commandId,
        () => {
          const chat = db.get<{ title: string; bot_id: string }>('SELECT title, bot_id FROM chats WHERE id = ?', [chatId]);
          if (!chat) throw new CommandRejectedError('That chat does not exist.');
          const at = db.get<{ seq: number }>('SELECT seq FROM transcript WHERE chat_id = ? AND seq = ?', [chatId, atSeq]);
          if (!at) throw new CommandRejectedError('That turn is not part of this chat as it stands.');
          if (db.get("SELECT 1 AS x FROM transcript WHERE chat_id = ? AND status = 'streaming'", [chatId])) {
            throw new CommandRejectedError('A reply is still being written. Wait for it or press Stop.');
          }
          // Everything up to the next turn: this turn, its reply's analysis, what followed it.
          const next = db.get<{ id: string; seq: number }>(
            'SELECT e.id, e.seq FROM transcript t JOIN events e ON e.seq = t.seq WHERE t.chat_id = ? AND t.seq > ? ORDER BY t.seq LIMIT 1',
            [chatId, atSeq],
          );
          // A bot reset is global: a copy written after it would bring back what it cleared. Rare;
          // refused plainly until branches share history instead of copying it.
          // Any bot the story mentions counts (its host, a guest, one it has feelings about).
          const reset = db.get<{ id: string }>(
            `SELECT r.id FROM events r WHERE r.kind = 'bot_reset' AND ${rareKind('r')} AND ${VISIBLE('r')}
               AND r.event_key > (SELECT min(event_key) FROM events WHERE chat_id = ?2) AND (?1 IS NULL OR r.event_key < id_key(?1))
               AND EXISTS (SELECT 1 FROM events e WHERE e.chat_id = ?2 AND (?1 IS NULL OR e.event_key < id_key(?1)) AND instr(e.payload, json_extract(r.payload, '$.botId')) > 0
                           UNION ALL SELECT 1 FROM chats c WHERE c.id = ?2 AND c.bot_id = json_extract(r.payload, '$.botId'))`,
            [next?.id ?? null, chatId],
          );
          if (reset) throw new CommandRejectedError('A bot in this story was reset partway through, so it cannot be branched yet.');
          const branchId = ctx.newId();
          copyChat(db, { from: chatId, to: branchId, before: next ?? null, ids: ctx.reserveIds, deviceId: ctx.deviceId(), commandId: ctx.commandId ?? null, journalTail: ctx.journalKeep });
          // What the player sees of those turns now: edits and deletions made since carry over (as
          // text only; the state stays as it was then).
          const since = db.all<{ kind: string; payload: string }>(
            `SELECT kind, json_remove(payload, '$.analysisOf') AS payload FROM events e
             WHERE chat_id = ?1 AND seq >= coalesce(${seqFromId('?2')}, (SELECT max(seq) + 1 FROM event_rows))
               AND kind IN ('turn_edited', 'turn_hidden') AND ${VISIBLE('e')}
               AND json_extract(payload, '$.turnId') IN (SELECT turn_id FROM transcript WHERE chat_id = ?3)
             ORDER BY seq`,
            [chatId, next?.id ?? null, branchId],
          );
          appendEvents(ctx, [
            ...since.map((e) => ({ kind: e.kind, chatId: branchId, payload: JSON.parse(e.payload) as unknown }) as EventDraft),
            { kind: 'manual_edit', chatId: branchId, payload: { target: { type: 'chat' }, field: 'title', prior: chat.title, value: `${chat.title} (branch)`.slice(0, 120) } },
          ]);
          return branchId;
        },
        (first) => first.chatId!,
      );
    },
  }),
};
