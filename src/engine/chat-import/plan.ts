import { CommandRejectedError } from '../log/errors.ts';
import { CardError } from '../cards/errors.ts';
import { parseSillyTavernChat, type StMessage } from '../cards/st-chat.ts';

/*
 * What an imported SillyTavern chat will write, checked through before anything is: apart from
 * the import itself (chat-import.ts) so the import dialog can show it without loading the log code.
 */

const MAX_USER_TEXT = 20_000;
const MAX_REPLY_TEXT = 100_000;
/** Versions of one reply: far more than anyone swipes, few enough that a hostile file cannot make millions of events. */
const MAX_VERSIONS = 500;
/** Dates a turn can carry (the events' range); one outside it is dropped, not refused. */
const LATEST_DATE = Date.UTC(2200, 0, 1);
const inRange = (sentAt: number | null) => (sentAt !== null && sentAt >= 0 && sentAt <= LATEST_DATE ? Math.trunc(sentAt) : null);

/** One message as it will be written: a turn of yours, or a reply with its versions. */
/** The largest chat file an import takes: 200 MB (as characters of its text, 200 million). */
export const MAX_CHAT_FILE = 200_000_000;

/**
 * Why a chat file of this size (bytes of the file, or characters of its text) cannot be imported,
 * said before it is read: a file past what a tab can hold as text would otherwise fail as if its
 * first line were wrong. Null when it can be.
 */
export function chatFileTooLarge(size: number): string | null {
  if (size <= MAX_CHAT_FILE) return null;
  const shown = size >= 1e9 ? `${(size / 1e9).toFixed(1)} GB` : `${Math.round(size / 1e6)} MB`;
  return `This chat file is ${shown}; a chat file can be at most 200 MB. Split it in SillyTavern (or keep its latest part) and import that.`;
}

export type Planned =
  | { role: 'user'; line: number; text: string; sentAt: number | null }
  | { role: 'assistant'; line: number; versions: string[]; chosen: number; sentAt: number | null };

export interface ImportPlan {
  /** Who the file says the character is, to find the bot it belongs to. */
  characterName: string;
  messages: Planned[];
  /** Messages left out: SillyTavern's system notes and empty messages. */
  skipped: number;
  /** Replies that carry more than one version (swipes). */
  withVersions: number;
  firstSentAt: number | null;
  lastSentAt: number | null;
}

/**
 * Reads a SillyTavern chat file into what the import will write, checking every message against
 * what a turn can hold. Anything that cannot be written is refused here, naming its line, so a bad
 * file writes nothing. The import dialog shows this plan before the player confirms.
 */
export function planChatImport(text: string): ImportPlan {
  const tooLarge = chatFileTooLarge(text.length);
  if (tooLarge) throw new CommandRejectedError(tooLarge);
  let chat;
  try {
    chat = parseSillyTavernChat(text);
  } catch (error) {
    if (error instanceof CardError) throw new CommandRejectedError(error.message);
    throw error;
  }
  const messages: Planned[] = [];
  let skipped = 0;
  let withVersions = 0;
  const tooLong = (m: StMessage, limit: number, length: number) =>
    new CommandRejectedError(`Line ${m.line}: a message of ${length.toLocaleString('en')} characters is longer than the ${limit.toLocaleString('en')} a turn holds.`);
  for (const m of chat.messages) {
    if (m.isSystem) {
      skipped++;
      continue;
    }
    if (m.isUser) {
      const text = m.text.trim();
      if (!text) {
        skipped++;
        continue;
      }
      if (text.length > MAX_USER_TEXT) throw tooLong(m, MAX_USER_TEXT, text.length);
      messages.push({ role: 'user', line: m.line, text, sentAt: inRange(m.sentAt) });
      continue;
    }
    const versions = (m.swipes.length > 1 ? m.swipes : [m.text]).map((v) => v.trim());
    if (versions.every((v) => v === '')) {
      skipped++;
      continue;
    }
    const long = versions.find((v) => v.length > MAX_REPLY_TEXT);
    if (long !== undefined) throw tooLong(m, MAX_REPLY_TEXT, long.length);
    if (versions.length > MAX_VERSIONS) throw new CommandRejectedError(`Line ${m.line}: a reply with ${versions.length} swipes; at most ${MAX_VERSIONS} are kept.`);
    if (versions.length > 1) withVersions++;
    messages.push({ role: 'assistant', line: m.line, versions, chosen: m.swipeId, sentAt: inRange(m.sentAt) });
  }
  if (messages.length === 0) throw new CommandRejectedError('This chat has no messages to import.');
  const dates = messages.map((m) => m.sentAt).filter((d): d is number => d !== null);
  return { characterName: chat.characterName, messages, skipped, withVersions, firstSentAt: dates[0] ?? null, lastSentAt: dates.at(-1) ?? null };
}


/** How many pieces a turn of yours may be parsed into (the user_turn event's limit). */
export const MAX_SEGMENTS = 500;
