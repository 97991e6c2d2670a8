import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { parseCardJson } from '../../src/engine/cards/card-json.ts';
import { botFromCard } from '../../src/engine/cards/card-to-bot.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openStory } from '../support/story.ts';
import { canonicalProjections } from '../support/dump.ts';
import { kickoffInput } from '../support/fixtures.ts';

const count = await loadTokenCounter();
type Story = Awaited<ReturnType<typeof openStory>>;

/** One exchange, analysed with this answer for the player's fields. */
async function exchange({ engine, chat }: Story, line: string, fields: unknown) {
  const turn = engine.turns.beginTurn(chat, line);
  engine.turns.finishTurn(turn, { text: 'Mira pulls her coat tighter.', usage: null, truncated: false, reason: null, error: null });
  const answer = JSON.stringify({ minutesPassed: 5, significance: 1, sceneEnd: 'none', newPlace: '', feelings: {}, fields });
  const llm = scriptedLlm(answer, answer);
  for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm.client, job, count);
  return llm.calls;
}

/** Each field's values by the name of whose they are. */
function values({ engine, chat }: Story) {
  const state = engine.chatState(chat)!;
  return Object.fromEntries(state.fields.map((f) => [f.def.name, Object.fromEntries(Object.entries(f.values).map(([owner, v]) => [owner ? state.names[owner] : '', v]))]));
}

function withFields(story: Story) {
  const { engine, chat } = story;
  return {
    hunger: engine.addField(chat, { name: 'Hunger', about: 'How hungry: 0 fed, 100 starving', type: 'number', min: 0, max: 100, per: 'character' }),
    mood: engine.addField(chat, { name: 'Mood', about: '', type: 'choice', choices: ['calm', 'tense', 'furious'], per: 'chat' }),
    outfit: engine.addField(chat, { name: 'Outfit', about: 'What they wear', type: 'text', per: 'character' }),
  };
}

