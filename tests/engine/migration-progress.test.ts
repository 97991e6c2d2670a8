import { describe, expect, it } from 'vitest';
import { loadSqlite, readMigrations } from '../support/sqlite.ts';
import { wrapSqlite } from '../../src/engine/db/sqlite-db.ts';
import { migrate, MigrationError, tablesRewritten } from '../../src/engine/db/migrate.ts';
import { isStorageFailure } from '../../src/worker/storage-failure.ts';
import { KEPT_TEXT_ROWS } from '../../src/engine/turn/prompt-report.ts';

/** A database migrated up to (not including) `upTo`, holding `events` events, a third of them a command's first. */
async function logBefore(upTo: string, events: number) {
  const sqlite = await loadSqlite();
  const db = wrapSqlite(sqlite, new sqlite.oo1.DB(':memory:', 'c'));
  await migrate(db, readMigrations().filter((m) => m.name < upTo), () => 0);
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${events})
    INSERT INTO events (id, device_id, ts, kind, chat_id, payload, cause_id, command_id)
    SELECT printf('019b0000-0000-7000-8000-%012d', i), 'device', i, 'user_turn', 'chat', json_object('turnId', printf('%036d', i), 'text', 'The rain drums on the deck, line ' || i || '.'), NULL,
           CASE WHEN i % 3 = 0 THEN printf('command-%d', i) END
    FROM n`);
  return db;
}

describe('a migration that copies a table', () => {
  it('says so on a line of its own', () => {
    expect(tablesRewritten(readMigrations().find((m) => m.name.startsWith('0052_'))!)).toEqual(['events']);
    expect(readMigrations().filter((m) => tablesRewritten(m).length > 0).map((m) => m.name)).toEqual(['0052_command_ids_alone.sql', '0053_transcript_text_once.sql', '0056_chats_and_devices_by_number.sql', '0057_transcript_chats_by_number.sql', '0058_payloads_packed.sql', '0060_journal_by_number.sql', '0061_transcript_ids_as_bytes.sql', '0062_value_changes_by_number.sql', '0063_edge_facts_by_number.sql', '0064_memories_by_number.sql', '0065_event_ids_as_bytes.sql', '0066_value_changes_without_values.sql', '0067_memory_ids_as_bytes.sql']);
  });

  it('says how far it has come, from 0 to 1, and the log keeps every event; its command ids alone are indexed (0052)', async () => {
    const db = await logBefore('0052', 20_000);
    const said: number[] = [];
    await migrate(db, readMigrations(), () => 0, (fraction) => said.push(fraction));

    expect(said[0]).toBe(0);
    expect(said.at(-1)).toBe(1);
    expect(said).toEqual([...said].sort((a, b) => a - b));
    // The estimate from the table's bytes is near the work: the bar moves through most of its way.
    expect(said.length).toBeGreaterThan(20);
    expect(said.at(-2)).toBeGreaterThan(0.5);
    expect(said.at(-2)).toBeLessThan(0.99);

    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(20_000);
    expect(db.get<{ seq: number }>("SELECT seq FROM events WHERE command_id = 'command-300'")!.seq).toBe(300);
    // Found by its key (the ids are kept through `id_key` since 0065), as the app finds a command.
    const plan = db.all<{ detail: string }>("EXPLAIN QUERY PLAN SELECT seq FROM events WHERE command_key = id_key(?)", ['command-300']).map((row) => row.detail);
    expect(plan.join(' ')).toContain('events_by_command');
    // The index holds the 6,666 events that carry a command id, not the 20,000.
    const entries = db.get<{ n: number }>("SELECT sum(ncell) AS n FROM dbstat WHERE name = 'events_by_command'")!.n;
    expect(entries).toBe(6_666);
    expect(() => db.run("INSERT INTO events (id, device_id, ts, kind, chat_id, payload, command_id) VALUES ('x', 'device', 1, 'user_turn', 'chat', '{}', 'command-300')")).toThrow(/UNIQUE/);
    // Events are still immutable.
    expect(() => db.run("UPDATE events SET ts = 0 WHERE seq = 1")).toThrow(/immutable/);
  });

  it('says nothing when no pending migration copies a table', async () => {
    const db = await logBefore('0051', 100);
    const said: number[] = [];
    await migrate(db, readMigrations().filter((m) => m.name < '0052'), () => 0, (fraction) => said.push(fraction));
    expect(said).toEqual([]);
  });

  it('that the storage has no room for fails as a storage failure, and leaves the log as it was', async () => {
    const db = await logBefore('0052', 2_000);
    const full = Object.assign(new Error('database or disk is full'), { resultCode: 13 });
    const refusing: typeof db = {
      ...db,
      exec(sql) {
        if (sql.includes('events_rebuilt')) throw full;
        db.exec(sql);
      },
    };
    const failure = await migrate(refusing, readMigrations(), () => 0).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MigrationError);
    // The worker tells "no room" from any other failure by this: space helps, a fresh start does not.
    expect(isStorageFailure((failure as MigrationError).cause)).toBe(true);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(2_000);
    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM meta WHERE name LIKE '0052%'")!.n).toBe(0);
  });
});

describe('the log naming chats and devices by number (0056)', () => {
  it('reads back every event as it was, keeps its guards, and stores no chat or device id on a row', async () => {
    const db = await logBefore('0056', 3_000);
    // Another chat from another device, and a global event, among the first story's events.
    db.run(`INSERT INTO events (id, device_id, ts, kind, chat_id, payload) VALUES
      ('019b0000-0000-7000-8000-900000000001', 'laptop', 1, 'user_turn', 'other chat', '{"turnId":"t","text":"Hello."}'),
      ('019b0000-0000-7000-8000-900000000002', 'laptop', 2, 'you_authored', NULL, '{"name":"Ada"}')`);
    const before = db.all('SELECT seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id FROM events ORDER BY seq');

    const said: number[] = [];
    await migrate(db, readMigrations(), () => 0, (fraction) => said.push(fraction));

    expect(said.at(-1)).toBe(1);
    expect(db.all('SELECT seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id FROM events ORDER BY seq')).toEqual(before);
    // The rows hold numbers: the names are stored once each.
    expect(db.all('SELECT typeof(device) AS d, typeof(chat) AS c, count(*) AS n FROM event_rows GROUP BY 1, 2 ORDER BY n')).toEqual([
      { d: 'integer', c: 'null', n: 1 },
      { d: 'integer', c: 'integer', n: 3_001 },
    ]);
    expect(db.all('SELECT id FROM chat_refs ORDER BY ref')).toEqual([{ id: 'chat' }, { id: 'other chat' }]);
    expect(db.all('SELECT id FROM device_refs ORDER BY ref')).toEqual([{ id: 'device' }, { id: 'laptop' }]);

    // A chat's events are read from the index by chat, under its number, in order (by seq since 0059).
    const plan = db.all<{ detail: string }>('EXPLAIN QUERY PLAN SELECT seq FROM events WHERE chat_id = ? ORDER BY seq').map((row) => row.detail).join('; ');
    expect(plan).toContain('events_by_chat (chat=?)');
    expect(plan).not.toContain('TEMP B-TREE');

    // An insert through the view names a new chat once, and an old chat keeps its number.
    db.run(`INSERT INTO events (id, device_id, ts, kind, chat_id, payload) VALUES
      ('019b0000-0000-7000-8000-900000000003', 'phone', 3, 'user_turn', 'third chat', '{"turnId":"u","text":"Hi."}'),
      ('019b0000-0000-7000-8000-900000000004', 'phone', 4, 'user_turn', 'chat', '{"turnId":"v","text":"Again."}')`);
    expect(db.all('SELECT ref, id FROM chat_refs ORDER BY ref')).toEqual([{ ref: 1, id: 'chat' }, { ref: 2, id: 'other chat' }, { ref: 3, id: 'third chat' }]);
    expect(db.all("SELECT device_id, chat_id FROM events WHERE id > '019b0000-0000-7000-8000-900000000002' ORDER BY id")).toEqual([
      { device_id: 'phone', chat_id: 'third chat' },
      { device_id: 'phone', chat_id: 'chat' },
    ]);

    // The guards stand, through the view and on the rows.
    expect(() => db.run('UPDATE events SET ts = 0 WHERE seq = 1')).toThrow(/immutable/);
    expect(() => db.run('UPDATE event_rows SET chat = 2 WHERE seq = 1')).toThrow(/immutable/);
    expect(() => db.run("DELETE FROM events WHERE chat_id = 'chat'")).toThrow(/never deleted/);
    expect(() => db.run('DELETE FROM event_rows WHERE seq = 1')).toThrow(/never deleted/);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(3_004);
  });

  it('that the storage has no room for fails as a storage failure, and leaves the log a table as it was', async () => {
    const db = await logBefore('0056', 2_000);
    const before = db.all('SELECT * FROM events ORDER BY seq');
    const full = Object.assign(new Error('database or disk is full'), { resultCode: 13 });
    const refusing: typeof db = {
      ...db,
      exec(sql) {
        // The disk fills once the rows are copied, before the old table goes.
        if (sql.includes('CREATE TABLE event_rows')) {
          db.exec(sql.slice(0, sql.indexOf('DROP TABLE events;')));
          throw full;
        }
        db.exec(sql);
      },
    };
    const failure = await migrate(refusing, readMigrations(), () => 0).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(MigrationError);
    expect(isStorageFailure((failure as MigrationError).cause)).toBe(true);
    expect(db.get<{ type: string }>("SELECT type FROM sqlite_master WHERE name = 'events'")!.type).toBe('table');
    expect(db.get('SELECT 1 AS x FROM sqlite_master WHERE name IN (\'event_rows\', \'chat_refs\', \'device_refs\')')).toBeUndefined();
    expect(db.all('SELECT * FROM events ORDER BY seq')).toEqual(before);
    // The next start migrates it whole.
    await migrate(db, readMigrations(), () => 0);
    expect(db.all('SELECT seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id FROM events ORDER BY seq')).toEqual(before);
  });
});

describe("the transcript's rows naming their chat by number (0057)", () => {
  it('reads every turn back as it was, under the same chat, and rewrites the journal to name rows the same way', async () => {
    const db = await logBefore('0057', 40);
    // Rows of two chats as 0053-0056 stored them, their words in the log (text NULL) or their own,
    // and the journal's records of them: an insert, and an update that changed the chat column.
    db.exec(`INSERT INTO events (id, device_id, ts, kind, chat_id, payload) VALUES
      ('019b0000-0000-7000-8000-900000000001', 'device', 1, 'user_turn', 'other chat', '{"turnId":"t-other","text":"Hello."}')`);
    db.exec(`INSERT INTO transcript_rows (seq, chat_id, turn_id, role, speaker, text, status, finished_seq)
      SELECT seq, chat_id, payload ->> '$.turnId', 'user', 'you', CASE WHEN seq % 2 = 0 THEN 'edited words' END, 'done', seq FROM events`);
    db.exec(`INSERT INTO projection_journal (seq, chat_id, tbl, key, op, old) VALUES
      (40, 'chat', 'transcript_rows', json_object('chat_id', 'chat', 'turn_id', printf('%036d', 40)), 'insert', NULL),
      (41, 'other chat', 'transcript_rows', json_object('chat_id', 'other chat', 'turn_id', 't-other'), 'update', json_object('chat_id', 'chat', 'hidden', 1)),
      (41, 'other chat', 'chats', json_object('id', 'other chat'), 'update', json_object('title', 'Before'))`);
    const before = db.all('SELECT * FROM transcript ORDER BY seq');

    // To 0057 only: 0060 names the journal's rows again, by seq (its own test, below).
    await migrate(db, readMigrations().filter((m) => m.name < '0058'), () => 0);

    expect(db.all('SELECT * FROM transcript ORDER BY seq')).toEqual(before);
    expect(db.all('SELECT DISTINCT typeof(chat) AS t FROM transcript_rows')).toEqual([{ t: 'integer' }]);
    expect(db.all('SELECT tbl, key, old FROM projection_journal ORDER BY id')).toEqual([
      { tbl: 'transcript_rows', key: JSON.stringify({ chat: 1, turn_id: '0'.repeat(34) + '40' }), old: null },
      { tbl: 'transcript_rows', key: JSON.stringify({ chat: 2, turn_id: 't-other' }), old: JSON.stringify({ hidden: 1, chat: 1 }) },
      { tbl: 'chats', key: JSON.stringify({ id: 'other chat' }), old: JSON.stringify({ title: 'Before' }) },
    ]);
    // A chat's page of turns is read from the index by chat, under its number.
    const plan = db.all<{ detail: string }>('EXPLAIN QUERY PLAN SELECT seq FROM transcript WHERE chat_id = ? ORDER BY seq DESC LIMIT 50').map((row) => row.detail).join('; ');
    expect(plan).toContain('transcript_by_chat (chat=?)');
    expect(plan).not.toContain('TEMP B-TREE');
    // A turn's words go with its event (a restore, a merge, a purge set the guards aside): a row
    // reading them from the log takes them first.
    db.exec('DROP TRIGGER events_are_permanent');
    db.run('DELETE FROM event_rows WHERE seq = 1');
    expect(db.get<{ text: string }>('SELECT text FROM transcript WHERE seq = 1')).toEqual({ text: before[0]!.text });
  });
});

describe("the log's payloads packed (0058)", () => {
  it('reads every event back byte for byte, stores each payload in fewer bytes, and keeps its guards and its indexes on fields', async () => {
    const db = await logBefore('0058', 2_000);
    // Payloads as other devices and older builds wrote them: ids everywhere, other scripts, spaces
    // between tokens, a regenerated reply and a prompt's kept text (the log's two indexes on fields).
    db.run(`INSERT INTO events (id, device_id, ts, kind, chat_id, payload) VALUES
      ('019b0000-0000-7000-8000-900000000001', 'laptop', 1, 'assistant_turn_started', 'chat', '{"turnId":"019b0000-0000-7000-8000-000000000abc","speaker":"019b0000-0000-7000-8000-000000000def","model":"m","regenerateOf":"019b0000-0000-7000-8000-000000000001"}'),
      ('019b0000-0000-7000-8000-900000000002', 'laptop', 2, 'prompt_text_kept', 'chat', '{"hash":"00112233445566778899aabbccddeeff","text":"長い物語の設定。😀"}'),
      ('019b0000-0000-7000-8000-900000000003', 'laptop', 3, 'you_authored', NULL, '{ "name" : "Ada",\n\t"persona": "\\u00e9" }')`);
    const columns = 'seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id';
    const before = db.all(`SELECT ${columns} FROM events ORDER BY seq`);
    const bytesBefore = db.get<{ n: number }>('SELECT sum(length(CAST(payload AS BLOB))) AS n FROM event_rows')!.n;

    const said: number[] = [];
    await migrate(db, readMigrations(), () => 0, (fraction) => said.push(fraction));

    expect(said.at(-1)).toBe(1);
    expect(db.all(`SELECT ${columns} FROM events ORDER BY seq`)).toEqual(before);
    expect(db.all('SELECT DISTINCT typeof(payload) AS t FROM event_rows')).toEqual([{ t: 'blob' }]);
    expect(db.get<{ n: number }>('SELECT sum(length(payload)) AS n FROM event_rows')!.n).toBeLessThan(bytesBefore * 0.85);

    // The fields the log is searched by are read from its indexes, as before.
    const planOf = (sql: string) => db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).map((row) => row.detail).join('; ');
    expect(planOf(`SELECT e.id FROM ${KEPT_TEXT_ROWS}`)).toContain('events_by_prompt_text');
    // As visibility.ts asks for a reply's versions: SQLite refuses the statement if the index cannot answer it.
    const versions = "SELECT id_text(id) AS id FROM event_rows INDEXED BY events_by_regenerated WHERE json_extract(payload_json(payload), '$.regenerateOf') = ? AND kind = 'assistant_turn_started'";
    expect(db.all(`SELECT id_text(e.id) AS id FROM ${KEPT_TEXT_ROWS}`, ['chat', '00112233445566778899aabbccddeeff'])).toEqual([{ id: '019b0000-0000-7000-8000-900000000002' }]);
    expect(db.all(versions, ['019b0000-0000-7000-8000-000000000001'])).toEqual([{ id: '019b0000-0000-7000-8000-900000000001' }]);

    // A new event is packed as it goes in, and reads back as written.
    const written = '{"turnId":"019b0000-0000-7000-8000-000000000fed","text":"Again.","segments":[{"type":"narration","text":"Again."}]}';
    db.run("INSERT INTO events (id, device_id, ts, kind, chat_id, payload) VALUES ('019b0000-0000-7000-8000-900000000004', 'phone', 4, 'user_turn', 'chat', ?)", [written]);
    expect(db.get("SELECT payload, typeof((SELECT payload FROM event_rows WHERE id = id_key('019b0000-0000-7000-8000-900000000004'))) AS stored FROM events WHERE event_key = id_key('019b0000-0000-7000-8000-900000000004')")).toEqual({ payload: written, stored: 'blob' });

    // Nothing but JSON goes in, packed or not; the guards stand.
    expect(() => db.run("INSERT INTO events (id, device_id, ts, kind, chat_id, payload) VALUES ('x1', 'phone', 5, 'user_turn', 'chat', '{not json')")).toThrow(/CHECK constraint/);
    expect(() => db.run("INSERT INTO event_rows (id, device, ts, kind, chat, payload) VALUES ('x2', 1, 5, 'user_turn', 1, X'7b1f7f')")).toThrow(/unknown mark/);
    expect(() => db.run('UPDATE event_rows SET payload = X\'7b7d\' WHERE seq = 1')).toThrow(/immutable/);
    expect(() => db.run('DELETE FROM event_rows WHERE seq = 1')).toThrow(/never deleted/);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(2_004);
  });
});

describe("the log's index by chat keyed by seq (0059)", () => {
  it('holds each event by chat and seq, walks a chat in order from its index alone, and notes a log out of id order', async () => {
    const db = await logBefore('0059', 2_000);
    const before = db.all('SELECT seq, id, chat_id FROM events ORDER BY seq');

    await migrate(db, readMigrations(), () => 0);

    expect(db.all('SELECT seq, id, chat_id FROM events ORDER BY seq')).toEqual(before);
    // The chat alone: SQLite ends every index with the rowid, which is the seq.
    expect(db.all("SELECT name FROM pragma_index_info('events_by_chat') ORDER BY seqno")).toEqual([{ name: 'chat' }]);
    // A replay's page of a chat, and a rewind's stretch: a range of the index, in its order.
    const planOf = (sql: string) => db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).map((row) => row.detail).join('; ');
    const page = planOf('SELECT seq FROM events WHERE chat_id = ? AND seq > ? ORDER BY seq LIMIT 2000');
    expect(page).toContain('events_by_chat (chat=? AND rowid>?)');
    expect(page).not.toContain('TEMP B-TREE');
    // This log was written in id order: nothing to put right.
    expect(db.all('SELECT from_id FROM log_out_of_order')).toEqual([]);
  });

  it('notes the least id standing after a greater one, as a merge before 2d9840b left a log', async () => {
    const db = await logBefore('0059', 20);
    // Pulled late: two events of another device, written before the last ten here.
    db.run(`INSERT INTO events (id, device_id, ts, kind, chat_id, payload) VALUES
      ('019b0000-0000-7000-8000-000000000010a', 'laptop', 1, 'user_turn', 'chat', '{"turnId":"a","text":"Late."}')`);
    db.run(`INSERT INTO events (id, device_id, ts, kind, chat_id, payload) VALUES
      ('019b0000-0000-7000-8000-000000000015a', 'laptop', 2, 'user_turn', 'chat', '{"turnId":"b","text":"Later."}')`);

    await migrate(db, readMigrations(), () => 0);

    expect(db.all('SELECT from_id FROM log_out_of_order')).toEqual([{ from_id: '019b0000-0000-7000-8000-000000000010a' }]);
  });
});
