import { describe, expect, it } from 'vitest';
import { dumpProjections } from '../support/dump.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';

describe('the projection journal', () => {
  it('names rows by key: undoing a delete after another chat reused the freed rowid restores the right row', async () => {
    // The property test's counterexample: a bot reset deletes chat A's place, chat B's new place takes
    // the freed rowid, then a rewind in A undoes the reset's delete.
    const { engine, db } = await openTestEngine();
    const bot = engine.newId();
    const [a, b] = [engine.newId(), engine.newId()];
    engine.append([draft.you(), draft.bot(bot), draft.chat(a, bot)]);
    const place = (chatId: string) => ({ kind: 'container_created' as const, chatId, payload: { containerId: engine.newId(), name: 'Room', type: 'room', properties: {}, parentId: null } });
    const [first] = engine.append([place(a)]);
    engine.append([{ kind: 'bot_reset', payload: { botId: bot } }]);
    engine.append([draft.chat(b, bot)]);
    engine.append([draft.userTurn(a, engine.newId(), 'hello')]);
    engine.append([place(b)]);
    engine.rewind(a, first!.seq);
    const incremental = dumpProjections(db);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(incremental);
    expect(db.all<{ chat_id: string }>('SELECT chat_id FROM containers').map((c) => c.chat_id)).toEqual([b]);
  });

  it('is installed by the first write, not by opening, and again when an outer rollback took its install away', async () => {
    const { engine, db } = await openTestEngine();
    const triggers = () => db.get<{ n: number }>("SELECT count(*) AS n FROM sqlite_temp_master WHERE type = 'trigger'")!.n;
    expect(triggers()).toBe(0);
    const bot = engine.newId();
    const chat = engine.newId();
    // A command whose projection installed the journal, then failed: both are rolled back.
    expect(() =>
      db.transaction(() => {
        engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
        throw new Error('the command failed after projecting');
      }),
    ).toThrow('the command failed');
    expect(triggers()).toBe(0);
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
    expect(triggers()).toBeGreaterThan(0);
    const [turn] = engine.append([draft.userTurn(chat, engine.newId(), 'kept in the journal')]);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM projection_journal WHERE seq = ?', [turn!.seq])!.n).toBeGreaterThan(0);
    // And undoing it from the journal puts the chat back as it was.
    engine.rewind(chat, turn!.seq);
    const undone = dumpProjections(db);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(undone);
  });

  it('is kept to each chat\'s latest events when the database opens; steering further back replays the chat, to the same state', async () => {
    const { engine, db } = await openTestEngine({ journalKeep: 10 });
    const bot = engine.newId();
    const chat = engine.newId();
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
    const turns: number[] = [];
    for (let i = 0; i < 30; i++) {
      const [turn] = engine.append([draft.userTurn(chat, engine.newId(), `line ${i}`), draft.edge(chat, bot, 'you', { affinityDelta: 1 })]);
      turns.push(turn!.seq);
    }
    const journalRows = () => db.get<{ n: number }>('SELECT count(*) AS n FROM projection_journal WHERE chat_id = ?', [chat])!.n;
    const full = journalRows();
    engine.pruneJournal();
    const tenth = db.get<{ seq: number }>('SELECT seq FROM events WHERE chat_id = ? ORDER BY seq DESC LIMIT 1 OFFSET 9', [chat])!.seq;
    expect(db.get<{ s: number }>('SELECT min(seq) AS s FROM projection_journal WHERE chat_id = ?', [chat])!.s).toBe(tenth);
    expect(journalRows()).toBeLessThan(full / 2);

    // Within the kept journal, and behind it: both equal a replay of the chat.
    for (const from of [turns.at(-2)!, turns[3]!]) {
      engine.rewind(chat, from);
      const steered = dumpProjections(db);
      engine.rebuildChat(chat);
      expect(dumpProjections(db)).toEqual(steered);
      engine.undoRewind(chat);
    }
    expect(db.get<{ affinity: number }>('SELECT affinity FROM edges WHERE chat_id = ?', [chat])!.affinity).toBe(80);
  });
});
