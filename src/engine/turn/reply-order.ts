import type { Db } from '../db/port.ts';
import { castOf, type CastMember } from '../analysis/cast.ts';
import { firstNamed } from './speaker.ts';

/**
 * Who answers the player when guests are present, a chat's choice:
 * - 'named': whoever the player names speaks; else the next in turn;
 * - 'rotate': the present bots in turn;
 * - 'all': every present bot answers, one after another;
 * - 'asked': the host, unless the player gives another the turn ("Let <name> speak").
 * A muted bot stays present and witnesses, but is never chosen unless asked.
 */
export const REPLY_ORDERS = ['named', 'rotate', 'all', 'asked'] as const;
export type ReplyOrder = (typeof REPLY_ORDERS)[number];

interface Voices {
  host: string;
  order: ReplyOrder;
  /** Present bots that may be given the turn without being asked: host first, then guests. */
  speaking: CastMember[];
}

function voicesOf(db: Db, chatId: string): Voices | undefined {
  const cast = castOf(db, chatId);
  if (!cast) return undefined;
  const muted = new Set(db.all<{ entity: string }>('SELECT entity FROM activity WHERE chat_id = ? AND muted = 1', [chatId]).map((r) => r.entity));
  const order = db.get<{ reply_order: ReplyOrder }>('SELECT reply_order FROM chat_state WHERE chat_id = ?', [chatId])?.reply_order ?? 'named';
  return { host: cast.hostId, order, speaking: cast.present.filter((m) => m.ref !== 'you' && !muted.has(m.ref)) };
}

/** The bots' replies since the player last wrote, newest first. */
function repliesSinceThePlayer(db: Db, chatId: string): string[] {
  const rows = db.all<{ role: string; speaker: string }>('SELECT role, speaker FROM transcript WHERE chat_id = ? AND hidden = 0 ORDER BY seq DESC LIMIT 50', [chatId]);
  const cut = rows.findIndex((r) => r.role === 'user');
  return (cut < 0 ? rows : rows.slice(0, cut)).filter((r) => r.role === 'assistant').map((r) => r.speaker);
}

/** The next bot in turn after the latest reply's speaker. */
function nextInTurn(db: Db, chatId: string, voices: Voices): string {
  const latest = db.get<{ speaker: string }>("SELECT speaker FROM transcript WHERE chat_id = ? AND hidden = 0 AND role = 'assistant' ORDER BY seq DESC LIMIT 1", [chatId])?.speaker;
  const at = voices.speaking.findIndex((m) => m.ref === latest);
  return voices.speaking[(at + 1) % voices.speaking.length]?.ref ?? voices.host;
}

/** Who answers the player's `text` (their in-character words; '' when they let the story go on). */
export function chooseSpeaker(db: Db, chatId: string, text: string): string {
  const voices = voicesOf(db, chatId);
  if (!voices) throw new Error(`No chat ${chatId}`);
  if (voices.speaking.length === 0) return voices.host;
  const hostOrFirst = voices.speaking.find((m) => m.ref === voices.host)?.ref ?? voices.speaking[0]!.ref;
  if (voices.speaking.length === 1) return voices.speaking[0]!.ref;
  switch (voices.order) {
    case 'asked':
      return hostOrFirst;
    case 'named':
      return firstNamed(voices.speaking, text) ?? nextInTurn(db, chatId, voices);
    case 'rotate':
      return nextInTurn(db, chatId, voices);
    case 'all':
      // Everyone answers in turn, starting from the one named, else the host.
      return firstNamed(voices.speaking, text) ?? hostOrFirst;
  }
}

/** In a chat where everyone answers, the next bot to answer the player's latest words (none: all have). */
export function nextToAnswer(db: Db, chatId: string): string | null {
  const voices = voicesOf(db, chatId);
  if (!voices || voices.order !== 'all') return null;
  const answered = repliesSinceThePlayer(db, chatId);
  const last = answered[0];
  const start = voices.speaking.findIndex((m) => m.ref === last);
  for (let step = 1; step <= voices.speaking.length; step++) {
    const candidate = voices.speaking[(start + step) % voices.speaking.length]!;
    if (!answered.includes(candidate.ref)) return candidate.ref;
  }
  return null;
}

/** Whether `botId` may be given the turn now: a bot present in the chat (muted or not). */
export function canSpeak(db: Db, chatId: string, botId: string): boolean {
  return castOf(db, chatId)?.present.some((m) => m.ref === botId && m.ref !== 'you') ?? false;
}
