import { z } from 'zod';
import { defineEvent } from '../events/define.ts';
import { fictionTime, requiredText, uuid } from '../events/fields.ts';
import { defineTrackedValue, trackedKey } from './tracked-value.ts';
import type { ValueChange } from '../events/define.ts';

/** What a thread is: something said that the story owes an answer to. */
export const THREAD_KINDS = ['promise', 'quest', 'secret', 'question'] as const;
export type ThreadKind = (typeof THREAD_KINDS)[number];
export const THREAD_STATUSES = ['open', 'resolved'] as const;
export const THREAD_TEXT = 300;

/** A thread opened: by the analysis of a reply, or by the player in the drawer. */
export const threadOpened = defineEvent({
  kind: 'thread_opened',
  writes: ['threads'],
  scope: 'chat',
  schema: z.object({ threadId: uuid, kind: z.enum(THREAD_KINDS), text: requiredText(THREAD_TEXT), fictionTime }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `INSERT INTO threads (chat_id, id, kind, text, status, opened_seq, opened_fiction_time) VALUES (?, ?, ?, ?, 'open', ?, ?)
       ON CONFLICT (chat_id, id) DO NOTHING`,
      [chatId, p.threadId, p.kind, p.text, seq, p.fictionTime],
    );
  },
  changes: (p): ValueChange[] => [{ target: trackedKey('thread', p.threadId), field: 'status', how: 'create', value: 'open' }],
  without: () => null,
});

/** A thread the story settled (a promise kept or broken, a question answered). */
export const threadResolved = defineEvent({
  kind: 'thread_resolved',
  writes: ['threads'],
  scope: 'chat',
  schema: z.object({ threadId: uuid, fictionTime }),
  apply(db, { seq, chatId, payload: p }) {
    db.run("UPDATE threads SET status = 'resolved', resolved_seq = ?, resolved_fiction_time = ? WHERE chat_id = ? AND id = ?", [seq, p.fictionTime, chatId, p.threadId]);
  },
  changes: (p): ValueChange[] => [{ target: trackedKey('thread', p.threadId), field: 'status', how: 'set', value: 'resolved' }],
  without: () => null,
});

/**
 * The story's open threads (issue 33, part 3): shown and edited in the drawer (their words, their
 * kind, open or resolved), told to the narrator at the SHOULD tier while open, in the recap.
 */
export const threads = defineTrackedValue({
  target: 'thread',
  table: 'threads',
  chatColumn: 'chat_id',
  key: { id: { column: 'id', schema: uuid } },
  fields: {
    text: { column: 'text', schema: requiredText(THREAD_TEXT) },
    kind: { column: 'kind', schema: z.enum(THREAD_KINDS) },
    status: { column: 'status', schema: z.enum(THREAD_STATUSES) },
  },
  clearedByHostReset: true,
  events: [threadOpened, threadResolved],
});

export interface Thread {
  id: string;
  kind: ThreadKind;
  text: string;
  status: (typeof THREAD_STATUSES)[number];
  openedFictionTime: string;
}
