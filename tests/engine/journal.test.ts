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
});