describe('fields of the player’s own', () => {
  it('are filled by the same one analysis call, each value checked against its field: out of range or not a choice is refused, the previous value stays, and "Why?" says why', async () => {
    const story = await openStory();
    const { engine, chat, bot } = story;
    const { hunger } = withFields(story);
    const calls = await exchange(story, '"I could eat a horse."', {
      'Hunger (Ada)': 40,
      'Hunger (Mira)': 140,
      Mood: 'Tense',
      'Outfit (Mira)': '  a grey   coat ',
      Nonsense: 3,
    });
    expect(calls).toHaveLength(1);
    const prompt = String(calls[0]!.messages[0]!.content);
    expect(prompt).toContain('"Hunger (Ada)" (number 0–100): How hungry: 0 fed, 100 starving. Now: not set');
    expect(prompt).toContain('"Mood" (one of: calm, tense, furious)');
    expect(values(story)).toEqual({ Hunger: { Ada: 40 }, Mood: { '': 'tense' }, Outfit: { Mira: 'a grey coat' } });

    await exchange(story, '"Still hungry."', { 'Hunger (Mira)': 20, 'Hunger (Ada)': 'ravenous' });
    expect(values(story).Hunger).toEqual({ Ada: 40, Mira: 20 });
    const why = engine.valueHistory(chat, { type: 'field_value', id: `${hunger}:you` }, 'value');
    expect(why.map((c) => [c.how, c.value, c.by, c.undoable])).toEqual([
      ['refused', { value: 'ravenous', reason: 'Hunger must be a number from 0 to 100' }, 'story', false],
      ['set', 40, 'story', true],
    ]);
    expect(engine.valueHistory(chat, { type: 'field_value', id: `${hunger}:${bot}` }, 'value').at(-1)).toMatchObject({ how: 'refused', value: { value: '140', reason: 'Hunger must be from 0 to 100, not 140' } });
  });

  it('are set by hand within their rule, told to the narrator, taken out of the chat, and follow rewind and a rebuild', async () => {
    const story = await openStory();
    const { engine, chat, db } = story;
    const { hunger, mood } = withFields(story);
    expect(() => engine.setFieldValue(chat, hunger, 'you', 'lots')).toThrow(/Hunger must be a number from 0 to 100/);
    expect(() => engine.setFieldValue(chat, mood, '', 'sleepy')).toThrow(/Mood must be one of calm, tense, furious/);
    expect(() => engine.setFieldValue(chat, mood, 'you', 'calm')).toThrow(/kept for the chat/);
    expect(() => engine.addField(chat, { name: 'Thirst', about: '', type: 'number', per: 'character' })).toThrow(/needs a range/);
    expect(() => engine.addField(chat, { name: 'hunger', about: '', type: 'text', per: 'chat' })).toThrow(/named hunger already/);
    engine.setFieldValue(chat, hunger, 'you', '55');
    engine.setFieldValue(chat, mood, '', 'calm');
    expect(values(story)).toEqual({ Hunger: { Ada: 55 }, Mood: { '': 'calm' }, Outfit: {} });

    const before = engine.transcript(chat).turns.at(-1)!;
    await exchange(story, '"Dinner?"', { 'Hunger (Ada)': 70 });
    const { leader, client } = testLeader(engine, narratorOnly(scriptedLlm('Mira laughs.').client));
    await client.sendTurn(chat, '"Well?"');
    await leader.idle();
    const report = (await client.replyPrompt(chat, engine.transcript(chat).turns.at(-1)!.turnId))!;
    expect(report.parts.find((p) => p.label === 'fields')).toMatchObject({ tier: 'should', text: expect.stringContaining("- Ada's Hunger: 70 (of 0–100)\n- Mood: calm") });

    const snapshot = canonicalProjections(db);
    engine.rebuild();
    expect(canonicalProjections(db)).toEqual(snapshot);
    engine.rewind(chat, engine.transcript(chat).turns.find((t) => t.seq > before.seq)!.seq);
    expect(values(story).Hunger).toEqual({ Ada: 55 });
    engine.removeField(chat, mood);
    expect(Object.keys(values(story))).toEqual(['Hunger', 'Outfit']);
  });

  it('saved on the bot, start its next chats, survive a card round trip, and go with the chat’s export', async () => {
    const story = await openStory();
    const { engine, chat, bot } = story;
    const { hunger } = withFields(story);
    engine.setFieldValue(chat, hunger, 'you', 30);
    engine.saveFieldsOnBot(chat);
    const defs = engine.getBot(bot)!.trackedFields;
    expect(defs.map((f) => f.name)).toEqual(['Hunger', 'Mood', 'Outfit']);

    const next = engine.startChat(bot, kickoffInput());
    expect(engine.chatState(next)!.fields.map((f) => [f.def.name, f.values])).toEqual([
      ['Hunger', {}],
      ['Mood', {}],
      ['Outfit', {}],
    ]);

    // The card carries them in the app's own extension, and reading it back gives the same fields.
    const card = engine.exportCard(bot);
    expect((card.v3 as { data: { extensions: Record<string, unknown> } }).data.extensions.roleplay_engine).toEqual({ tracked_fields: defs });
    const read = parseCardJson(JSON.stringify(card.v3));
    expect(botFromCard(read.data).trackedFields).toEqual(defs);
    expect(parseCardJson(JSON.stringify(card.v2)).data.trackedFields).toEqual(defs);
    // A card whose extension is malformed keeps the good fields and drops the bad.
    const mangled = { ...card.v3, data: { ...(card.v3 as { data: object }).data, extensions: { roleplay_engine: { tracked_fields: [defs[0], { name: 'Broken', type: 'number' }] } } } };
    expect(parseCardJson(JSON.stringify(mangled)).data.trackedFields).toEqual([defs[0]]);

    const exported = engine.exportChat(chat, 'sillytavern');
    const header = JSON.parse(exported.split('\n')[0]!) as { chat_metadata: { roleplay_engine: { tracked_fields: { name: string; values: Record<string, unknown> }[] } } };
    expect(header.chat_metadata.roleplay_engine.tracked_fields.map((f) => [f.name, f.values])).toEqual([
      ['Hunger', { Ada: 30 }],
      ['Mood', {}],
      ['Outfit', {}],
    ]);
  });
});
