import { describe, expect, it } from 'vitest';
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
  const { card, format } = await readCard(new TextEncoder().encode(JSON.stringify(CARD)));
  const bot = botFromCard(card.data);
  const { cut: _cut, ...fields } = bot;
  const botId = engine.importCard({ fields, card: card.original, spec: card.spec, format }, null);
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
    engine.chooseVersion(chat, 2);
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
    engine.importCard({ fields: { ...fields, persona: 'Newer.' }, card: CARD, spec: 'chara_card_v2', format: 'png' }, botId);
    expect(engine.listBots()).toHaveLength(1);
    expect(engine.getBot(botId)!.persona).toBe('Newer.');
    const events = db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
    expect(() => engine.importCard({ fields, card: CARD, spec: 'chara_card_v9', format: 'png' }, null)).toThrow(/spec/);
    expect(() => engine.importCard({ fields, card: { huge: 'x'.repeat(6 * 1024 * 1024) }, spec: 'chara_card_v2', format: 'png' }, null)).toThrow(/larger than 5 MB/);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(events);
  });
});

describe('exporting a card', () => {
  const V1 = { name: 'Old Tom', description: 'A keeper.', personality: 'gruff', scenario: 'The lamp room.', first_mes: 'Who goes there?', mes_example: '<START>\n{{char}}: Mind the stairs.' };
  const V2 = { ...CARD, data: { ...CARD.data, character_book: { name: 'Sea', entries: [{ id: 3, keys: ['kraken'], content: 'A beast.', extensions: { x: 1 } }, { keys: ['port'], content: 'Quiet.' }] } } };
  const V3 = {
    spec: 'chara_card_v3',
    spec_version: '3.0',
    data: {
      ...CARD.data,
      group_only_greetings: [],
      assets: [{ type: 'icon', uri: 'ccdefault:', name: 'main', ext: 'png' }],
      creator_notes_multilingual: { fr: 'Bonjour' },
      source: ['https://example.com/mira'],
      creation_date: 1700000000,
      some_future_field: { kept: true },
    },
  };

  async function roundTrip(original: unknown, edit?: (fields: Record<string, unknown>) => Record<string, unknown>) {
    const { engine } = await openTestEngine();
    const first = await readCard(new TextEncoder().encode(JSON.stringify(original)));
    const { cut: _cut, ...mapped } = botFromCard(first.card.data);
    const botId = engine.importCard({ fields: mapped, card: first.card.original, spec: first.card.spec, format: first.format }, null);
    if (edit) engine.saveBot(edit({ ...engine.getBot(botId)! }), botId);
    const exported = engine.exportCard(botId);
    const { withTextChunks } = await import('../../src/engine/cards/png.ts');
    const pixel = new Uint8Array(Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'));
    const png = withTextChunks(pixel, [
      { keyword: 'ccv3', text: Buffer.from(JSON.stringify(exported.v3)).toString('base64') },
      { keyword: 'chara', text: Buffer.from(JSON.stringify(exported.v2)).toString('base64') },
    ]);
    const again = await readCard(png);
    const v2Only = await readCard(new TextEncoder().encode(JSON.stringify(exported.v2)));
    return { first, exported, again, v2Only };
  }

  it('import → export → import gives the same card, for a V1, a V2 with a lorebook and a V3 with assets', async () => {
    for (const original of [V1, V2, V3]) {
      const { first, again, v2Only } = await roundTrip(original);
      expect(again.card.data).toEqual(first.card.data);
      // The V2 copy carries everything V2 knows (V3's nickname is V3's alone).
      const { nickname: _kept, ...v2Data } = v2Only.card.data;
      const { nickname: _first, ...firstData } = first.card.data;
      expect(v2Data).toEqual(firstData);
    }
    expect((await roundTrip(V2)).exported.v2).toEqual(V2);
    expect((await roundTrip(V3)).exported.v3).toEqual(V3);
    const v1 = (await roundTrip(V1)).exported;
    expect(v1.v3).toMatchObject({ spec: 'chara_card_v3', data: { name: 'Old Tom', description: 'A keeper.', personality: 'gruff', first_mes: 'Who goes there?' } });
  });

  it('writes what was edited here into the card and keeps the rest as it came', async () => {
    const { exported, again } = await roundTrip(V3, (bot) => ({ ...bot, persona: 'A captain, retired.', greetings: ['Evening.'] }));
    expect(exported.v3).toMatchObject({
      spec: 'chara_card_v3',
      data: { description: 'A captain, retired.', personality: '', first_mes: 'Evening.', alternate_greetings: [], some_future_field: { kept: true }, extensions: CARD.data.extensions },
    });
    expect((exported.v3.data as Record<string, unknown>).creator_notes_multilingual).toEqual({ fr: 'Bonjour' });
    expect(exported.v2.data).not.toHaveProperty('assets');
    expect(again.card.data).toMatchObject({ description: 'A captain, retired.', scenario: 'A storm off the coast.', systemPrompt: CARD.data.system_prompt });
  });
});

describe("a card's lorebook in the prompt", () => {
  it('fires the entries the latest story mentions, constant ones always (MUST), and the same lore for a regenerate', async () => {
    const { engine } = await openTestEngine();
    engine.append([draft.you({ name: 'Ada' })]);
    const withBook = {
      ...CARD,
      data: {
        ...CARD.data,
        system_prompt: '',
        post_history_instructions: '',
        character_book: {
          scan_depth: 1,
          entries: [
            { keys: ['kraken'], content: 'The kraken sleeps under {{char}}\u2019s ship.', enabled: true, insertion_order: 10 },
            { keys: ['lighthouse'], content: 'Always lit.', constant: true, enabled: true, insertion_order: 5 },
            { keys: ['storm'], content: 'Half the storms are {{user}}\u2019s fault.', enabled: true, extensions: { useProbability: true, probability: 50 } },
            { keys: ['kraken'], content: 'Disabled.', enabled: false },
          ],
        },
      },
    };
    const { card, format } = await readCard(new TextEncoder().encode(JSON.stringify(withBook)));
    const { cut: _cut, ...fields } = botFromCard(card.data);
    const botId = engine.importCard({ fields, card: card.original, spec: card.spec, format }, null);
    const chat = engine.startChat(botId, kickoffInput());
    const count = await loadTokenCounter();
    const lore = () =>
      engine
        .narratorPrompt(chat, engine.headSeq() + 1, count)
        .parts.filter((p) => p.label.startsWith('lore:'))
        .map((p) => ({ label: p.label, tier: p.tier, text: p.text }));

    expect(lore()).toEqual([{ label: 'lore: constant', tier: 'must', text: 'Always lit.' }]);
    const turn = engine.turns.beginTurn(chat, '"Is the kraken real? And this storm?"');
    const first = lore();
    expect(first).toContainEqual({ label: 'lore: kraken', tier: 'should', text: 'The kraken sleeps under Cap\u2019s ship.' });
    expect(first.some((l) => l.text === 'Disabled.')).toBe(false);
    engine.turns.finishTurn(turn, { text: 'Mira laughs.', usage: null, truncated: false, reason: null, error: null });
    engine.turns.regenerate(chat);
    expect(lore()).toEqual(first);
  });
});
