import { draft, kickoffInput } from './fixtures.ts';
import { openTestEngine, testClock } from './sqlite.ts';

/** A fresh database with you (Ada), a bot (Mira) and a chat started from the usual kickoff. */
export async function openStory(options: { now?: () => number; bot?: Record<string, unknown>; journalKeep?: number } = {}) {
  const { engine, db } = await openTestEngine({ now: options.now ?? testClock().now, ...(options.journalKeep ? { journalKeep: options.journalKeep } : {}) });
  const bot = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira', ...options.bot })]);
  const chat = engine.startChat(bot, kickoffInput());
  return { engine, db, bot, chat };
}
