import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openStory } from '../support/story.ts';
import { canonicalProjections } from '../support/dump.ts';
import { kickoffInput } from '../support/fixtures.ts';

const count = await loadTokenCounter();
type Story = Awaited<ReturnType<typeof openStory>>;

/** One exchange, analysed with this answer for its items. */
async function exchange({ engine, chat }: Story, line: string, items: unknown) {
  const turn = engine.turns.beginTurn(chat, line);
  engine.turns.finishTurn(turn, { text: 'Mira turns something over in her hands.', usage: null, truncated: false, reason: null, error: null });
  const answer = JSON.stringify({ minutesPassed: 5, significance: 1, sceneEnd: 'none', newPlace: '', feelings: {}, items });
  const llm = scriptedLlm(answer, answer);
  for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm.client, job, count);
  return llm.calls;
}
const held = ({ engine, chat }: Story) => engine.chatState(chat)!.items.map((i) => `${i.name}: ${i.holder === 'you' ? 'you' : i.holder ? 'bot' : 'nobody'} / ${i.where} / ${i.state}`);

describe('items', () => {
  it('are noted and moved by the same one analysis call: holders by name, known items by label, repeats and unknown labels ignored', async () => {
    const story = await openStory();
    const calls = await exchange(story, '"What is that in your pocket?"', {
      new: [
        { name: 'silver key', holder: 'Mira', where: 'in her coat pocket', state: 'tarnished' },
        { name: 'lantern', holder: 'the innkeeper', where: 'on the table', state: 'lit' },
      ],
      changed: [],
    });
    expect(calls).toHaveLength(1);
    expect(held(story)).toEqual(['silver key: bot / in her coat pocket / tarnished', 'lantern: nobody / on the table / lit']);

    // The classifier is shown the items by label, and moves one; a repeat and a made-up label change nothing.
    const next = await exchange(story, '"Give it to me."', {
      new: [{ name: 'Silver key', holder: 'Mira', where: '', state: '' }],
      changed: [
        { item: 'I2', holder: 'Ada', where: 'in her hand' },
        { item: 'I9', gone: true },
      ],
    });
    const prompt = String(next[0]!.messages[0]!.content);
    expect(prompt).toContain('I1: lantern (nobody has it; on the table; lit)');
    expect(prompt).toContain('I2: silver key (Mira has it; in her coat pocket; tarnished)');
    expect(held(story)).toEqual(['silver key: you / in her hand / tarnished', 'lantern: nobody / on the table / lit']);

    // Gone: it leaves the list (used up, lost, destroyed).
    await exchange(story, '"Blow it out."', { new: [], changed: [{ item: 'I2', gone: true }] });
    expect(held(story)).toEqual(['silver key: you / in her hand / tarnished']);
  });

  it('reach the narrator: what each present person has in the scene, and every item at the SHOULD tier', async () => {
    const story = await openStory();
    await exchange(story, '"Take this."', { new: [{ name: 'old compass', holder: 'Ada', where: 'in her hand', state: 'cracked' }], changed: [] });
    const { leader, client } = testLeader(story.engine, narratorOnly(scriptedLlm('Mira smiles.').client));
    await client.sendTurn(story.chat, '"Well?"');
    await leader.idle();
    const report = (await client.replyPrompt(story.chat, story.engine.transcript(story.chat).turns.at(-1)!.turnId))!;
    expect(report.parts.find((p) => p.label === 'scene')!.text).toMatch(/Ada: [^\n]*, with old compass\./);
    expect(report.parts.find((p) => p.label === 'items')).toMatchObject({ tier: 'should', text: expect.stringContaining('- old compass (Ada has it; in her hand; cracked)') });
  });

  it('start from what the kickoff says each holds, are added and edited by hand, follow rewind, and "Undo this change" gives an item back', async () => {
    const story = await openStory();
    const { engine, bot } = story;
    const standing = kickoffInput().bot as object;
    const chat = engine.startChat(bot, kickoffInput({ bot: { ...standing, holding: ['a brass lantern'] } }));
    const s = { ...story, chat };
    expect(held(s)).toEqual(['a brass lantern: bot / in hand / ']);
    expect(engine.chatState(chat)!.activities.find((a) => a.entity === bot)).not.toHaveProperty('holding');

    const map = engine.addItem(chat, '  folded   map ', 'you', 'in my satchel');
    expect(held(s)).toEqual(['folded map: you / in my satchel / ', 'a brass lantern: bot / in hand / ']);
    expect(() => engine.addItem(chat, '   ', '', '')).toThrow(/Name the item/);
    expect(() => engine.addItem(chat, 'rope', 'someone-else', '')).toThrow(/in this chat, or nobody/);
    engine.editState(chat, { type: 'item', id: map }, 'state', 'torn at the fold');
    expect(() => engine.editState(chat, { type: 'item', id: map }, 'holder', 'a stranger')).toThrow();

    const before = engine.transcript(chat).turns.at(-1)!;
    await exchange(s, '"Hand me the map."', { new: [], changed: [{ item: 'I1', holder: 'Mira' }] });
    expect(held(s)[1]).toBe('folded map: bot / in my satchel / torn at the fold');
    // The story's move taken back: the map is yours again, and the rest stays.
    const move = engine.valueHistory(chat, { type: 'item', id: map }, 'holder')[0]!;
    expect(move).toMatchObject({ by: 'story', how: 'set', value: bot });
    engine.undoChange(chat, move.eventId, move.change);
    expect(held(s)[0]).toBe('folded map: you / in my satchel / torn at the fold');

    const snapshot = canonicalProjections(story.db);
    engine.rebuild();
    expect(canonicalProjections(story.db)).toEqual(snapshot);
    // Rewound to before the exchange: no move, and no undo of it either.
    engine.rewind(chat, engine.transcript(chat).turns.find((t) => t.seq > before.seq)!.seq);
    expect(held(s)[0]).toBe('folded map: you / in my satchel / torn at the fold');
    expect(engine.valueHistory(chat, { type: 'item', id: map }, 'holder')).toEqual([]);
  });
});
