import { describe, expect, it } from 'vitest';
import { inflateSync } from 'node:zlib';
import { botFromCard } from '../../src/engine/cards/card-to-bot.ts';
import { readCard } from '../../src/engine/cards/read-card.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';

const CARD = {
  spec: 'chara_card_v2',
  spec_version: '2.0',
  data: {
    name: 'Mira Vance',
    nickname: 'Cap',
    description: '{{char}} commands the Gull. She calls {{user}} "lad".',
    personality: 'wry',
    scenario: 'A storm off the coast.',
    first_mes: 'Hello, {{user}}. <BOT> at your service.',
    alternate_greetings: ['Ahoy, {{user}}.', 'You again?'],
    mes_example: '<START>\n{{char}}: Hold fast, {{user}}.',
    system_prompt: 'You are a sea-story narrator. {{original}}',
    post_history_instructions: 'Keep {{char}} terse.',
    creator: 'someone',
    creator_notes: '',
    tags: ['sea'],
    character_version: '1',
    extensions: { world: 'x', unknown_thing: [1, 2, 3] },
  },
};

async function imported() {
  const { engine, db } = await openTestEngine();
  engine.append([draft.you({ name: 'Ada' })]);
  const { card, format } = await readCard(new TextEncoder().encode(JSON.stringify(CARD)), async (b) => new Uint8Array(inflateSync(b)));
  const bot = botFromCard(card.data);
  const { cut: _cut, ...fields } = bot;
  const botId = engine.authoring.importCard({ fields, card: card.original, spec: card.spec, format }, null);
  return { engine, db, botId, fields };
}

describe('importing a character card', () => {
  it('makes a bot from the card and keeps the card whole, unknown fields and all', async () => {
    const { engine, db, botId } = await imported();
    expect(engine.getBot(botId)).toMatchObject({
      name: 'Mira Vance',
      persona: '{{char}} commands the Gull. She calls {{user}} "lad".\n\nPersonality: wry',
      kickoff: 'A storm off the coast.',
      greetings: ['Hello, {{user}}. <BOT> at your service.', 'Ahoy, {{user}}.', 'You again?'],
      voiceSamples: ['Hold fast, {{user}}.'],
    });
    const kept = db.get<{ payload: string }>("SELECT payload FROM events WHERE kind = 'card_kept'")!;
    expect(JSON.parse(kept.payload)).toEqual({ botId, spec: 'chara_card_v2', format: 'json', card: CARD });
  });

  it('opens a chat on the first greeting, the others its versions, names filled in; choosing one brings its memory', async () => {
    const { engine, db, botId } = await imported();
    const chat = engine.startChat(botId, kickoffInput());
    const opening = engine.transcript(chat).turns.at(-1)!;
    expect(opening.text).toBe('Hello, Ada. Cap at your service.');
    expect(opening.versions).toEqual({ number: 1, of: 3 });
    engine.turns.chooseVersion(chat, 2);
    expect(engine.transcript(chat).turns.at(-1)!.text).toBe('Ahoy, Ada.');
    const memories = db.all<{ summary: string }>('SELECT summary FROM memories WHERE chat_id = ?', [chat]).map((m) => m.summary);
    expect(memories).toEqual(['Ahoy, Ada.']);
  });

  it('tells the narrator the card’s system prompt (with the app’s frame for {{original}}) and its post-history instructions after the story', async () => {
    const { engine, botId } = await imported();
    const chat = engine.startChat(botId, kickoffInput());
    engine.turns.beginTurn(chat, '"Where to?"');
    const prompt = engine.narratorPrompt(chat, engine.headSeq() + 1, await loadTokenCounter());
    const system = prompt.messages[0]!.content;
    expect(system).toMatch(/^You are a sea-story narrator\. You are the narrator of an interactive story\. You write Mira Vance's words/);
    expect(system).toContain('Mira Vance: Cap commands the Gull. She calls Ada "lad".');
    expect(system).toContain('- Hold fast, Ada.');
    const last = prompt.messages.at(-1)!.content;
    expect(last.indexOf('[Keep Cap terse.]')).toBeGreaterThan(last.indexOf('"Where to?"'));
  });

  it('updates the bot the card made before when asked, and refuses a card that is not one, writing nothing', async () => {
    const { engine, db, botId, fields } = await imported();
    engine.authoring.importCard({ fields: { ...fields, persona: 'Newer.' }, card: CARD, spec: 'chara_card_v2', format: 'png' }, botId);
    expect(engine.listBots()).toHaveLength(1);
    expect(engine.getBot(botId)!.persona).toBe('Newer.');
    const events = db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
    expect(() => engine.authoring.importCard({ fields, card: CARD, spec: 'chara_card_v9', format: 'png' }, null)).toThrow(/spec/);
    expect(() => engine.authoring.importCard({ fields, card: { huge: 'x'.repeat(6 * 1024 * 1024) }, spec: 'chara_card_v2', format: 'png' }, null)).toThrow(/larger than 5 MB/);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(events);
  });
});
