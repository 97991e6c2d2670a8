import { z } from 'zod';
import { defineEvent } from './define.ts';
import { uuid, entityRef, significance } from './fields.ts';
import { chatKeyOf } from './tables.ts';

/**
 * The background analysis of a reply is done (its edge, clock, memory and scene events sit beside
 * this one, all caused by the reply). It is what makes the job run once: a reply whose transcript
 * row has an analyzed_seq is never analysed again, whichever tab leads.
 */
export const turnAnalyzed = defineEvent({
  kind: 'turn_analyzed',
  writes: ['transcript'],
  scope: 'chat',
  schema: z.object({
    turnId: uuid,
    /** False when every classifier model failed and the defaults were used. */
    ok: z.boolean(),
    model: z.string().max(200).nullable(),
    significance,
  }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(`UPDATE transcript_rows SET analyzed_seq = ? WHERE turn_id = id_key(?) AND chat = ${chatKeyOf('transcript', '?')}`, [seq, p.turnId, chatId]);
  },
});

/** One witness's summary of a closed scene is written (or was given up on): the job is done. */
export const sceneSummarized = defineEvent({
  kind: 'scene_summarized',
  writes: ['scene_summaries'],
  scope: 'chat',
  schema: z.object({ sceneId: uuid, ownerId: entityRef, ok: z.boolean() }),
  apply(db, { seq, chatId, payload: p }) {
    db.run(
      `INSERT INTO scene_summaries (scene_id, owner_id, chat_id, seq, ok) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (chat_id, scene_id, owner_id) DO NOTHING`,
      [p.sceneId, p.ownerId, chatId, seq, p.ok],
    );
  },
});
