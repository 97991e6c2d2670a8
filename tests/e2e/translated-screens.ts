import { flatten } from '@solid-primitives/i18n';
import { CATALOGUES } from '../../src/ui/i18n/all.ts';

/**
 * Every screen played in another interface language, in either engine: a story to show (seeded in
 * the page through the engine), the screens with what shows each is ready, everything a player
 * reads or hears on one (text, labels, placeholders, titles, options), and the English words of
 * the interface still among it.
 */
type Language = keyof typeof CATALOGUES;

/**
 * The interface's English words still showing: every text of English's catalogue (not those with a
 * name or a count in them) that the other catalogue says differently, found on the screen. Short
 * ones ("On", "Edit") are left out: they occur inside the story's own words.
 */
export function englishLeftIn(screenText: string, language: Exclude<Language, 'en'>): string[] {
  const english = flatten(CATALOGUES.en as Record<string, unknown>);
  const theirs = flatten(CATALOGUES[language] as Record<string, unknown>);
  return Object.entries(english)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].trim().length >= 8 && theirs[entry[0]] !== entry[1])
    .filter(([, words]) => screenText.includes(words.trim()))
    .map(([key, words]) => `${key}: ${words}`);
}

export interface Seeded {
  chatId: string;
  botId: string;
  lorebookId: string;
}

/** Run in the page (`page.evaluate(seedStory)`): a persona, a bot, a chat with a reply, a thread, an item, a lorebook and a deleted chat. */
export async function seedStory(): Promise<Seeded> {
  const engine = (globalThis as any).roleplayEngine.engine;
  await engine.saveYou({ name: 'Ada', pronouns: 'she/her', persona: 'A cartographer.' });
  const botId: string = await engine.saveBot(
    { name: 'Mira', persona: 'A wry captain.', voiceSamples: ['Aye.'], traits: ['wry'], backstory: '', initialRelationship: 'Old friends.', kickoff: 'Rain on the harbour.' },
    null,
  );
  const kickoff = { ...(await engine.proposeKickoff(botId)).proposal };
  const chatId: string = await engine.startChat(botId, kickoff);
  await engine.sendTurn(chatId, '"Where is the map?"');
  for (let i = 0; i < 200; i++) {
    const { turns } = await engine.transcript(chatId);
    if (turns.some((turn: { role: string; status: string }) => turn.role === 'assistant' && turn.status === 'done')) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await engine.addThread(chatId, 'promise', 'Mira swore to return the chart.');
  await engine.addItem(chatId, 'Silver key', 'you', 'Under the floorboard');
  const lorebookId: string = await engine.addLorebook({
    text: JSON.stringify({ entries: { '0': { uid: 0, key: ['harbour'], content: 'Cold water.', comment: 'Harbour' } } }),
    fileName: 'Harbour.json',
  });
  const gone: string = await engine.startChat(botId, kickoff);
  await engine.deleteChat(gone);
  localStorage.setItem('roleplay-engine/drawer', 'open');
  return { chatId, botId, lorebookId };
}

/** Each screen, and what shows it is drawn with its content. */
export const screens = (s: Seeded): [path: string, ready: string][] => [
  ['/chats', '.cards li'],
  [`/chats/${s.chatId}`, '[data-testid=story-drawer] [data-testid=item]'],
  ['/bots', '.cards li'],
  ['/bots/new', '#bot-form-title'],
  [`/bots/${s.botId}/edit`, '#card-export-title'],
  [`/bots/${s.botId}/start`, '#kickoff-time'],
  ['/lore', '.cards li'],
  [`/lore/book/${s.lorebookId}`, '.lore-entry'],
  ['/settings', '[data-testid=sync-state]'],
  ['/deleted', '.deleted-card'],
];

/** Run in the page: what a player reads or hears on the screen, beyond the story's own words. */
export function screenText(): string {
  const attributes = [...document.querySelectorAll('[aria-label], [placeholder], [title]')].flatMap((el) => ['aria-label', 'placeholder', 'title'].map((name) => el.getAttribute(name) ?? ''));
  const options = [...document.querySelectorAll('option, summary')].map((el) => el.textContent ?? '');
  return [document.body.innerText, ...attributes, ...options].join('\n');
}
