import { z } from 'zod';
import { defineCommand, id } from '../call.ts';
import type { LogContext } from '../log/context.ts';
import { appendEvents } from '../log/append.ts';
import { command } from '../log/command.ts';
import { CommandRejectedError } from '../log/errors.ts';
import { idOfSeq } from '../log/visibility.ts';
import { readSettings } from '../settings/settings.ts';
import { parseUserText } from './parse.ts';

interface EditableRow {
  seq: number;
  role: 'user' | 'assistant';
  status: string;
  text: string;
  finished_seq: number | null;
  hidden: number;
}

function editable({ db }: LogContext, chatId: string, turnId: string): EditableRow {
  const row = db.get<EditableRow>('SELECT seq, role, status, text, finished_seq, hidden FROM transcript WHERE turn_key = id_key(?) AND chat_id = ?', [turnId, chatId]);
  if (!row) throw new CommandRejectedError('That turn is not in this chat (it may have been rewound away).');
  if (row.status === 'streaming') throw new CommandRejectedError('That reply is still being written. Wait for it or press Stop.');
  return row;
}

const isLatest = ({ db }: LogContext, chatId: string, seq: number) =>
  db.get<{ seq: number }>('SELECT max(seq) AS seq FROM transcript WHERE chat_id = ? AND hidden = 0', [chatId])?.seq === seq;

/** "Edit" and "Delete" on a turn: both are events, and the original stays in the log. */
export const turnEditCalls = {
  /**
   * Rewrites a turn. Your words are parsed again (dialogue, action, out of character); the latest
   * reply's analysis is redone on its new text; an older turn's effects on the story stay.
   */
  editTurn: defineCommand({
    args: z.tuple([id, id, z.string().max(100_000)]),
    rebuilds: true,
    run(ctx, chatId: string, turnId: string, text: string): void {
      const { db } = ctx;
      command(ctx, ctx.commandId, (stampFirst) => {
        const row = editable(ctx, chatId, turnId);
        const next = text.trim();
        if (row.role === 'user' && !next) throw new CommandRejectedError('A message cannot be empty: delete it instead.');
        if (next === row.text) return;
        const segments = row.role === 'user' ? parseUserText(next, { oocMarker: readSettings(db).oocMarker }) : null;
        const analysisOf = row.role === 'assistant' && row.finished_seq !== null && isLatest(ctx, chatId, row.seq) ? idOfSeq(db, row.finished_seq) : undefined;
        appendEvents(ctx, stampFirst([{ kind: 'turn_edited', chatId, payload: { turnId, text: next, segments, ...(analysisOf ? { analysisOf } : {}) } }]));
      }, () => undefined);
    },
  }),

  /** "Delete" (hidden) and its undo: the turn leaves the transcript and the prompt; what it caused stays. */
  setTurnHidden: defineCommand({
    args: z.tuple([id, id, z.boolean()]),
    run(ctx, chatId: string, turnId: string, hidden: boolean): void {
      command(ctx, ctx.commandId, (stampFirst) => {
        const row = editable(ctx, chatId, turnId);
        if ((row.hidden === 1) === hidden) return;
        appendEvents(ctx, stampFirst([{ kind: 'turn_hidden', chatId, payload: { turnId, hidden } }]));
      }, () => undefined);
    },
  }),
};
