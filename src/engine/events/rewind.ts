import { z } from 'zod';
import { defineEvent } from './define.ts';

/**
 * Rewind and its undo change no projected table themselves: the command that appends them sets or
 * clears the `hidden_by` markers in the log and rebuilds. Keeping them as events records why a
 * stretch of story is hidden, and lets an undo name the rewind it reverses.
 */
export const chatRewound = defineEvent({
  kind: 'chat_rewound',
  writes: [],
  scope: 'chat',
  schema: z.object({ fromSeq: z.number().int().min(1) }),
  apply() {},
});

export const rewindUndone = defineEvent({
  kind: 'rewind_undone',
  writes: [],
  scope: 'chat',
  schema: z.object({ rewindSeq: z.number().int().min(1) }),
  apply() {},
});
