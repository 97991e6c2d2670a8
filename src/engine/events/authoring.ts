import { z } from 'zod';
import { fieldDef } from '../state/fields.ts';
import type { Db } from '../db/port.ts';
import { supersede } from '../log/visibility.ts';
import { defineEvent, json } from './define.ts';
import { eventId, imageHash, languageTag, uuid, longText, requiredText, shortText } from './fields.ts';
import { TRACKED_VALUES } from '../state/tracked-values.ts';
import { chatKeyOf } from './tables.ts';

/** A persona: 'you' (the first one) or another's id. */
export const personaRef = z.union([z.literal('you'), uuid]);

/**
 * One of the user's own characters (personas). The first is 'you' (events from before personas name
 * none); authoring one again replaces it.
 */
export const youAuthored = defineEvent({
  kind: 'you_authored',
  writes: ['you'],
  scope: 'global',
  schema: z.object({
    /** Which persona; absent: the first ('you'). Optional, not defaulted: an old event's payload stays byte for byte. */
    personaId: uuid.optional(),
    name: requiredText(80),
    pronouns: shortText(40),
    persona: longText,
    /** Your picture, by hash; none (a generated one shows) when left out. */
    avatar: imageHash.optional(),
  }),
  apply(db, { seq, payload: p }) {
    db.run(
      `INSERT INTO you (id, name, pronouns, persona, updated_seq, avatar) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, pronouns = excluded.pronouns,
         persona = excluded.persona, updated_seq = excluded.updated_seq, avatar = excluded.avatar, removed = 0`,
      [p.personaId ?? 'you', p.name, p.pronouns, p.persona, seq, p.avatar ?? null],
    );
  },
});

/** The persona a chat without its own choice plays. */
export const defaultPersonaSet = defineEvent({
  kind: 'default_persona_set',
  writes: ['you'],
  scope: 'global',
  schema: z.object({ personaId: personaRef }),
  apply(db, { payload: p }) {
    db.run('UPDATE you SET is_default = (id = ?)', [p.personaId]);
  },
});

/** A persona put away: it is offered no more, and the lines it wrote keep its name. */
export const personaRemoved = defineEvent({
  kind: 'persona_removed',
  writes: ['you'],
  scope: 'global',
  schema: z.object({ personaId: uuid }),
  apply(db, { payload: p }) {
    db.run('UPDATE you SET removed = 1, is_default = 0 WHERE id = ?', [p.personaId]);
  },
});

export const botFields = z.object({
  name: requiredText(80),
  /**
   * Absent from bots authored before pronouns were asked (none). Optional, not defaulted: an old
   * event's payload must come out of a backup or a sync byte for byte as it went in.
   */
  pronouns: shortText(40).optional(),
  /** The bot's picture, by hash (an image_added event); none shows a generated one. Optional for the same reason. */
  avatar: imageHash.optional(),
  /** The picture behind the story in this bot's chats (a card's `background` asset, or one picked); optional for the same reason. */
  background: imageHash.optional(),
  /** The versions of a new chat's opening (a card's first message and alternate greetings); none: the kickoff opens. */
  greetings: z.array(z.string().trim().min(1).max(20_000)).max(20).optional(),
  persona: longText,
  voiceSamples: z.array(z.string().trim().min(1).max(2_000)).max(20),
  traits: z.array(z.string().trim().min(1).max(80)).max(40),
  backstory: longText,
  initialRelationship: shortText(2_000),
  kickoff: longText,
  /** The fields of the player's own its chats start with (issue 33, part 4); they go with its card. Optional, as above. */
  trackedFields: z.array(fieldDef).max(20).optional(),
  /** The language its chats are played in unless a chat chooses another (issue 34); none: each follows its story. Optional, as above. */
  language: languageTag.nullish(),
});

