import { describe, expect, it } from 'vitest';
import { dumpProjections } from '../support/dump.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { bot, chat, count, db, engine, freshStoryEachTest } from '../support/story-per-test.ts';

freshStoryEachTest({ bot: { kickoff: 'Mira waits at the lighthouse door.', initialRelationship: 'Old friends.' } });

async function exchange(text: string, reply: string) {
  const turn = engine.turns.beginTurn(chat, text);
  engine.turns.finishTurn(turn, { text: reply, usage: null, truncated: false, reason: null, error: null });
  const answer = JSON.stringify({ minutesPassed: 5, significance: 1, sceneEnd: 'none', newPlace: '', feelings: { 'Mira -> Ada': { affinityDelta: 9, trustDelta: 4, newFacts: ['Ada owes money'] }, 'Ada -> Mira': { affinityDelta: 3, trustDelta: 0, newFacts: [] } } });
  const llm = scriptedLlm(answer);
  for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm.client, job, count);
}

describe('reset a bot', () => {
  it('asks for the exact name, then clears its story state everywhere and keeps who it is', async () => {
    await exchange('"Pay me back."', 'Mira scowls at the debt.');
    const head = engine.headSeq();
    expect(() => engine.resetBot(bot, 'mira')).toThrow(/exact name, Mira/);
    expect(engine.headSeq()).toBe(head);

    engine.editState(chat, { type: 'chat_state' }, 'weather', 'fog');
    engine.resetBot(bot, 'Mira');
    const state = engine.chatState(chat)!;
    expect(state.lastEdit).toBeNull(); // nothing from before the reset is offered for undo
    expect(state).toMatchObject({ edges: [], memories: [], activities: [], scene: null, place: null });
    expect(engine.getBot(bot)).toMatchObject({ name: 'Mira', kickoff: 'Mira waits at the lighthouse door.', initialRelationship: 'Old friends.' });
    // The story before stays readable, marked, and out of the next prompt, which starts from the kickoff.
    const page = engine.transcript(chat);
    expect(page.turns.map((t) => t.text)).toContain('Mira scowls at the debt.');
    expect(page.resetSeq).toBeGreaterThan(page.turns.at(-1)!.seq);
    // Its latest reply is history now: no versions to flip, nothing to continue or regenerate.
    expect(page.turns.at(-1)!.versions).toBeNull();
    const steady = engine.headSeq();
    for (const steer of [() => engine.turns.regenerate(chat), () => engine.turns.continueReply(chat), () => engine.chooseVersion(chat, 1)]) {
      expect(steer).toThrow(/from before the reset\. Send a message/);
    }
    expect(engine.headSeq()).toBe(steady);
    const next = engine.turns.beginTurn(chat, '"Hello?"');
    const prompt = engine.narratorPrompt(chat, next.startedSeq, count).messages.map((m) => m.content).join('\n');
    expect(prompt).not.toContain('scowls at the debt');
    expect(prompt).not.toContain('Ada owes money');
    expect(prompt).toContain('The story starts afresh: Mira waits at the lighthouse door.');
    expect(prompt).toContain('"Hello?"');
  });

  it('is undone completely: every table as it was before the reset', async () => {
    await exchange('"Pay me back."', 'Mira scowls at the debt.');
    const before = dumpProjections(db);
    engine.resetBot(bot, 'Mira');
    expect(engine.chatState(chat)!.memories).toEqual([]);
    engine.undoBotReset(bot);
    const { visibility: _v, ...after } = dumpProjections(db);
    const { visibility: _w, ...then } = before;
    expect(after).toEqual(then);
    expect(() => engine.undoBotReset(bot)).toThrow(/no reset to undo/);
  });
});
