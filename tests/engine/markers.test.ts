import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';

let engine: Engine;
let db: Db;
let bot: string;
let chat: string;

beforeEach(async () => {
  ({ engine, db } = await openTestEngine());
  bot = engine.newId();
  chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
});

/** One full turn: the user speaks, the bot replies, and the analysis leaves an edge delta and a memory. */
function playTurn(text: string, reply: string, affinity: number) {
  const started = engine.append([draft.userTurn(chat, engine.newId(), text), draft.assistantStarted(chat, engine.newId(), bot)])[1]!;
  const turnId = (started.payload as { turnId: string }).turnId;
  const [finished] = engine.append([{ ...draft.assistantTurn(chat, turnId, bot, reply), causeId: started.id }]);
  engine.append([
    { ...draft.edge(chat, bot, 'you', { affinityDelta: affinity, facts: [`heard: ${text}`] }), causeId: finished!.id },
    { ...draft.memory(chat, engine.newId(), bot, { summary: `Ada said ${text}` }), causeId: finished!.id },
  ]);
  return started;
}

const texts = () => engine.transcript(chat).turns.map((t) => t.text);
const affinity = () => engine.chatState(chat)!.edges[0]?.affinity;

describe('regenerate (supersede)', () => {
  it('replaces the reply and undoes everything its analysis did, keeping the old one in the log', () => {
    playTurn('hello', 'first reply', 10);
    const second = playTurn('lovely night', 'a rude reply', -30);
    expect(affinity()).toBe(30);

    const events = db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
    const retry = draft.assistantStarted(chat, engine.newId(), bot);
    const [started] = engine.append([{ ...retry, payload: { ...retry.payload, regenerateOf: second.id } } as typeof retry]);
    expect(texts()).toEqual(['hello', 'first reply', 'lovely night', '']);
    expect(affinity()).toBe(60);
    expect(engine.chatState(chat)!.edges[0]?.knowledge).toEqual(['heard: hello']);
    expect(engine.chatState(chat)!.memories.map((m) => m.summary)).toEqual(['Ada said hello']);
    // started, finished, edge delta, memory: superseded, and still in the log.
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM visibility WHERE superseded_by = ?', [started!.seq])!.n).toBe(4);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(events + 1);
  });
});

describe('rewind and undo', () => {
  it('hides the story from a turn on, and undo brings every part of it back', () => {
    playTurn('hello', 'first reply', 10);
    const second = playTurn('lovely night', 'second reply', 5);
    const userSeq = second.seq - 1;
    const full = { texts: texts(), drawer: engine.chatState(chat) };

    engine.rewind(chat, userSeq);
    expect(texts()).toEqual(['hello', 'first reply']);
    expect(affinity()).toBe(60);
    expect(engine.chatState(chat)!.memories).toHaveLength(1);

    engine.undoRewind(chat);
    expect(texts()).toEqual(full.texts);
    expect(engine.chatState(chat)).toEqual(full.drawer);
  });

  it('only undoes the latest rewind still in force, and says so when there is none', () => {
    expect(() => engine.undoRewind(chat)).toThrow(/no rewind to undo/);
    playTurn('one', 'r1', 1);
    const two = playTurn('two', 'r2', 1);
    playTurn('three', 'r3', 1);
    engine.rewind(chat, two.seq - 1);
    expect(texts()).toEqual(['one', 'r1']);
    engine.undoRewind(chat);
    expect(texts()).toHaveLength(6);
    expect(() => engine.undoRewind(chat)).toThrow(/no rewind to undo/);
  });

  it('never deletes events: hidden ones stay in the log', () => {
    const first = playTurn('hello', 'first reply', 10);
    const before = db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n;
    engine.rewind(chat, first.seq - 1);
    expect(texts()).toEqual([]);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(before + 1);
  });

  it('refuses to rewind past the start of the chat', () => {
    const created = db.get<{ created_seq: number }>('SELECT created_seq FROM chats')!.created_seq;
    expect(() => engine.rewind(chat, created)).toThrow(/past the start of the chat/);
    expect(engine.listChats()).toHaveLength(1);
  });
});
