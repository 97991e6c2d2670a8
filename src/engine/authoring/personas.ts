import type { Db } from '../db/port.ts';

/**
 * Who "you" are in a chat: one of the player's personas. The first persona is the row 'you'; the
 * default is the one marked so (else 'you'); a chat's own choice wins over the default. Every read of
 * the player's name, pronouns, persona or picture goes through here.
 */
export interface Persona {
  id: string;
  name: string;
  pronouns: string;
  persona: string;
  avatar: string | null;
  isDefault: boolean;
}

/** SQL naming the default persona's id. */
export const DEFAULT_PERSONA_SQL = "coalesce((SELECT id FROM you WHERE is_default = 1 AND removed = 0), 'you')";

/** SQL naming the persona of a transcript row `t` (a line of the player's). */
export const TURN_PERSONA_SQL = `coalesce(t.persona_id, ${DEFAULT_PERSONA_SQL})`;

type PersonaRow = { id: string; name: string; pronouns: string; persona: string; avatar: string | null; is_default: number };
const COLUMNS = 'id, name, pronouns, persona, avatar, is_default';
const toPersona = (r: PersonaRow): Persona => ({ id: r.id, name: r.name, pronouns: r.pronouns, persona: r.persona, avatar: r.avatar, isDefault: r.is_default === 1 || false });

export function listPersonas(db: Db): Persona[] {
  const defaultId = db.get<{ id: string }>(`SELECT ${DEFAULT_PERSONA_SQL} AS id`)!.id;
  return db
    .all<PersonaRow>(`SELECT ${COLUMNS} FROM you WHERE removed = 0 ORDER BY id = 'you' DESC, name COLLATE NOCASE, id`)
    .map((r) => ({ ...toPersona(r), isDefault: r.id === defaultId }));
}

export function defaultPersona(db: Db): Persona | undefined {
  const row = db.get<PersonaRow>(`SELECT ${COLUMNS} FROM you WHERE id = ${DEFAULT_PERSONA_SQL}`);
  return row && { ...toPersona(row), isDefault: true };
}

/** The persona the player plays in this chat: its own choice, else the default. */
export function personaOf(db: Db, chatId: string): Persona | undefined {
  const chosen = db.get<PersonaRow>(
    `SELECT ${COLUMNS} FROM you WHERE removed = 0 AND id = (SELECT persona_id FROM chats WHERE id = ?)`,
    [chatId],
  );
  return chosen ? toPersona(chosen) : defaultPersona(db);
}
