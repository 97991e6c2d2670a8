import { describe, expect, it } from 'vitest';
import type { Engine } from '../support/engine.ts';
import type { LlmClient } from '../../src/engine/llm/port.ts';
import { dumpProjections } from '../support/dump.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { bot, chat, count, db, engine, freshStoryEachTest } from '../support/story-per-test.ts';

freshStoryEachTest();

/** An analysis answer moving Mira's affinity toward Ada and teaching her one fact. */
const analysis = (affinityDelta: number, fact: string) =>
  JSON.stringify({ minutesPassed: 10, significance: 1, sceneEnd: 'none', newPlace: '', feelings: { 'Mira -> Ada': { affinityDelta, trustDelta: 0, newFacts: [fact] } } });

async function analyzeAll(llm: LlmClient) {
  for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) {
    expect(await engine.analysis.run(llm, job, count)).toBe(true);
  }
}

const finish = (turn: ReturnType<Engine['turns']['beginTurn']>, text: string) =>
  engine.turns.finishTurn(turn, { text, usage: null, truncated: false, reason: null, error: null });
const latest = () => engine.transcript(chat).turns.at(-1)!;
const mira = () => engine.chatState(chat)!.edges.find((e) => e.source === bot && e.target === 'you')!;

describe('versions of the latest reply (swipes)', () => {
  it('each version brings its own analysis: feelings, facts, memories and clock follow the one shown', async () => {
    finish(engine.turns.beginTurn(chat, '"Ugly sails."'), 'Mira scowls.');
    await analyzeAll(scriptedLlm(analysis(-10, 'Ada insulted the sails.')).client);
    const first = { edge: mira(), state: engine.chatState(chat) };
    expect(first.edge).toMatchObject({ affinity: 40, knowledge: ['Ada insulted the sails.'] });

    finish(engine.turns.regenerate(chat), 'Mira laughs.');
    await analyzeAll(scriptedLlm(analysis(8, 'Ada jokes about the sails.')).client);
    expect(latest()).toMatchObject({ text: 'Mira laughs.', versions: { number: 2, of: 2 } });
    expect(mira()).toMatchObject({ affinity: 58, knowledge: ['Ada jokes about the sails.'] });
    const second = engine.chatState(chat);

    expect(engine.chooseVersion(chat, 1)).toEqual({ number: 1, of: 2 });
    expect(latest()).toMatchObject({ text: 'Mira scowls.', versions: { number: 1, of: 2 } });
    expect(engine.chatState(chat)).toEqual(first.state);
    expect(engine.analysis.pending(chat)).toEqual([]); // analysed once already: no new call

    engine.chooseVersion(chat, 2);
    expect(engine.chatState(chat)).toEqual(second);
    expect(engine.transcript(chat).turns.map((t) => t.text)).toEqual([expect.any(String), '"Ugly sails."', 'Mira laughs.']);
  });

  it('a version never analysed is analysed when it is chosen, with one classifier call, never before', async () => {
    finish(engine.turns.beginTurn(chat, 'Hello'), 'Version one.');
    finish(engine.turns.regenerate(chat), 'Version two.'); // before version one was analysed
    const llm = scriptedLlm(analysis(5, 'Ada said hello.'), analysis(-5, 'Ada was curt.'));
    await analyzeAll(llm.client);
    expect(llm.calls).toHaveLength(1);
    expect(mira()).toMatchObject({ affinity: 55 });

    engine.chooseVersion(chat, 1);
    expect(engine.analysis.pending(chat)).toHaveLength(1);
    await analyzeAll(llm.client);
    expect(llm.calls).toHaveLength(2);
    expect(mira()).toMatchObject({ affinity: 45, knowledge: ['Ada was curt.'] });
    // Back to two: its own analysis, and nothing left to do.
    engine.chooseVersion(chat, 2);
    expect(mira()).toMatchObject({ affinity: 55, knowledge: ['Ada said hello.'] });
    expect(engine.analysis.pending(chat)).toEqual([]);
  });

  it('regenerating from an earlier version adds a version, and a rebuild from the log alone agrees', async () => {
    finish(engine.turns.beginTurn(chat, 'Hi'), 'One.');
    finish(engine.turns.regenerate(chat), 'Two.');
    engine.chooseVersion(chat, 1);
    finish(engine.turns.regenerate(chat), 'Three.');
    expect(latest()).toMatchObject({ text: 'Three.', versions: { number: 3, of: 3 } });
    engine.chooseVersion(chat, 2);
    expect(latest()).toMatchObject({ text: 'Two.', versions: { number: 2, of: 3 } });
    const incremental = dumpProjections(db);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(incremental);
  });

  it('a re-sent choice applies once; choices that make no sense are refused and write nothing', async () => {
    expect(() => engine.chooseVersion(chat, 2)).toThrow(/has 1 version; there is no version 2/);
    finish(engine.turns.beginTurn(chat, 'Hi'), 'One.');
    finish(engine.turns.regenerate(chat), 'Two.');
    const head = engine.headSeq();
    engine.as('choose-1').chooseVersion(chat, 1);
    engine.as('choose-1').chooseVersion(chat, 1);
    engine.chooseVersion(chat, 1); // already shown: nothing to write
    expect(engine.headSeq()).toBe(head + 1);
    expect(() => engine.chooseVersion(chat, 3)).toThrow(/has 2 versions; there is no version 3/);
    engine.turns.beginTurn(chat, 'And then?');
    expect(() => engine.chooseVersion(chat, 2)).toThrow(/still being written/);
    expect(engine.headSeq()).toBe(head + 3);
  });

  it('versions survive a rewind and its undo', async () => {
    finish(engine.turns.beginTurn(chat, 'Hi'), 'One.');
    finish(engine.turns.regenerate(chat), 'Two.');
    engine.chooseVersion(chat, 1);
    const userSeq = engine.transcript(chat).turns.at(-2)!.seq;
    engine.rewind(chat, userSeq);
    expect(engine.transcript(chat).turns.map((t) => t.text)).not.toContain('One.');
    engine.undoRewind(chat);
    expect(latest()).toMatchObject({ text: 'One.', versions: { number: 1, of: 2 } });
  });

  it("refuses to regenerate or continue the opening: it is the author's kickoff (issue 13)", () => {
    expect(engine.transcript(chat).turns).toHaveLength(1);
    const head = engine.headSeq();
    expect(() => engine.turns.regenerate(chat)).toThrow(/The opening is the story’s kickoff/);
    expect(() => engine.turns.continueReply(chat)).toThrow(/The opening is the story’s kickoff/);
    expect(engine.headSeq()).toBe(head);
  });
});

