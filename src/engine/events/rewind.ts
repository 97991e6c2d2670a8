import { z } from 'zod';
import { defineEvent } from './define.ts';
import { hide, unhide } from '../log/visibility.ts';
import { eventId } from './fields.ts';

/**
 * A rewind hides the chat's story from the event `from` on (and what it caused); its undo shows it
 * again. Neither changes a story table itself: they change `visibility`, and the chat is then
 * re-projected. Keeping them as events records why a stretch of story is hidden, and lets an undo
 * name the rewind it reverses.
 */
export const chatRewound = defineEvent({
  kind: 'chat_rewound',
  writes: ['visibility'],
  scope: 'chat',
  schema: z.object({ from: eventId }),
  apply() {},
  marks: (db, event) => hide(db, event.chatId!, event.payload.from, event),
  refersTo: (payload) => [payload.from],
});

export const rewindUndone = defineEvent({
  kind: 'rewind_undone',
  writes: ['visibility'],
  scope: 'chat',
  schema: z.object({ rewind: eventId }),
  apply() {},
  marks: (db, event) => unhide(db, event.payload.rewind),
  refersTo: (payload) => [payload.rewind],
});
