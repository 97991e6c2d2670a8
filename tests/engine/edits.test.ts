import { describe, expect, it } from 'vitest';
import type { Engine } from '../support/engine.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { bot, chat, count, db, engine, freshStoryEachTest } from '../support/story-per-test.ts';

freshStoryEachTest();

const analysis = (delta: number) =>
  JSON.stringify({ minutesPassed: 10, significance: 1, sceneEnd: 'none', newPlace: '', feelings: { 'Mira -> Ada': { affinityDelta: delta, trustDelta: 0, newFacts: [] } } });
async function analyzeAll(...answers: string[]) {
  const llm = scriptedLlm(...answers);
  for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm.client, job, count);
  return llm.calls;
}
async function exchange(text: string, reply: string, delta: number) {
  const turn = engine.turns.beginTurn(chat, text);
  engine.turns.finishTurn(turn, { text: reply, usage: null, truncated: false, reason: null, error: null });
  await analyzeAll(analysis(delta));
  return engine.transcript(chat).turns.slice(-2) as [ReturnType<Engine['transcript']>['turns'][number], ReturnType<Engine['transcript']>['turns'][number]];
}
const mira = () => engine.chatState(chat)!.edges.find((e) => e.source === bot)!;
const events = () => db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;

describe('edit any message', () => {
  it('editing the latest reply redoes its analysis on the new text; the old analysis and text stay in the log', async () => {
    const [, reply] = await exchange('"Hello."', 'Mira sneers.', -10);
    expect(mira().affinity).toBe(40);
    engine.editTurn(chat, reply.turnId, 'Mira smiles warmly.');
    expect(engine.transcript(chat).turns.at(-1)).toMatchObject({ text: 'Mira smiles warmly.', edited: true });
    expect(mira().affinity).toBe(50); // the sneer's analysis no longer counts
    const calls = await analyzeAll(analysis(10));
    expect(calls).toHaveLength(1);
    expect(calls[0]!.messages.map((m) => m.content).join('\n')).toContain('Mira smiles warmly.');
    expect(mira().affinity).toBe(60);
    expect(engine.chatState(chat)!.memories[0]!.summary).toContain('Mira smiles warmly.');
    const original = db.get<{ payload: string }>("SELECT payload FROM events WHERE kind = 'assistant_turn' ORDER BY seq DESC LIMIT 1")!;
    expect(JSON.parse(original.payload).text).toBe('Mira sneers.');
  });

  it('editing an older turn changes the words the narrator sees from then on, and nothing it caused', async () => {
    const [you] = await exchange('"I hid the map." ((OOC: she lies))', 'Mira frowns.', -10);
    await exchange('"Shall we go?"', 'Mira nods.', 5);
    const before = engine.chatState(chat);
    engine.editTurn(chat, you.turnId, '"I burned the map." ((she really did))');
    expect(engine.chatState(chat)).toEqual(before);
    expect(engine.analysis.pending(chat)).toEqual([]);
    const turn = engine.transcript(chat).turns.find((t) => t.turnId === you.turnId)!;
    expect(turn).toMatchObject({ text: '"I burned the map." ((she really did))', edited: true });
    expect(turn.segments!.map((s) => s.type)).toEqual(['dialogue', 'ooc']);
    const next = engine.turns.beginTurn(chat, 'Go on.');
    const prompt = engine.narratorPrompt(chat, next.startedSeq, count).messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('I burned the map.');
    expect(prompt).not.toContain('I hid the map');
    expect(prompt).not.toContain('she really did'); // out of character, never sent on
  });

  it('"Save and regenerate" on your latest message: the edit, then a new reply in place of the old one', async () => {
    const [you] = await exchange('"Tell me a story."', 'Mira yawns.', -5);
    engine.editTurn(chat, you.turnId, '"Tell me about the lighthouse."');
    const again = engine.turns.regenerate(chat);
    const prompt = engine.narratorPrompt(chat, again.startedSeq, count).messages;
    expect(prompt.at(-1)).toEqual({ role: 'user', content: '"Tell me about the lighthouse."' });
    expect(engine.transcript(chat).turns.map((t) => t.text).slice(-2)).toEqual(['"Tell me about the lighthouse."', '']);
    expect(mira().affinity).toBe(50); // the yawn and its analysis were superseded
  });

  it('refuses an empty message, a streaming reply and a turn not in the chat, writing nothing', async () => {
    const [you] = await exchange('"Hi."', 'Hello.', 0);
    const before = events();
    expect(() => engine.editTurn(chat, you.turnId, '   ')).toThrow(/cannot be empty/);
    expect(() => engine.editTurn(chat, engine.newId(), 'x')).toThrow(/not in this chat/);
    const streaming = engine.turns.beginTurn(chat, 'More.');
    expect(() => engine.editTurn(chat, streaming.turnId, 'x')).toThrow(/still being written/);
    expect(events()).toBe(before + 2); // only the begun turn
    engine.editTurn(chat, you.turnId, '"Hi."'); // unchanged: nothing to record
    expect(events()).toBe(before + 2);
  });
});

describe('delete a message', () => {
  it('hides it from the transcript and the prompt, keeps what it caused, and comes back on undo', async () => {
    const [you, reply] = await exchange('"My secret name is Wren."', 'Mira repeats it softly.', 7);
    await exchange('"Next."', 'Mira waits.', 0);
    const state = engine.chatState(chat);
    engine.setTurnHidden(chat, you.turnId, true);
    engine.setTurnHidden(chat, you.turnId, true); // already hidden: nothing more
    expect(engine.transcript(chat).turns.find((t) => t.turnId === you.turnId)).toMatchObject({ hidden: true });
    expect(engine.chatState(chat)).toEqual(state);
    const next = engine.turns.beginTurn(chat, 'Go on.');
    const prompt = engine.narratorPrompt(chat, next.startedSeq, count).messages.map((m) => m.content).join('\n');
    expect(prompt).not.toContain('Wren."');
    expect(prompt).toContain('Mira repeats it softly.');
    engine.setTurnHidden(chat, you.turnId, false);
    expect(engine.transcript(chat).turns.find((t) => t.turnId === you.turnId)).toMatchObject({ hidden: false, text: '"My secret name is Wren."' });
    expect(reply.hidden).toBe(false);
  });
});
