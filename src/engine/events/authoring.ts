import { z } from 'zod';
import { defineEvent, json } from './define.ts';
import { uuid, longText, requiredText, shortText } from './fields.ts';

/** The user's own character. There is one "you"; authoring again replaces it. */
export const youAuthored = defineEvent({
  kind: 'you_authored',
  writes: ['you'],
  scope: 'global',
  schema: z.object({
    name: requiredText(80),
    pronouns: shortText(40),
    persona: longText,
  }),
  apply(db, { seq, payload: p }) {
    db.run(
      `INSERT INTO you (id, name, pronouns, persona, updated_seq) VALUES ('you', ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, pronouns = excluded.pronouns,
         persona = excluded.persona, updated_seq = excluded.updated_seq`,
      [p.name, p.pronouns, p.persona, seq],
    );
  },
});

export const botFields = z.object({
  name: requiredText(80),
  persona: longText,
  voiceSamples: z.array(z.string().trim().min(1).max(2_000)).max(20),
  traits: z.array(z.string().trim().min(1).max(80)).max(40),
  backstory: longText,
  initialRelationship: shortText(2_000),
  kickoff: longText,
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
         created_seq, updated_seq, reset_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, persona = excluded.persona,
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
      ],
    );
  },
});

/** The bot forgets: its memories and its feelings toward others, in every chat. Authored fields stay. */
export const botReset = defineEvent({
  kind: 'bot_reset',
  writes: ['bots', 'memories', 'edges', 'edge_facts'],
  scope: 'global',
  schema: z.object({ botId: uuid }),
  apply(db, { seq, payload: p }) {
    db.run('DELETE FROM memories WHERE owner_id = ?', [p.botId]);
    db.run('DELETE FROM edges WHERE source = ?', [p.botId]);
    db.run('DELETE FROM edge_facts WHERE source = ?', [p.botId]);
    db.run('UPDATE bots SET reset_seq = ? WHERE id = ?', [seq, p.botId]);
  },
  applyToChat(db, { payload: p }, chatId) {
    db.run('DELETE FROM memories WHERE owner_id = ? AND chat_id = ?', [p.botId, chatId]);
    db.run('DELETE FROM edges WHERE source = ? AND chat_id = ?', [p.botId, chatId]);
    db.run('DELETE FROM edge_facts WHERE source = ? AND chat_id = ?', [p.botId, chatId]);
  },
});
