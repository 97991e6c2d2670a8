import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { defineQuery } from '../call.ts';
import { detectLanguage, languageName, type StoryLanguage } from '../text/language.ts';

/** How many of the player's latest lines tell the story's language (with the kickoff and the opening). */
const LINES_READ = 6;

/**
 * The language of a chat's story (issue 34, part 2): the chat's choice, else its bot's default,
 * else what the player's latest lines, the opening and the kickoff are written in. Undefined when
 * nothing says (an empty story).
 */
export function storyLanguage(db: Db, chatId: string): StoryLanguage | undefined {
  const chat = db.get<{ chosen: string | null; bot_default: string | null; kickoff: string | null }>(
    'SELECT c.language AS chosen, b.language AS bot_default, b.kickoff FROM chats c LEFT JOIN bots b ON b.id = c.bot_id WHERE c.id = ?',
    [chatId],
  );
  if (!chat) return undefined;
  const named = (tag: string, source: StoryLanguage['source']): StoryLanguage => ({ tag, name: languageName(tag), source });
  if (chat.chosen) return named(chat.chosen, 'chat');
  if (chat.bot_default) return named(chat.bot_default, 'bot');
  const lines = db
    .all<{ text: string }>("SELECT text FROM transcript WHERE chat_id = ? AND role = 'user' AND hidden = 0 ORDER BY seq DESC LIMIT ?", [chatId, LINES_READ])
    .map((r) => r.text);
  const opening = db.get<{ text: string }>("SELECT text FROM transcript WHERE chat_id = ? AND role = 'assistant' AND hidden = 0 ORDER BY seq LIMIT 1", [chatId])?.text ?? '';
  // The player's own words say it best; the opening and the kickoff speak when the player has not yet.
  const detected = detectLanguage(lines.join('\n')) ?? detectLanguage(`${opening}\n${chat.kickoff ?? ''}`);
  return detected ? named(detected, 'story') : undefined;
}

export const storyLanguageCalls = {
  /** The language a chat's story is played in, and where that comes from (null when nothing says yet). */
  storyLanguage: defineQuery({ args: z.tuple([z.string()]), reads: ['chats', 'bots', 'transcript'], run: ({ db }, chatId) => storyLanguage(db, chatId) ?? null }),
};
