import { z } from 'zod';
import { defineEvent, type ValueChange } from './define.ts';
import { uuid, fictionTime, imageHash, languageTag, requiredText, shortText } from './fields.ts';
import { samplerOverrides } from '../settings/sampler.ts';

/** A new story with one bot as its host. The chat id is the event's chat id. */
export const chatCreated = defineEvent({
  kind: 'chat_created',
  writes: ['chats', 'chat_state'],
  scope: 'chat',
  schema: z.object({
    botId: uuid,
    title: requiredText(120),
    fictionTime,
    weather: shortText(200),
    narrativeAnchor: shortText(2_000),
  }),
  apply(db, { seq, ts, chatId, payload: p }) {
    db.run(
      `INSERT INTO chats (id, bot_id, title, created_ts, created_seq, last_seq) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO NOTHING`,
      [chatId, p.botId, p.title, ts, seq, seq],
    );
    db.run(
      `INSERT INTO chat_state (chat_id, fiction_time, weather, active_scene_id, narrative_anchor)
       VALUES (?, ?, ?, NULL, ?) ON CONFLICT (chat_id) DO NOTHING`,
      [chatId, p.fictionTime, p.weather, p.narrativeAnchor],
    );
  },
});

/**
 * The in-fiction clock moved. The payload carries the resulting time, not only the minutes, so a
 * replay after a rewind lands on exactly the time the story showed then.
 */
export const clockAdvanced = defineEvent({
  kind: 'clock_advanced',
  writes: ['chat_state'],
  scope: 'chat',
  schema: z.object({
    minutes: z.number().int().min(0).max(60 * 24 * 365 * 10),
    fictionTime,
  }),
  apply(db, { chatId, payload: p }) {
    db.run('UPDATE chat_state SET fiction_time = ? WHERE chat_id = ?', [p.fictionTime, chatId]);
  },
  // The clock is set, not moved: a later step carries its own time, which stands when one before is taken back.
  changes: (p): ValueChange[] => [{ target: 'chat_state', field: 'fictionTime', how: 'set', value: p.fictionTime }],
  without: () => null,
});

/** Who the player plays in this chat from here on (a persona); lines written before keep theirs. */
export const chatPersonaChosen = defineEvent({
  kind: 'chat_persona_chosen',
  writes: ['chats'],
  scope: 'chat',
  schema: z.object({ personaId: z.union([z.literal('you'), uuid]) }),
  apply(db, { chatId, payload }) {
    db.run('UPDATE chats SET persona_id = ? WHERE id = ?', [payload.personaId, chatId]);
  },
});

/**
 * The player's sampling for this chat: the knobs given win over the global settings, the rest
 * follow them. The whole override is stated each time (an empty one follows the settings again).
 */
export const chatSamplerSet = defineEvent({
  kind: 'chat_sampler_set',
  writes: ['chats'],
  scope: 'chat',
  schema: z.object({ sampler: samplerOverrides }),
  apply(db, { chatId, payload }) {
    db.run('UPDATE chats SET sampler = ? WHERE id = ?', [Object.keys(payload.sampler).length ? JSON.stringify(payload.sampler) : null, chatId]);
  },
});

/**
 * The language this chat's story is played in, chosen by the player (null: follow the bot's
 * default, else the story itself). The narrator, the analysis and the scene summaries write in it.
 */
export const chatLanguageSet = defineEvent({
  kind: 'chat_language_set',
  writes: ['chats'],
  scope: 'chat',
  schema: z.object({ language: languageTag.nullable() }),
  apply(db, { chatId, payload }) {
    db.run('UPDATE chats SET language = ? WHERE id = ?', [payload.language, chatId]);
  },
});

/**
 * The picture behind this chat's story from here on: a stored picture, 'none', or 'host' (the host
 * bot's own background, whatever it is then). A chat event, so it follows rewind, branch and sync.
 */
export const chatBackgroundSet = defineEvent({
  kind: 'chat_background_set',
  writes: ['chats'],
  scope: 'chat',
  schema: z.object({ background: z.union([imageHash, z.literal('none'), z.literal('host')]) }),
  apply(db, { chatId, payload }) {
    db.run('UPDATE chats SET background = ? WHERE id = ?', [payload.background === 'host' ? null : payload.background, chatId]);
  },
});
