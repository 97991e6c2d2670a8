import { describe, expect, it } from 'vitest';
import { dumpProjections } from '../support/dump.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { bot, chat, count, db, engine, freshStoryEachTest } from '../support/story-per-test.ts';

freshStoryEachTest();

/** One exchange and its analysis: Mira's feeling moves by `delta`, she learns a fact, 20 minutes pass. */
async function exchange(text: string, reply: string, delta: number, sceneEnd = 'none') {
  const turn = engine.turns.beginTurn(chat, text);
  engine.turns.finishTurn(turn, { text: reply, usage: null, truncated: false, reason: null, error: null });
  const answer = JSON.stringify({
    minutesPassed: 20,
    significance: 3, // pinned automatically
    sceneEnd,
    newPlace: sceneEnd === 'place_changed' ? 'The harbour' : '',
    feelings: { 'Mira -> Ada': { affinityDelta: delta, trustDelta: 1, newFacts: [`fact of ${text}`] } },
  });
  const llm = scriptedLlm(answer, answer, answer);
  for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm.client, job, count);
  return engine.transcript(chat).turns.at(-2)!.seq; // the user's row
}
const texts = () => engine.transcript(chat).turns.map((t) => t.text);

describe('rewind', () => {
  it('previews exactly what the rewind then does, and the preview itself changes nothing', async () => {
    await exchange('one', 'Reply one.', 5);
    const two = await exchange('two', 'Reply two.', 7, 'place_changed');
    await exchange('three', 'Reply three.', -4);
    const head = engine.headSeq();
    const before = dumpProjections(db);
    const stateBefore = engine.chatState(chat)!;
    expect(texts()).toHaveLength(7); // the opening narration and three exchanges

    const preview = engine.previewRewind(chat, two);
    expect(engine.headSeq()).toBe(head);
    expect(dumpProjections(db)).toEqual(before);

    expect(preview).toMatchObject({
      turnsHidden: 4,
      clock: { from: '1890-05-01T21:00:00', to: '1890-05-01T20:20:00' },
      place: { from: 'The harbour', to: 'The Gull' },
      scenesUndone: 2, // the harbour scene is gone, the ship scene is open again
      feelings: [{ sourceName: 'Mira', targetName: 'Ada', affinity: -3, trust: -2, factsForgotten: 2 }],
      memoriesForgotten: [{ ownerId: bot, name: 'Mira', count: 2 }],
      pinsLost: 2,
    });

    engine.rewind(chat, two);
    const after = engine.chatState(chat)!;
    expect(texts()).toHaveLength(7 - preview.turnsHidden);
    expect(after.fictionTime).toBe(preview.clock.to);
    expect(after.place?.name).toBe(preview.place.to);
    const mira = (s: typeof after) => s.edges.find((e) => e.source === bot)!;
    expect(mira(after).affinity - mira(stateBefore).affinity).toBe(preview.feelings[0]!.affinity);
    expect(mira(stateBefore).knowledge.length - mira(after).knowledge.length).toBe(preview.feelings[0]!.factsForgotten);
    expect(stateBefore.memories.length - after.memories.length).toBe(preview.memoriesForgotten[0]!.count);
    expect(stateBefore.pinned.count - after.pinned.count).toBe(preview.pinsLost);
  });

  it('leaves a stub that restores the stretch at any later time, to exactly the tables it had', async () => {
    await exchange('one', 'Reply one.', 5);
    const two = await exchange('two', 'Reply two.', 7);
    const before = dumpProjections(db);
    const rewound = engine.rewind(chat, two);
    expect(engine.transcript(chat).rewinds).toEqual([{ seq: rewound.seq, turns: 2 }]);

    await exchange('a new direction', 'Reply anew.', 1); // play on, then change one's mind
    expect(texts().slice(-2)).toEqual(['a new direction', 'Reply anew.']);
    const restore = engine.undoRewind(chat, rewound.seq);
    expect(engine.headSeq()).toBe(restore.seq);
    expect(engine.transcript(chat).rewinds).toEqual([]);
    expect(texts().slice(-4)).toEqual(['two', 'Reply two.', 'a new direction', 'Reply anew.']);

    // Undone the other way round: rewinding the new direction away gives exactly the old tables.
    const anew = engine.transcript(chat).turns.at(-2)!.seq;
    engine.rewind(chat, anew);
    const { visibility: _v1, chats: _c1, ...now } = dumpProjections(db);
    const { visibility: _v2, chats: _c2, ...then } = before;
    expect(now).toEqual(then);
  });

  it('restoring is refused for a rewind a newer rewind hid, until that one is restored', async () => {
    await exchange('one', 'Reply one.', 5);
    const two = await exchange('two', 'Reply two.', 7);
    const first = engine.rewind(chat, two);
    const anew = await exchange('anew', 'Reply anew.', 1);
    const one = engine.transcript(chat).turns.find((t) => t.text === 'one')!.seq;
    const second = engine.rewind(chat, one); // hides "one", "anew" and the first rewind's stub
    expect(engine.transcript(chat).rewinds.map((r) => r.seq)).toEqual([second.seq]);
    const head = engine.headSeq();
    expect(() => engine.undoRewind(chat, first.seq)).toThrow(/cannot be restored/);
    expect(engine.headSeq()).toBe(head);
    engine.undoRewind(chat, second.seq);
    expect(texts()).not.toContain('two');
    expect(texts()).toContain('anew');
    engine.undoRewind(chat, first.seq);
    expect(texts()).toEqual(expect.arrayContaining(['one', 'two', 'anew']));
    expect(anew).toBeGreaterThan(two);
  });

  it("counts in its stub only the turns that were showing, not a reply's earlier versions", async () => {
    const two = await exchange('two', 'Reply two.', 7);
    engine.turns.finishTurn(engine.turns.regenerate(chat), { text: 'Reply two, again.', usage: null, truncated: false, reason: null, error: null });
    const rewound = engine.rewind(chat, two);
    expect(engine.transcript(chat).rewinds).toEqual([{ seq: rewound.seq, turns: 2 }]);
  });

  it('refuses a point that is not in the chat as it stands', async () => {
    const two = await exchange('two', 'Reply two.', 7);
    engine.rewind(chat, two);
    expect(() => engine.previewRewind(chat, two)).toThrow(/not part of this chat/);
    expect(() => engine.rewind(chat, two + 1)).toThrow(/not part of this chat/);
  });
});