/** A bot created or edited: every edit is a whole new version of the authored fields. */
export const botAuthored = defineEvent({
  kind: 'bot_authored',
  writes: ['bots'],
  scope: 'global',
  schema: botFields.extend({ botId: uuid }),
  apply(db, { seq, payload: p }) {
    db.run(
      `INSERT INTO bots (id, name, persona, voice_samples, traits, backstory, initial_relationship, kickoff,
         created_seq, updated_seq, reset_seq, pronouns, avatar, greetings, background, tracked_fields, language)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, pronouns = excluded.pronouns, avatar = excluded.avatar,
         background = excluded.background, tracked_fields = excluded.tracked_fields, language = excluded.language,
         greetings = excluded.greetings, persona = excluded.persona,
         voice_samples = excluded.voice_samples, traits = excluded.traits, backstory = excluded.backstory,
         initial_relationship = excluded.initial_relationship, kickoff = excluded.kickoff,
         updated_seq = excluded.updated_seq`,
      [
        p.botId,
        p.name,
        p.persona,
        json(p.voiceSamples),
        json(p.traits),
        p.backstory,
        p.initialRelationship,
        p.kickoff,
        seq,
        seq,
        p.pronouns ?? '',
        p.avatar ?? null,
        json(p.greetings ?? []),
        p.background ?? null,
        json(p.trackedFields ?? []),
        p.language ?? null,
      ],
    );
  },
});

/** The bot forgets: its memories and its feelings toward others, in every chat. Authored fields stay. */
/**
 * "Reset…" on a bot: its story state goes, in every chat: what it remembers and feels, who it is
 * doing what as, and, in the chats it hosts, the scenes and places. Its identity, initial
 * relationship and kickoff stay. Turns before the reset stay readable but leave the prompt.
 * Undone by `bot_reset_undone`, which supersedes this event.
 */
export const botReset = defineEvent({
  kind: 'bot_reset',
  writes: ['bots', 'memories', 'edges', 'edge_facts', 'activity', 'scenes', 'chat_state', 'scene_summaries', ...TRACKED_VALUES.filter((v) => v.clearedByHostReset).map((v) => v.table)],
  scope: 'global',
  schema: z.object({ botId: uuid }),
  apply(db, event) {
    db.run('UPDATE bots SET reset_seq = ? WHERE id = ?', [event.seq, event.payload.botId]);
    for (const { id } of db.all<{ id: string }>('SELECT id FROM chats')) resetInChat(db, event.payload.botId, id);
  },
  applyToChat(db, { payload: p }, chatId) {
    resetInChat(db, p.botId, chatId);
  },
});

function resetInChat(db: Db, botId: string, chatId: string): void {
  db.run(`DELETE FROM memory_rows WHERE owner_id = id_key(?) AND chat = ${chatKeyOf('memories', '?')}`, [botId, chatId]);
  db.run('DELETE FROM scene_summaries WHERE owner_id = ? AND chat_id = ?', [botId, chatId]);
  db.run('DELETE FROM edges WHERE chat_id = ? AND (source = ?2 OR target = ?2)', [chatId, botId]);
  db.run(`DELETE FROM edge_fact_rows WHERE chat = ${chatKeyOf('edge_facts', '?1')} AND (source = id_key(?2) OR target = id_key(?2))`, [chatId, botId]);
  const hosted = db.get('SELECT 1 AS x FROM chats WHERE id = ? AND bot_id = ?', [chatId, botId]) !== undefined;
  if (!hosted) {
    db.run('DELETE FROM activity WHERE chat_id = ? AND entity = ?', [chatId, botId]);
    return;
  }
  db.run('DELETE FROM activity WHERE chat_id = ?', [chatId]);
  db.run('DELETE FROM scenes WHERE chat_id = ?', [chatId]);
  for (const value of TRACKED_VALUES) if (value.clearedByHostReset) db.run(`DELETE FROM ${value.table} WHERE ${value.chatColumn} = ?`, [chatId]);
  db.run('UPDATE chat_state SET active_scene_id = NULL WHERE chat_id = ?', [chatId]);
}

export const botResetUndone = defineEvent({
  kind: 'bot_reset_undone',
  writes: ['visibility'],
  scope: 'global',
  schema: z.object({ reset: eventId }),
  apply() {},
  marks: (db, event) => supersede(db, event.payload.reset, event),
  refersTo: (payload) => [payload.reset],
});
