import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { CONTINUE_INSTRUCTION, joinContinuation } from '../../src/engine/turn/continuation.ts';
import { testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openStory } from '../support/story.ts';

let engine: Engine;
let db: Db;
let chat: string;
let bot: string;

beforeEach(async () => {
  ({ engine, db, bot, chat } = await openStory({ now: Date.now }));
});

const analysis = (delta: number) =>
  JSON.stringify({ minutesPassed: 5, significance: 1, sceneEnd: 'none', newPlace: '', feelings: { 'Mira -> Ada': { affinityDelta: delta, trustDelta: 0, newFacts: [] } } });
const latest = () => engine.transcript(chat).turns.at(-1)!;

describe('continue a reply', () => {
  it('streams on from the last word in one upstream call; the continuation is part of the same reply, analysed again as a whole', async () => {
    const llm = scriptedLlm('The storm breaks over the bow', analysis(5), 'and the mast groans.', analysis(-3));
    const { leader, client, events } = testLeader(engine, llm.client);
    await client.sendTurn(chat, '"Hold on!"');
    await leader.idle();
    const { turnId } = latest();
    const { turnId: continued } = await client.continueReply(chat);
    expect(continued).toBe(turnId);
    await leader.idle();

    expect(latest()).toMatchObject({ turnId, text: 'The storm breaks over the bow and the mast groans.', status: 'done' });
    expect(engine.transcript(chat).turns.filter((t) => t.role === 'assistant')).toHaveLength(2); // the opening and this one
    // The continuation call carried the reply so far and asked for what comes next.
    const call = llm.calls[2]!;
    expect(call.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'The storm breaks over the bow' },
      { role: 'user', content: CONTINUE_INSTRUCTION },
    ]);
    // The deltas every tab saw add up to the whole reply, from the earlier text on.
    const deltas = events.flatMap((e) => (e.type === 'publish' && (e.data as { turnId: string; type: string }).turnId === turnId && (e.data as { type: string }).type === 'delta' ? [(e.data as { text: string }).text] : []));
    expect(deltas.join('')).toBe('The storm breaks over the bow and the mast groans.');
    // One analysis in force, of the whole reply: the first one's +5 was superseded by the -3.
    expect(llm.calls[3]!.messages.map((m) => m.content).join('\n')).toContain('the mast groans');
    expect(engine.chatState(chat)!.edges.find((e) => e.source === bot)!.affinity).toBe(47);
    expect(llm.remaining()).toBe(0);
  });

  it('Stop keeps the earlier text and what came; a leader that dies before a checkpoint keeps the earlier text', async () => {
    const llm = scriptedLlm('Rain hammers the deck.', analysis(0), 'hang');
    const { leader, client } = testLeader(engine, llm.client);
    await client.sendTurn(chat, 'Wait.');
    await leader.idle();
    await client.continueReply(chat);
    await expect.poll(() => llm.calls.length).toBe(3);
    await client.stopTurn(chat);
    await leader.idle();
    expect(latest()).toMatchObject({ text: 'Rain hammers the deck.', status: 'truncated', reason: 'stopped' });

    // Continued again, and the leader vanishes mid-stream: the next one commits what there was.
    engine.turns.continueReply(chat);
    expect(latest().status).toBe('streaming');
    expect(engine.turns.recoverInterrupted()).toHaveLength(1);
    expect(latest()).toMatchObject({ text: 'Rain hammers the deck.', status: 'truncated', reason: 'interrupted' });
  });

  it('a regenerate after a continue replaces the whole reply; an empty or missing reply cannot be continued', async () => {
    const llm = scriptedLlm('One', analysis(0), 'two.', analysis(0), 'Another take.', analysis(0));
    const { leader, client } = testLeader(engine, llm.client);
    await client.sendTurn(chat, 'Go.');
    await leader.idle();
    await client.continueReply(chat);
    await leader.idle();
    expect(latest().text).toBe('One two.');
    await client.regenerate(chat);
    await leader.idle();
    expect(latest()).toMatchObject({ text: 'Another take.', versions: { number: 2, of: 2 } });
    await client.chooseVersion(chat, 1);
    expect(latest().text).toBe('One two.');

    const head = engine.headSeq();
    engine.turns.beginTurn(chat, 'Hm.');
    expect(() => engine.turns.continueReply(chat)).toThrow(/still being written/);
    expect(engine.headSeq()).toBe(head + 2);
    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM events WHERE kind = 'reply_continued'")!.n).toBe(1);
  });

  it('joins words with a space, and punctuation without one', () => {
    expect(joinContinuation('She said', 'nothing.')).toBe('She said nothing.');
    expect(joinContinuation('She said', ', quietly.')).toBe('She said, quietly.');
    expect(joinContinuation('She said\n', 'Then left.')).toBe('She said\nThen left.');
    expect(joinContinuation('Done.', '')).toBe('Done.');
  });
});
