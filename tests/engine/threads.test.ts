import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openStory } from '../support/story.ts';

const count = await loadTokenCounter();
type Story = Awaited<ReturnType<typeof openStory>>;

/** One exchange, analysed with this answer for its threads. */
async function exchange({ engine, chat }: Story, line: string, threads: unknown) {
  const turn = engine.turns.beginTurn(chat, line);
  engine.turns.finishTurn(turn, { text: 'Mira nods slowly.', usage: null, truncated: false, reason: null, error: null });
  const answer = JSON.stringify({ minutesPassed: 5, significance: 1, sceneEnd: 'none', newPlace: '', feelings: {}, threads });
  const llm = scriptedLlm(answer, answer);
  for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm.client, job, count);
  return llm.calls;
}
const open = (story: Story) => story.engine.chatState(story.chat)!.threads.filter((t) => t.status === 'open').map((t) => `${t.kind}: ${t.text}`);

describe('open threads', () => {
  it('are opened and settled by the same one analysis call per reply; an open one said again is not opened twice; unknown labels are ignored', async () => {
    const story = await openStory();
    const calls = await exchange(story, '"Promise you will take me north."', {
      opened: [
        { kind: 'promise', text: 'Mira promised to take Ada north.' },
        { kind: 'question', text: 'Who sank the Gull?' },
      ],
      resolved: [],
    });
    expect(calls).toHaveLength(1);
    expect(open(story)).toEqual(['promise: Mira promised to take Ada north.', 'question: Who sank the Gull?']);

    // The classifier is shown the open threads by label, and settles one; a repeat and a made-up label change nothing.
    const next = await exchange(story, '"It was the harbourmaster."', {
      opened: [{ kind: 'promise', text: 'mira promised to take ada north' }],
      resolved: ['T2', 'T9'],
    });
    expect(next[0]!.messages[0]!.content).toContain('T1 (promise): Mira promised to take Ada north.\nT2 (question): Who sank the Gull?');
    expect(open(story)).toEqual(['promise: Mira promised to take Ada north.']);
    expect(story.engine.chatState(story.chat)!.threads.map((t) => t.status)).toEqual(['open', 'resolved']);
  });

  it('reach the narrator at the SHOULD tier while open, however old, with how long they have been open', async () => {
    const story = await openStory();
    await exchange(story, '"Swear it."', { opened: [{ kind: 'promise', text: 'Mira swore to repay the debt.' }], resolved: [] });
    story.engine.skipAhead(story.chat, { days: 3 });
    const { leader, client } = testLeader(story.engine, narratorOnly(scriptedLlm('Mira smiles.').client));
    await client.sendTurn(story.chat, '"Well?"');
    await leader.idle();
    const report = (await client.replyPrompt(story.chat, story.engine.transcript(story.chat).turns.at(-1)!.turnId))!;
    expect(report.parts.find((p) => p.label === 'open threads')).toMatchObject({ tier: 'should', text: expect.stringContaining('- promise, since three days ago: Mira swore to repay the debt.') });
  });

  it('follow rewind and a host reset, are added and settled by hand, and go into the recap', async () => {
    const story = await openStory();
    const { engine, chat, bot } = story;
    const added = engine.addThread(chat, 'quest', '  Find the   lighthouse keeper. ');
    expect(open(story)).toEqual(['quest: Find the lighthouse keeper.']);
    expect(() => engine.addThread(chat, 'quest', '   ')).toThrow(/Say what the thread is/);
    const before = engine.transcript(chat).turns.at(-1)!;
    await exchange(story, '"And who is she?"', { opened: [{ kind: 'secret', text: 'The keeper is Mira’s sister.' }], resolved: [] });
    expect(engine.recap(chat)!.openThreads.map((t) => t.text)).toEqual(['Find the lighthouse keeper.', 'The keeper is Mira’s sister.']);

    engine.editState(chat, { type: 'thread', id: added }, 'status', 'resolved');
    expect(open(story)).toEqual(['secret: The keeper is Mira’s sister.']);
    expect(() => engine.editState(chat, { type: 'thread', id: added }, 'status', 'maybe')).toThrow();

    // Rewound past the exchange, its thread is gone, and so is the settling that came after; the hand-made thread from before stays.
    engine.rewind(chat, engine.transcript(chat).turns.find((t) => t.seq > before.seq)!.seq);
    expect(engine.chatState(chat)!.threads.map((t) => `${t.status}: ${t.text}`)).toEqual(['open: Find the lighthouse keeper.']);
    engine.undoRewind(chat);
    expect(open(story)).toEqual(['secret: The keeper is Mira’s sister.']);

    engine.resetBot(bot, 'Mira');
    expect(engine.chatState(chat)!.threads).toEqual([]);
    engine.undoBotReset(bot);
    expect(open(story)).toEqual(['secret: The keeper is Mira’s sister.']);
  });
});

describe('an analysis answer with a malformed part', () => {
  it('drops that part alone: bad threads and a bad pair leave the clock, the other feelings and the memory applied', async () => {
    const story = await openStory();
    const { engine, chat, bot } = story;
    const before = engine.chatState(chat)!;
    const turn = engine.turns.beginTurn(chat, '"Hello."');
    engine.turns.finishTurn(turn, { text: 'Mira waves.', usage: null, truncated: false, reason: null, error: null });
    const answer = JSON.stringify({
      minutesPassed: 30,
      significance: 2,
      sceneEnd: 'none',
      newPlace: '',
      feelings: { 'Mira -> Ada': { affinityDelta: 4, trustDelta: 1, newFacts: ['waved hello'] }, 'Ada -> Mira': { affinityDelta: 'lots' } },
      threads: { opened: 'everything', resolved: 7 },
      keywords: 'not a list',
    });
    const llm = scriptedLlm(answer);
    for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm.client, job, count);
    expect(llm.calls).toHaveLength(1);
    const after = engine.chatState(chat)!;
    expect(after.fictionTime).toBe('1890-05-01T20:30:00');
    const edge = (source: string) => after.edges.find((e) => e.source === source)!;
    expect(edge(bot).affinity - before.edges.find((e) => e.source === bot)!.affinity).toBe(4);
    // The malformed pair moved nothing: Ada's feeling stands where a new one starts.
    expect(edge('you').affinity).toBe(50);
    expect(after.threads).toEqual([]);
    expect(after.memories[0]).toMatchObject({ significance: 2, summary: expect.stringContaining('Mira waves.') });
  });
});
