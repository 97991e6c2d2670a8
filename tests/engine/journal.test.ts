import { describe, expect, it } from 'vitest';
import { dumpProjections } from '../support/dump.ts';
import { analysedExchange, draft } from '../support/fixtures.ts';
import { randomBytes } from 'node:crypto';
import { createEngine } from '../support/engine.ts';
import { openTestEngine, readMigrations, testClock } from '../support/sqlite.ts';
import { migrate } from '../../src/engine/db/migrate.ts';
import { undoMigrationsSince } from '../support/migrations-undone.ts';

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

  it("records an update by the columns it changed alone, and undoes it to the row as it was", async () => {
    const { engine, db } = await openTestEngine();
    const [bot, chat, turn] = [engine.newId(), engine.newId(), engine.newId()];
    const words = 'The lantern swings over the harbour while Mira reads the charts. '.repeat(10);
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot), draft.userTurn(chat, turn, words)]);
    const before = dumpProjections(db);
    const [hide] = engine.append([{ kind: 'turn_hidden', chatId: chat, payload: { turnId: turn, hidden: true } }]);
    const recorded = db.all<{ old: string }>("SELECT old FROM projection_journal WHERE seq = ? AND tbl = 'transcript_rows' AND op = 'update'", [hide!.seq]);
    // Hiding a turn journaled its whole row before, its words with it.
    expect(recorded.map((r) => JSON.parse(r.old))).toEqual([{ hidden: 0 }]);
    engine.rewind(chat, hide!.seq);
    const after = dumpProjections(db);
    expect(after.transcript).toEqual(before.transcript);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(after);
  });

  it('a rebuild gives back every index it set aside, and one that fails midway leaves schema and tables as they were', async () => {
    const { engine, db } = await openTestEngine();
    const schema = () => db.all('SELECT type, name, sql FROM sqlite_master ORDER BY name');
    const bot = engine.newId();
    const chat = engine.newId();
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot), draft.userTurn(chat, engine.newId(), 'the lantern is lit')]);
    const before = schema();
    expect(before.some((r) => (r as { name: string }).name === 'transcript_by_chat')).toBe(true);
    engine.rebuild();
    expect(schema()).toEqual(before);
    const projected = dumpProjections(db);
    // A row that no projection knows: the rebuild stops at it, undone whole.
    db.run(`INSERT INTO events (id, device_id, ts, kind, chat_id, payload) VALUES ('~', 'elsewhere', 0, 'no_such_kind', NULL, '{}')`);
    expect(() => engine.rebuild()).toThrow(/no_such_kind/);
    expect(schema()).toEqual(before);
    expect(dumpProjections(db)).toEqual(projected);
  });

  it('keeps its triggers in the schema, put back as the tables need them when the database opens, its switch off', async () => {
    const { db } = await openTestEngine();
    const journalTriggers = () => db.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'journal%' ORDER BY name");
    const fresh = journalTriggers();
    expect(fresh.length).toBeGreaterThan(30);
    // A trigger gone, and one out of date (as after a migration gave its table a column): opening
    // puts both right.
    db.exec('DROP TRIGGER journal_memory_rows_update');
    db.exec(`DROP TRIGGER journal_edges_delete; CREATE TRIGGER journal_edges_delete AFTER DELETE ON edges BEGIN SELECT 1; END`);
    const reopened = createEngine({ db, now: testClock().now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });
    expect(journalTriggers()).toEqual(fresh);
    // The switch is the connection's, not a row: nothing stored names it, and a transaction that
    // ends, even by an error, leaves it off.
    expect(db.get("SELECT 1 AS x FROM sqlite_master WHERE name = 'journal_switch'")).toBeUndefined();
    expect(() =>
      db.transaction(() => {
        db.get('SELECT set_journal_seq(7) AS x');
        throw new Error('a projection that failed');
      }),
    ).toThrow('a projection that failed');
    expect(db.get<{ seq: number | null }>('SELECT journal_seq() AS seq')!.seq).toBeNull();

    // And they record: undoing a memory's rewrite from the journal equals rebuilding from the log.
    const bot = reopened.newId();
    const chat = reopened.newId();
    reopened.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
    const memory = reopened.newId();
    reopened.append([draft.memory(chat, memory, bot, { summary: 'Ada hid the map.' })]);
    const [turn] = reopened.append([draft.userTurn(chat, reopened.newId(), 'kept in the journal')]);
    reopened.append([{ kind: 'memory_summary_rewritten', chatId: chat, payload: { memoryId: memory, summary: 'Ada hid the map in her boot.' } }]);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM projection_journal WHERE seq > ?', [turn!.seq])!.n).toBeGreaterThan(0);
    reopened.rewind(chat, turn!.seq);
    const undone = dumpProjections(db);
    reopened.rebuild();
    expect(dumpProjections(db)).toEqual(undone);
    expect(db.get<{ summary: string }>('SELECT summary FROM memories WHERE id = ?', [memory])!.summary).toBe('Ada hid the map.');
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
    const journalRows = () => db.get<{ n: number }>('SELECT count(*) AS n FROM projection_journal WHERE chat = (SELECT ref FROM chat_refs WHERE id = ?)', [chat])!.n;
    const full = journalRows();
    engine.pruneJournal();
    const tenth = db.get<{ seq: number }>('SELECT seq FROM events WHERE chat_id = ? ORDER BY seq DESC LIMIT 1 OFFSET 9', [chat])!.seq;
    expect(db.get<{ s: number }>('SELECT min(seq) AS s FROM projection_journal WHERE chat = (SELECT ref FROM chat_refs WHERE id = ?)', [chat])!.s).toBe(tenth);
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

  it('is pruned to each chat\'s own edge when chats were played in turn: a short one keeps all of it', async () => {
    const { engine, db } = await openTestEngine({ journalKeep: 10 });
    const bot = engine.newId();
    const [long, other, short] = [engine.newId(), engine.newId(), engine.newId()];
    engine.append([draft.you(), draft.bot(bot), draft.chat(long, bot), draft.chat(other, bot), draft.chat(short, bot)]);
    for (let i = 0; i < 30; i++) {
      for (const chat of i < 3 ? [long, other, short] : [long, other]) {
        engine.append([draft.userTurn(chat, engine.newId(), `line ${i}`), draft.edge(chat, bot, 'you', { affinityDelta: 1 })]);
      }
    }
    const oldest = (chat: string) => db.get<{ s: number }>('SELECT min(seq) AS s FROM projection_journal WHERE chat = (SELECT ref FROM chat_refs WHERE id = ?)', [chat])!.s;
    const shortBefore = db.all('SELECT * FROM projection_journal WHERE chat = (SELECT ref FROM chat_refs WHERE id = ?) ORDER BY id', [short]);
    expect(shortBefore.length).toBeGreaterThan(0);
    engine.pruneJournal();
    for (const chat of [long, other]) {
      expect(oldest(chat)).toBe(db.get<{ seq: number }>('SELECT seq FROM events WHERE chat_id = ? ORDER BY seq DESC LIMIT 1 OFFSET 9', [chat])!.seq);
    }
    // Its records are older than both edges, and it has fewer events than the journal keeps.
    expect(db.all('SELECT * FROM projection_journal WHERE chat = (SELECT ref FROM chat_refs WHERE id = ?) ORDER BY id', [short])).toEqual(shortBefore);
    engine.rewind(short, db.get<{ seq: number }>("SELECT min(seq) AS seq FROM events WHERE chat_id = ? AND kind = 'user_turn'", [short])!.seq);
    const steered = dumpProjections(db);
    engine.rebuildChat(short);
    expect(dumpProjections(db)).toEqual(steered);
  });

  it('after a full rebuild covers a short chat\'s latest 200 events, recorded as they were, its triggers set aside before them and back after', async () => {
    const { engine, db } = await openTestEngine();
    const bot = engine.newId();
    const chat = engine.newId();
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
    // 2,600 events: the first replayed page (2,000) lies wholly behind the edge, the triggers set aside for it.
    for (let i = 0; i < 1_300; i++) engine.append([draft.userTurn(chat, engine.newId(), `line ${i}`), draft.edge(chat, bot, 'you', { affinityDelta: i % 2 ? 1 : -1 })]);
    const schema = () => db.all('SELECT type, name, sql FROM sqlite_master ORDER BY name');
    const journal = (from: number) => db.all('SELECT seq, chat, tbl, key, op, old FROM projection_journal WHERE seq >= ? ORDER BY id', [from]);
    const edge = db.get<{ seq: number }>('SELECT seq FROM events WHERE chat_id = ? ORDER BY seq DESC LIMIT 1 OFFSET 199', [chat])!.seq;
    const recordedAsPlayed = journal(edge);
    const before = schema();

    engine.rebuild();
    expect(schema()).toEqual(before);
    expect(db.get<{ seq: number }>('SELECT seq FROM journal_horizon WHERE chat_id = ?', [chat])!.seq).toBe(edge);
    expect(db.get<{ s: number }>('SELECT min(seq) AS s FROM projection_journal')!.s).toBe(edge);
    expect(journal(edge)).toEqual(recordedAsPlayed);

    // A swipe-sized rewind is undone from the journal; one further back replays the chat: both as a replay leaves it.
    const turns = db.all<{ seq: number }>("SELECT seq FROM events WHERE chat_id = ? AND kind = 'user_turn' ORDER BY seq", [chat]).map((r) => r.seq);
    for (const from of [turns.at(-3)!, turns[10]!]) {
      engine.rewind(chat, from);
      const steered = dumpProjections(db);
      engine.rebuildChat(chat);
      expect(dumpProjections(db)).toEqual(steered);
      engine.undoRewind(chat);
    }
    // The write after the rebuild was recorded: its triggers are back.
    const [later] = engine.append([draft.userTurn(chat, engine.newId(), 'after the rebuild')]);
    expect(journal(later!.seq).length).toBeGreaterThan(0);
  });

  it('written before 0060 (chats by id, transcript rows by chat and turn) is rewritten to name them by number and seq, and undoes the same', async () => {
    const { engine, db } = await openTestEngine();
    const bot = engine.newId();
    const [chat, other] = [engine.newId(), engine.newId()];
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot), draft.chat(other, bot)]);
    const firsts: number[] = [];
    for (let i = 0; i < 6; i++) firsts.push(engine.append(analysedExchange(engine.newId, i % 3 === 2 ? other : chat, bot, `line ${i}`))[0]!.seq);
    const turnOf = (seq: number) => db.get<{ turn_id: string }>('SELECT turn_id FROM transcript WHERE seq = ?', [seq])!.turn_id;
    engine.append([{ kind: 'turn_edited', chatId: chat, payload: { turnId: turnOf(firsts[3]!), text: 'line 3, said better', segments: null } }]);

    // The tables as they were before 0060, whose migrations run again after it.
    undoMigrationsSince(db, 60);
    // The journal as the build before wrote it: every record under its chat's id, a transcript row's key its chat and turn.
    for (const { name } of db.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'journal\\_%' ESCAPE '\\'")) db.exec(`DROP TRIGGER ${name}`);
    db.exec(`CREATE TABLE journal_before (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, chat_id TEXT, tbl TEXT NOT NULL, key TEXT NOT NULL,
        op TEXT NOT NULL CHECK (op IN ('insert', 'update', 'delete')), old TEXT) STRICT;
      INSERT INTO journal_before SELECT j.id, j.seq, (SELECT id FROM chat_refs WHERE ref = j.chat), j.tbl,
          CASE WHEN j.tbl = 'transcript_rows' THEN json_object('chat', j.chat, 'turn_id', (SELECT turn_id FROM transcript_rows r WHERE r.seq = j.key ->> '$.seq')) ELSE j.key END,
          j.op, j.old
        FROM projection_journal j;
      DROP TABLE projection_journal;
      ALTER TABLE journal_before RENAME TO projection_journal;
      CREATE INDEX projection_journal_by_seq ON projection_journal (seq);`);
    // A turn projected, then taken away by a later event: no row, but the record of its delete holds its seq.
    const gone = JSON.stringify({ chat: db.get<{ ref: number }>('SELECT ref FROM chat_refs WHERE id = ?', [chat])!.ref, turn_id: 'a turn taken away' });
    db.run(`INSERT INTO projection_journal (seq, chat_id, tbl, key, op, old) VALUES
      (?1, ?2, 'transcript_rows', ?3, 'insert', NULL), (?1, ?2, 'transcript_rows', ?3, 'delete', json_object('seq', 999, 'turn_id', 'a turn taken away'))`, [firsts[0]!, chat, gone]);
    const old = db.all<{ seq: number; tbl: string; key: string }>('SELECT seq, tbl, key FROM projection_journal ORDER BY id');
    const oldOfChat = db.get<{ n: number }>('SELECT count(*) AS n FROM projection_journal WHERE chat_id = ?', [chat])!.n;
    expect(old.filter((r) => r.tbl === 'transcript_rows' && r.key !== gone).every((r) => JSON.parse(r.key).turn_id.length === 36)).toBe(true);
    const journalBytes = () => db.get<{ b: number }>("SELECT sum(payload) AS b FROM dbstat WHERE name = 'projection_journal'")!.b;
    const bytesBefore = journalBytes();
    // A record of the other chat whose row is gone and that no delete names: it cannot be placed.
    db.run("INSERT INTO projection_journal (seq, chat_id, tbl, key, op, old) VALUES (?, ?, 'transcript_rows', json_object('chat', 2, 'turn_id', 'gone'), 'insert', NULL)", [firsts[5]! + 1, other]);

    await migrate(db, readMigrations(), () => 0);
    const reopened = createEngine({ db, now: testClock().now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });

    const now = db.all<{ seq: number; tbl: string; key: string; chat: number }>('SELECT seq, tbl, key, chat FROM projection_journal ORDER BY id');
    const chatRefOf = (id: string) => db.get<{ ref: number }>('SELECT ref FROM chat_refs WHERE id = ?', [id])!.ref;
    // The chat's records all kept, its transcript rows named by seq; the other chat's kept only after the record that could not be placed.
    expect(now.filter((r) => r.chat === chatRefOf(chat))).toHaveLength(oldOfChat);
    for (const r of now.filter((r) => r.tbl === 'transcript_rows')) expect(Object.keys(JSON.parse(r.key))).toEqual(['seq']);
    expect(now.filter((r) => r.key === JSON.stringify({ seq: 999 }))).toHaveLength(2);
    // A fifth less a record here (the rows' old values are most of these); a transcript row's insert, most of a long story's records, halves.
    expect(journalBytes() / now.length).toBeLessThan((0.8 * bytesBefore) / (old.length + 1));
    expect(db.get<{ seq: number }>('SELECT seq FROM journal_horizon WHERE chat_id = ?', [other])!.seq).toBe(firsts[5]! + 2);
    expect(now.filter((r) => r.chat === chatRefOf(other) && r.seq < firsts[5]! + 2)).toEqual([]);

    // Steering back through the rewritten journal: the same as replaying the chat.
    reopened.rewind(chat, firsts[1]!);
    const steered = dumpProjections(db);
    reopened.rebuildChat(chat);
    expect(dumpProjections(db)).toEqual(steered);
    expect(db.all<{ text: string }>('SELECT text FROM transcript WHERE chat_id = ? AND hidden = 0 ORDER BY seq', [chat]).map((r) => r.text)).toEqual(['line 0', 'Mira answers line 0.']);
    reopened.undoRewind(chat);
    expect(db.get<{ text: string }>('SELECT text FROM transcript WHERE seq = ?', [firsts[3]!])!.text).toBe('line 3, said better');
  });
});
