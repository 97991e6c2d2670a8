import type { FieldDef } from '../state/fields.ts';
import type { Db } from '../db/port.ts';
import { DEFAULT_PERSONA_SQL, listPersonas, personaOf } from './personas.ts';
import { z } from 'zod';
import { defineQuery, id, none } from '../call.ts';

export interface Bot {
  id: string;
  name: string;
  pronouns: string;
  persona: string;
  voiceSamples: string[];
  traits: string[];
  backstory: string;
  initialRelationship: string;
  kickoff: string;
  updatedSeq: number;
  /** Reset and not undone: the bot's page offers Undo reset. */
  wasReset: boolean;
  /** In "Recently deleted": hidden from the lists until restored. */
  deleted: boolean;
  /** Its picture's hash, or null (a generated face shows). */
  avatar: string | null;
  /** The versions of a new chat's opening; empty: the kickoff opens. */
  greetings: string[];
  /** The picture behind the story in its chats, by hash, or null. */
  background: string | null;
  /** The fields of the player's own its chats start with. */
  trackedFields: FieldDef[];
  /** The language its chats are played in unless one chooses another (a BCP 47 tag), or null: each follows its story. */
  language: string | null;
}

export interface You {
  name: string;
  pronouns: string;
  persona: string;
  avatar: string | null;
}

interface BotRow {
  id: string;
  name: string;
  pronouns: string;
  persona: string;
  voice_samples: string;
  traits: string;
  backstory: string;
  initial_relationship: string;
  kickoff: string;
  updated_seq: number;
  reset_seq: number | null;
  deleted_ts: number | null;
  avatar: string | null;
  greetings: string;
  background: string | null;
  tracked_fields: string;
  language: string | null;
}

const toBot = (r: BotRow): Bot => ({
  id: r.id,
  name: r.name,
  pronouns: r.pronouns,
  persona: r.persona,
  voiceSamples: JSON.parse(r.voice_samples) as string[],
  traits: JSON.parse(r.traits) as string[],
  backstory: r.backstory,
  initialRelationship: r.initial_relationship,
  kickoff: r.kickoff,
  updatedSeq: r.updated_seq,
  wasReset: r.reset_seq !== null,
  deleted: r.deleted_ts !== null,
  avatar: r.avatar,
  greetings: JSON.parse(r.greetings) as string[],
  background: r.background,
  trackedFields: JSON.parse(r.tracked_fields) as FieldDef[],
  language: r.language,
});

const BOT_COLUMNS = 'id, name, pronouns, persona, voice_samples, traits, backstory, initial_relationship, kickoff, updated_seq, reset_seq, deleted_ts, avatar, greetings, background, tracked_fields, language';

export function listBots(db: Db): Bot[] {
  return db.all<BotRow>(`SELECT ${BOT_COLUMNS} FROM bots WHERE deleted_ts IS NULL ORDER BY name COLLATE NOCASE, id`).map(toBot);
}

export function getBot(db: Db, id: string): Bot | undefined {
  const row = db.get<BotRow>(`SELECT ${BOT_COLUMNS} FROM bots WHERE id = ?`, [id]);
  return row && toBot(row);
}

/** The default persona: who a new chat plays, and the one Settings' "Who you are" shows. */
export function getYou(db: Db): You | undefined {
  return db.get<You>(`SELECT name, pronouns, persona, avatar FROM you WHERE id = ${DEFAULT_PERSONA_SQL}`);
}

export interface StoredImage {
  hash: string;
  mime: string;
  /** Base64, as the image_added event holds it. */
  data: string;
}

/** A picture's bytes, read from the event that holds them (stored once, there). */
export function getImage(db: Db, hash: string): StoredImage | undefined {
  return db.get<StoredImage>(
    "SELECT i.hash, i.mime, json_extract(e.payload, '$.data') AS data FROM images i JOIN events e ON e.seq = i.seq WHERE i.hash = ?",
    [hash],
  );
}

/** The card a bot was imported from, as kept (card_kept), or null for a bot made here. */
export function keptCard(db: Db, botId: string): Record<string, unknown> | null {
  const row = db.get<{ card: string }>(
    "SELECT json_extract(e.payload, '$.card') AS card FROM bot_cards c JOIN events e ON e.seq = c.seq WHERE c.bot_id = ?",
    [botId],
  );
  return row ? (JSON.parse(row.card) as Record<string, unknown>) : null;
}

/** You and the bots, as the pages show them; pictures by hash. */
export const authoredCalls = {
  listBots: defineQuery({ args: none, reads: ['bots'], run: ({ db }) => listBots(db) }),
  getBot: defineQuery({ args: z.tuple([id]), reads: ['bots'], run: ({ db }, botId) => getBot(db, botId) }),
  getYou: defineQuery({ args: none, reads: ['you'], run: ({ db }) => getYou(db) }),
  /** Every persona of yours, the first first; which is the default. */
  listPersonas: defineQuery({ args: none, reads: ['you'], run: ({ db }) => listPersonas(db) }),
  /** Who you play in this chat. */
  chatPersona: defineQuery({ args: z.tuple([id]), reads: ['you', 'chats'], run: ({ db }, chatId: string) => personaOf(db, chatId) ?? null }),
  /** A stored picture, by hash: never changes once stored. */
  image: defineQuery({ args: z.tuple([z.string().max(64)]), reads: ['images'], run: ({ db }, hash) => getImage(db, hash) ?? null }),
};
