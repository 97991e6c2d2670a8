import type { Db } from '../db/port.ts';

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
}

export interface You {
  name: string;
  pronouns: string;
  persona: string;
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
});

const BOT_COLUMNS = 'id, name, pronouns, persona, voice_samples, traits, backstory, initial_relationship, kickoff, updated_seq, reset_seq, deleted_ts';

export function listBots(db: Db): Bot[] {
  return db.all<BotRow>(`SELECT ${BOT_COLUMNS} FROM bots WHERE deleted_ts IS NULL ORDER BY name COLLATE NOCASE, id`).map(toBot);
}

export function getBot(db: Db, id: string): Bot | undefined {
  const row = db.get<BotRow>(`SELECT ${BOT_COLUMNS} FROM bots WHERE id = ?`, [id]);
  return row && toBot(row);
}

export function getYou(db: Db): You | undefined {
  return db.get<You>("SELECT name, pronouns, persona FROM you WHERE id = 'you'");
}
