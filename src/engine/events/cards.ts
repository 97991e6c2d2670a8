import { z } from 'zod';
import { parseCardJson } from '../cards/card-json.ts';
import { defineEvent } from './define.ts';
import { uuid } from './fields.ts';

/** The largest card kept (its JSON): lorebooks make cards large, pictures are kept apart. */
export const MAX_CARD_JSON = 5 * 1024 * 1024;

/**
 * The card a bot was imported from, kept whole: an export writes it back with the app's edits, so
 * fields the app does not use (extensions, assets, dates, unknown keys) survive. Kept once per
 * import, not with every edit of the bot.
 */
export const cardKept = defineEvent({
  kind: 'card_kept',
  writes: ['bot_cards'],
  scope: 'global',
  schema: z
    .object({
      botId: uuid,
      spec: z.enum(['chara_card_v1', 'chara_card_v2', 'chara_card_v3']),
      format: z.enum(['png', 'json', 'charx']),
      card: z.record(z.string(), z.unknown()),
    })
    .refine((p) => JSON.stringify(p.card).length <= MAX_CARD_JSON, { message: 'the card is larger than 5 MB', path: ['card'] }),
  apply(db, { seq, payload: p }) {
    const { data } = parseCardJson(JSON.stringify(p.card));
    db.run(
      `INSERT INTO bot_cards (bot_id, seq, spec, format, nickname, system_prompt, post_history) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (bot_id) DO UPDATE SET seq = excluded.seq, spec = excluded.spec, format = excluded.format,
         nickname = excluded.nickname, system_prompt = excluded.system_prompt, post_history = excluded.post_history`,
      [p.botId, seq, p.spec, p.format, data.nickname, data.systemPrompt, data.postHistoryInstructions],
    );
  },
});
