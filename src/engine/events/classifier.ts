import { z } from 'zod';
import { defineEvent } from './define.ts';
import { shortText } from './fields.ts';

export const RAW_TEXT_LIMIT = 2_000;

/** A structured call that gave up: kept so Settings can show what the classifier model did wrong. */
export const classifierFailed = defineEvent({
  kind: 'classifier_failed',
  writes: ['classifier_failures'],
  scope: 'any',
  schema: z.object({
    task: shortText(80),
    model: shortText(200),
    raw: z.string().max(RAW_TEXT_LIMIT),
    error: shortText(2_000),
    attempts: z.number().int().min(1).max(20),
  }),
  apply(db, { seq, ts, chatId, payload: p }) {
    db.run(
      `INSERT INTO classifier_failures (seq, chat_id, ts, task, model, raw, error, attempts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (seq) DO NOTHING`,
      [seq, chatId, ts, p.task, p.model, p.raw, p.error, p.attempts],
    );
  },
});
