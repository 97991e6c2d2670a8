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

describe("a bot's memories, their ids kept as 16 bytes (migration 0067)", () => {
  it('are rewritten smaller, found the same through their indexes, and edited, merged and undone after', async () => {
    const story = await openStory();
    const { engine, db, chat, bot } = story;
    const scene = db.get<{ id: string }>('SELECT active_scene_id AS id FROM chat_state WHERE chat_id = ?', [chat])!.id;
    const ids: string[] = [];
    const firsts: number[] = [];
    for (let i = 0; i < 30; i++) {
      const turn = engine.newId();
      ids.push(engine.newId());
      firsts.push(engine.append([
        draft.userTurn(chat, engine.newId(), `"Line ${i}."`),
        draft.assistantStarted(chat, turn, bot),
        { ...draft.assistantTurn(chat, turn, bot, `Mira answers line ${i}.`), causeDraft: 1 },
        { ...draft.memory(chat, ids[i]!, bot, { summary: `Ada spoke of the ${i % 2 ? 'lantern' : 'harbour'} on evening ${i}.`, pinned: i === 3, sceneId: scene }), causeDraft: 2 },
      ])[0]!.seq);
    }
    const search = { ownerId: bot, chatId: chat, role: 'host' as const, query: 'lantern evening', k: 8, now: '1890-05-02T08:00:00' };
    const found = () => [searchMemories(db, search).map((m) => [m.id, m.ownerId, m.sceneId, m.summary]), pinnedMemories(db, chat, bot, 'host').map((m) => m.id)];
    const [foundBefore, rowsBefore, stateBefore] = [found(), db.all('SELECT * FROM memories ORDER BY created_seq'), engine.chatState(chat)!.memories];
    expect(foundBefore[0]!.every((m) => m[2] === scene)).toBe(true);

    undoMigrationsSince(db, 67);
    db.exec('VACUUM');
    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM memory_rows WHERE typeof(id) <> 'text' OR typeof(owner_id) <> 'text' OR typeof(scene_id) = 'blob'")!.n).toBe(0);
    const bytes = () => db.get<{ b: number }>("SELECT sum(payload) AS b FROM dbstat WHERE name LIKE 'memor%' AND name NOT LIKE 'memories%fts%'")!.b;
    const bytesBefore = bytes();
    await migrate(db, readMigrations(), () => 0);
    db.exec('VACUUM');
    const reopened = createEngine({ db, now: testClock(Date.UTC(2026, 1, 1)).now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });

    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM memory_rows WHERE typeof(id) <> 'blob' OR typeof(owner_id) <> 'blob' OR typeof(scene_id) = 'text'")!.n).toBe(0);
    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM memory_rows WHERE typeof(scene_id) = 'blob'")!.n).toBeGreaterThanOrEqual(30);
    expect(db.all('SELECT * FROM memories ORDER BY created_seq')).toEqual(rowsBefore);
    expect(found()).toEqual(foundBefore);
    expect(reopened.chatState(chat)!.memories).toEqual(stateBefore);
    // Each memory held three ids as text, in its row and in its indexes.
    expect(bytes()).toBeLessThan(0.75 * bytesBefore);
    const planOf = (sql: string) => db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).map((p) => p.detail).join('\n');
    expect(planOf('SELECT summary FROM memories WHERE memory_key = id_key(?) AND chat_id = ?')).toContain('sqlite_autoindex_memory_rows_1');
    expect(planOf('SELECT max(significance) FROM memories WHERE scene_key = id_key(?) AND chat_id = ?')).toContain('memories_by_scene');

    // Found by its id after the rewrite: a drawer edit, a significance, two memories merged into one.
    reopened.editState(chat, { type: 'memory', id: ids[4]! }, 'summary', 'Ada spoke of the harbour, and meant the sea.');
    reopened.append([{ kind: 'memory_significance_set', chatId: chat, payload: { memoryId: ids[5]!, significance: 3 } }]);
    reopened.append([{ kind: 'memory_summary_rewritten', chatId: chat, payload: { memoryId: ids[6]!, summary: 'Evenings six and seven, by the lantern.', absorbs: [ids[7]!] } }]);
    expect(db.get<{ summary: string }>('SELECT summary FROM memories WHERE memory_key = id_key(?)', [ids[4]!])!.summary).toBe('Ada spoke of the harbour, and meant the sea.');
    expect(db.get<{ s: number }>('SELECT significance AS s FROM memories WHERE memory_key = id_key(?)', [ids[5]!])!.s).toBe(3);
    expect(db.get('SELECT 1 AS x FROM memories WHERE memory_key = id_key(?)', [ids[7]!])).toBeUndefined();
    // A rewind through the journal (records holding the ids as text) equals a replay; its undo gives every memory back.
    const now = dumpProjections(db);
    reopened.rewind(chat, firsts[3]!);
    const steered = dumpProjections(db);
    reopened.rebuildChat(chat);
    expect(dumpProjections(db)).toEqual(steered);
    reopened.undoRewind(chat);
    expect(dumpProjections(db).memories).toEqual(now.memories);
  });
});
