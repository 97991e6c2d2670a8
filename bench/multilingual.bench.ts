import { draft } from '../tests/support/fixtures.ts';
import { openTestEngine } from '../tests/support/sqlite.ts';
import { printTable } from './table.ts';
import { STORIES, type LanguageStory } from './multilingual.data.ts';

const NOW = '1890-06-01T20:00:00';

/** Recall@4 of one language's planted facts: how many of its eight questions find their fact. */
export async function factsFound(story: LanguageStory): Promise<{ found: number; misses: string[] }> {
  const { engine } = await openTestEngine({ now: Date.now });
  const bot = engine.newId();
  const chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot, { name: 'Mira' }), draft.chat(chat, bot, { fictionTime: NOW })]);
  const factIds: string[] = [];
  let fact = 0;
  for (let day = 1; day <= 4; day++) {
    for (const [i, line] of story.everyday.entries()) {
      engine.append([draft.memory(chat, engine.newId(), bot, { summary: `${story.day(day)}${line}`, fictionTime: NOW })]);
      // Two facts a day, among the everyday lines.
      if ((i === 3 || i === 7) && fact < story.facts.length) {
        const id = engine.newId();
        factIds.push(id);
        engine.append([draft.memory(chat, id, bot, { summary: `${story.day(day)}${story.facts[fact++]}`, fictionTime: NOW })]);
      }
    }
  }
  const misses: string[] = [];
  let found = 0;
  for (const [i, question] of story.questions.entries()) {
    const hits = engine.searchMemories({ ownerId: bot, chatId: chat, role: 'host', query: question, k: 4, now: NOW });
    if (hits.some((m) => m.id === factIds[i])) found++;
    else misses.push(question);
  }
  return { found, misses };
}

/** Planted facts found in the top 4, language by language (issue 34). */
export async function benchMultilingual(): Promise<void> {
  const rows: [string, string][] = [];
  for (const story of STORIES) {
    const { found, misses } = await factsFound(story);
    rows.push([story.name, `${found}/8${misses.length ? `   missed: ${misses.join(' | ')}` : ''}`]);
  }
  printTable('Planted facts found in the top 4 of 48 memories, questions in other inflections and particles', rows);
}
