import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../../src/engine/engine.ts';
import type { ChatState } from '../../src/engine/queries/chat-state.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { dumpProjections } from '../support/dump.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openStory } from '../support/story.ts';

let engine: Engine;
let db: Db;
let chat: string;
let bot: string;
const count = await loadTokenCounter();

beforeEach(async () => {
  ({ engine, db, bot, chat } = await openStory());
});

async function exchange(inChat: string, text: string, reply: string, delta: number, sceneEnd = 'none') {
  const turn = engine.turns.beginTurn(inChat, text);
  engine.turns.finishTurn(turn, { text: reply, usage: null, truncated: false, reason: null, error: null });
  const answer = JSON.stringify({
    minutesPassed: 15,
    significance: 3,
    sceneEnd,
    newPlace: sceneEnd === 'place_changed' ? 'The harbour' : '',
    feelings: { 'Mira -> Ada': { affinityDelta: delta, trustDelta: 2, newFacts: [`fact: ${text}`] } },
  });
  const llm = scriptedLlm(answer, answer);
  for (let job = engine.analysis.pending(inChat)[0]; job; job = engine.analysis.pending(inChat)[0]) await engine.analysis.run(llm.client, job, count);
  return engine.transcript(inChat).turns.at(-1)!;
}

/** A chat's state as a player reads it: everything but the ids that differ between two chats. */
function readable(state: ChatState) {
  return {
    fictionTime: state.fictionTime,
    weather: state.weather,
    place: state.place?.name ?? null,
    scene: state.scene ? { participants: state.scene.participants, opened: state.scene.openedFictionTime } : null,
    activities: state.activities.map(({ containerId: _, ...a }) => a),
    edges: state.edges,
    memories: state.memories.map((m) => ({ summary: m.summary, significance: m.significance, pinned: m.pinned, fictionTime: m.fictionTime })),
    pinned: state.pinned,
  };
}

describe('branch from here', () => {
  it('makes a new chat holding this story up to that turn, its state exactly as it was then; the original is untouched', async () => {
    const first = await exchange(chat, '"One."', 'Reply one.', 5);
    await exchange(chat, '"Two."', 'Reply two.', -8, 'place_changed');
    const original = { dump: dumpProjections(db), texts: engine.transcript(chat).turns.map((t) => t.text) };

    // What the chat was right after the first reply: rewind to there, look, undo.
    const nextSeq = engine.transcript(chat).turns.find((t) => t.text === '"Two."')!.seq;
    engine.rewind(chat, nextSeq);
    const then = { state: readable(engine.chatState(chat)!), texts: engine.transcript(chat).turns.map((t) => t.text) };
    engine.undoRewind(chat);

    const branch = engine.branchChat(chat, first.seq);
    expect(engine.listChats().map((c) => c.title)).toEqual(expect.arrayContaining(['Storm crossing', 'Storm crossing (branch)']));
    expect(engine.transcript(branch).turns.map((t) => t.text)).toEqual(then.texts);
    expect(readable(engine.chatState(branch)!)).toEqual(then.state);
    expect(then.state.place).toBe('The Gull');
    expect(engine.transcript(chat).turns.map((t) => t.text)).toEqual(original.texts);
    // Every original row is still there as it was; the branch only added rows of its own.
    const now = dumpProjections(db);
    for (const table of ['transcript', 'memories', 'edges', 'scenes', 'containers', 'activity'] as const) {
      const mine = (rows: unknown[]) => rows.filter((r) => (r as { chat_id: string }).chat_id === chat);
      expect(mine(now[table]!)).toEqual(mine(original.dump[table]!));
    }
  });

  it('plays on by itself, and a re-sent branch makes one chat', async () => {
    const first = await exchange(chat, '"One."', 'Reply one.', 5);
    await exchange(chat, '"Two."', 'Reply two.', 1);
    const branch = engine.branchChat(chat, first.seq, 'branch-1');
    expect(engine.branchChat(chat, first.seq, 'branch-1')).toBe(branch);
    expect(engine.listChats()).toHaveLength(2);
    await exchange(branch, '"Something else."', 'A different story.', 9);
    expect(engine.transcript(branch).turns.map((t) => t.text).slice(-2)).toEqual(['"Something else."', 'A different story.']);
    expect(engine.transcript(chat).turns.map((t) => t.text)).not.toContain('A different story.');
    const mira = (id: string) => engine.chatState(id)!.edges.find((e) => e.source === bot)!.affinity;
    expect(mira(chat)).toBe(56);
    expect(mira(branch)).toBe(64);
    // The log alone rebuilds both stories.
    const before = dumpProjections(db);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(before);
  });

  it('refuses, writing nothing, a story whose bot was reset partway (a copy would bring back what the reset cleared)', async () => {
    const first = await exchange(chat, '"One."', 'Reply one.', 5);
    engine.authoring.resetBot(bot, 'Mira');
    await exchange(chat, '"Two."', 'Reply two.', 1);
    const head = engine.headSeq();
    expect(() => engine.branchChat(chat, first.seq)).toThrow(/reset partway/);
    expect(engine.headSeq()).toBe(head);
    expect(engine.listChats()).toHaveLength(1);
  });

  it('refuses a turn that is not in the chat, writing nothing', async () => {
    const head = engine.headSeq();
    expect(() => engine.branchChat(chat, 999_999)).toThrow(/not part of this chat/);
    expect(engine.headSeq()).toBe(head);
  });
});
