import { describe, expect, it } from 'vitest';
import type { ChatState } from '../../src/engine/queries/chat-state.ts';
import { EVENT_DEFINITIONS } from '../../src/engine/events/registry.ts';
import { MARKING_CHAT_KINDS, SKIPPED_IN_COPY, STRIPPED_IN_COPY, TRANSLATED_IN_COPY } from '../../src/engine/log/copy-chat.ts';
import { draft } from '../support/fixtures.ts';
import { checkMemoryIndex, dumpProjections } from '../support/dump.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { bot, chat, count, db, engine, freshStoryEachTest, reopenStory } from '../support/story-per-test.ts';

freshStoryEachTest();

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
    const branch = engine.as('branch-1').branchChat(chat, first.seq);
    expect(engine.as('branch-1').branchChat(chat, first.seq)).toBe(branch);
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
    engine.resetBot(bot, 'Mira');
    await exchange(chat, '"Two."', 'Reply two.', 1);
    const head = engine.headSeq();
    expect(() => engine.branchChat(chat, first.seq)).toThrow(/reset partway/);
    expect(engine.headSeq()).toBe(head);
    expect(engine.listChats()).toHaveLength(1);
  });

  it('refuses too when the reset bot only had feelings in the story (the property test found this)', async () => {
    const guest = engine.newId();
    engine.append([draft.bot(guest, { name: 'Tam' }), draft.edge(chat, guest, 'you', { affinityDelta: 4 })]);
    engine.resetBot(guest, 'Tam');
    const first = await exchange(chat, '"One."', 'Reply one.', 5);
    expect(() => engine.branchChat(chat, first.seq)).toThrow(/reset partway/);
  });

  it('refuses a turn that is not in the chat, writing nothing', async () => {
    const head = engine.headSeq();
    expect(() => engine.branchChat(chat, 999_999)).toThrow(/not part of this chat/);
    expect(engine.headSeq()).toBe(head);
  });

  /** A story that has been steered every way a player can: versions, a rewind and its restore, edits, a hidden turn, a pin. */
  async function steeredStory() {
    await exchange(chat, '"One."', 'Reply one.', 5);
    const turn = engine.turns.regenerate(chat);
    engine.turns.finishTurn(turn, { text: 'Reply one, again.', usage: null, truncated: false, reason: null, error: null });
    engine.chooseVersion(chat, 1);
    const two = await exchange(chat, '"Two."', 'Reply two.', -8, 'place_changed');
    engine.rewind(chat, two.seq - 1);
    engine.undoRewind(chat);
    const three = await exchange(chat, '"Three."', 'Reply three.', 3);
    engine.editTurn(chat, engine.transcript(chat).turns.find((t) => t.text === '"Two."')!.turnId, '"Two, said better."');
    engine.editTurn(chat, engine.transcript(chat).turns.find((t) => t.text === 'Reply two.')!.turnId, 'Reply two, mended.');
    engine.setTurnHidden(chat, three.turnId, true);
    engine.setTurnHidden(chat, three.turnId, false);
    const memory = engine.chatState(chat)!.memories[0]!;
    engine.pinMemory(chat, memory.id, true);
    engine.editState(chat, { type: 'chat_state' } as never, 'weather', 'Fog');
    await exchange(chat, '"Four."', 'Reply four.', 1);
    return engine.transcript(chat).turns;
  }

  it("copies a steered story's rows exactly as replaying the copied events would make them, from the latest turn or an earlier one", async () => {
    const turns = await steeredStory();
    const original = dumpProjections(db);
    const fromLatest = engine.branchChat(chat, turns.at(-1)!.seq);
    const fromEarlier = engine.branchChat(chat, turns.find((t) => t.text === '"Two, said better."')!.seq);
    expect(engine.transcript(fromLatest).turns.map((t) => t.text)).toEqual(turns.map((t) => t.text));
    const two = turns.findIndex((t) => t.text === '"Two, said better."');
    expect(engine.transcript(fromEarlier).turns.map((t) => t.text)).toEqual(turns.slice(0, two + 1).map((t) => t.text));
    expect(readable(engine.chatState(fromLatest)!)).toEqual(readable(engine.chatState(chat)!));
    const copied = dumpProjections(db);
    // The original's own rows did not move while its journal was undone and redone for the earlier branch.
    for (const table of Object.keys(original)) {
      const mine = (rows: unknown[]) => rows.filter((r) => Object.values(r as object).includes(chat));
      expect(mine(copied[table]!)).toEqual(mine(original[table]!));
    }
    engine.rebuildChat(fromLatest);
    engine.rebuildChat(fromEarlier);
    expect(dumpProjections(db)).toEqual(copied);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(copied);
    checkMemoryIndex(db);
  });

  it('rewinds into its copied stretch and restores it, from the journal it was given or by replaying it once', async () => {
    const turns = await steeredStory();
    const branch = engine.branchChat(chat, turns.at(-1)!.seq);
    // Compared without visibility and chats: the rewind and its undo are events too (last_seq moves).
    const story = () => {
      const { visibility: _v, chats: _c, ...rest } = dumpProjections(db);
      return rest;
    };
    const before = { dump: story(), state: readable(engine.chatState(branch)!) };
    const replayed = () => {
      const tail = dumpProjections(db);
      engine.rebuildChat(branch);
      expect(dumpProjections(db)).toEqual(tail);
    };

    // Within the copied journal: rewinding past the edit of an analysed reply puts its row back as it was.
    engine.rewind(branch, engine.transcript(branch).turns.find((t) => t.text === '"Three."')!.seq);
    // Both edits came after "Three.", so they go with it.
    expect(engine.transcript(branch).turns.map((t) => t.text).slice(-2)).toEqual(['"Two."', 'Reply two.']);
    expect(engine.transcript(chat).turns.map((t) => t.text)).toContain('Reply two, mended.');
    replayed();
    engine.undoRewind(branch);
    expect(story()).toEqual(before.dump);

    engine.rewind(branch, engine.transcript(branch).turns.find((t) => t.text === '"Two, said better."')!.seq);
    expect(readable(engine.chatState(branch)!).place).toBe('The Gull');
    replayed();
    engine.undoRewind(branch);
    expect(readable(engine.chatState(branch)!)).toEqual(before.state);
    expect(story()).toEqual(before.dump);
  });

  it('rewinds behind the journal it was given (kept short here) by replaying the branch, and restores it', async () => {
    await reopenStory({ journalKeep: 6 });
    const turns = await steeredStory();
    const branch = engine.branchChat(chat, turns.at(-1)!.seq);
    const before = dumpProjections(db);
    engine.rewind(branch, engine.transcript(branch).turns.find((t) => t.text === '"One."')!.seq);
    expect(engine.transcript(branch).turns.map((t) => t.text)).toEqual(['The storm hits as you board.']);
    const rewound = dumpProjections(db);
    engine.rebuildChat(branch);
    expect(dumpProjections(db)).toEqual(rewound);
    engine.undoRewind(branch);
    const { visibility: _v1, chats: _c1, ...now } = dumpProjections(db);
    const { visibility: _v2, chats: _c2, ...then } = before;
    expect(now).toEqual(then);
  });


  it('branches a branch', async () => {
    const turns = await steeredStory();
    const branch = engine.branchChat(chat, turns.at(-1)!.seq);
    await exchange(branch, '"Five, in the branch."', 'Reply five.', 2);
    const again = engine.branchChat(branch, engine.transcript(branch).turns.at(-1)!.seq);
    expect(engine.listChats().map((c) => c.title)).toContain('Storm crossing (branch) (branch)');
    expect(engine.transcript(again).turns.map((t) => t.text)).toEqual(engine.transcript(branch).turns.map((t) => t.text));
    expect(readable(engine.chatState(again)!)).toEqual(readable(engine.chatState(branch)!));
    const copied = dumpProjections(db);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(copied);
  });

  it('leaves out of a copy, or copies without their reference, every kind that changes what is visible', () => {
    for (const kind of MARKING_CHAT_KINDS) expect(SKIPPED_IN_COPY.includes(kind) || kind in STRIPPED_IN_COPY || kind in TRANSLATED_IN_COPY, kind).toBe(true);
    for (const kind of [...SKIPPED_IN_COPY, ...Object.keys(STRIPPED_IN_COPY)]) expect(EVENT_DEFINITIONS.some((d) => d.kind === kind), kind).toBe(true);
  });
});
