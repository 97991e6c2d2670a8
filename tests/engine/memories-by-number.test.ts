import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/engine/db/migrate.ts';
import { pinnedMemories, searchMemories } from '../../src/engine/memory/retrieval.ts';
import { dumpProjections } from '../support/dump.ts';
import { createEngine } from '../support/engine.ts';
import { draft } from '../support/fixtures.ts';
import { undoMigrationsSince } from '../support/migrations-undone.ts';
import { openStory } from '../support/story.ts';
import { readMigrations, testClock } from '../support/sqlite.ts';

describe("a bot's memories, kept by chat number (migration 0064)", () => {
  it('are rewritten a third smaller, found the same, read through their indexes, and undo through the journal', async () => {
    const story = await openStory();
    const { engine, db, chat, bot } = story;
    const firsts: number[] = [];
    for (let i = 0; i < 30; i++) {
      const turn = engine.newId();
      const drafts = [
        draft.userTurn(chat, engine.newId(), `"Line ${i}."`),
        draft.assistantStarted(chat, turn, bot),
        { ...draft.assistantTurn(chat, turn, bot, `Mira answers line ${i}.`), causeDraft: 1 },
        { ...draft.memory(chat, engine.newId(), bot, { summary: `Ada spoke of the ${i % 2 ? 'lantern' : 'harbour'} on evening ${i}.`, pinned: i === 3, fictionTime: `1890-05-01T2${i % 4}:00:00` }), causeDraft: 2 },
      ];
      firsts.push(engine.append(drafts)[0]!.seq);
    }
    const search = { ownerId: bot, chatId: chat, role: 'host' as const, query: 'lantern evening', k: 8, now: '1890-05-02T08:00:00' };
    const found = () => [searchMemories(db, search).map((m) => [m.id, m.summary]), pinnedMemories(db, chat, bot, 'host').map((m) => m.summary)];
    const [foundBefore, rowsBefore] = [found(), db.all('SELECT * FROM memories ORDER BY created_seq')];
    expect(foundBefore[0]!.length).toBe(8);

    undoMigrationsSince(db, 64);
    db.exec('VACUUM');
    const bytes = () => db.get<{ b: number }>("SELECT sum(payload) AS b FROM dbstat WHERE name LIKE 'memor%' AND name NOT LIKE 'memories%fts%'")!.b;
    const bytesBefore = bytes();
    const recordsBefore = db.get<{ n: number }>("SELECT count(*) AS n FROM projection_journal WHERE tbl = 'memories'")!.n;
    expect(recordsBefore).toBeGreaterThanOrEqual(30);
    await migrate(db, readMigrations(), () => 0);
    db.exec('VACUUM');
    const reopened = createEngine({ db, now: testClock(Date.UTC(2026, 1, 1)).now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });

    expect(db.all('SELECT * FROM memories ORDER BY created_seq')).toEqual(rowsBefore);
    expect(found()).toEqual(foundBefore);
    expect(bytes()).toBeLessThan((2 / 3) * bytesBefore);
    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM projection_journal WHERE tbl = 'memory_rows'")!.n).toBe(recordsBefore);
    // A bot's memories of a chat, by owner and chat: through the index, not a pass over every memory
    // (the owner by its key since 0067, as pins.ts asks).
    const plan = db.all<{ detail: string }>('EXPLAIN QUERY PLAN SELECT count(*) FROM memories WHERE chat_id = ? AND owner_key = id_key(?) AND pinned = 1', [chat, bot]);
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/memories_by_owner_chat/);

    // A memory written and one pinned after the rewrite; a rewind through the journal is the same
    // as replaying the chat, and its undo gives every memory back.
    const late = reopened.newId();
    reopened.append([draft.memory(chat, late, bot, { summary: 'Ada left the lantern on the quay.' })]);
    reopened.append([{ kind: 'memory_pin_changed', chatId: chat, payload: { memoryId: late, pinned: true, auto: false } }]);
    const now = dumpProjections(db);
    reopened.rewind(chat, firsts[10]!);
    const steered = dumpProjections(db);
    reopened.rebuildChat(chat);
    expect(dumpProjections(db)).toEqual(steered);
    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM memories WHERE chat_id = ? AND summary LIKE 'Ada spoke%'", [chat])!.n).toBe(10);
    reopened.undoRewind(chat);
    expect(dumpProjections(db).memories).toEqual(now.memories);
    expect(pinnedMemories(db, chat, bot, 'host').map((m) => m.summary)).toEqual([foundBefore[1]![0], 'Ada left the lantern on the quay.']);
  });
});
