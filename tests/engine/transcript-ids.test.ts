import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/engine/db/migrate.ts';
import type { Db } from '../../src/engine/db/port.ts';
import { dumpProjections } from '../support/dump.ts';
import { undoMigrationsSince } from '../support/migrations-undone.ts';
import { createEngine } from '../support/engine.ts';
import { analysedExchange, draft } from '../support/fixtures.ts';
import { openMemoryDb, openTestEngine, readMigrations, testClock } from '../support/sqlite.ts';

/** What SQLite holds for `value` after `fn`: its type and, for bytes, how many. */
const through = (db: Db, fn: string, value: unknown) =>
  db.get<{ t: string; v: unknown; n: number }>(`SELECT typeof(${fn}(?1)) AS t, ${fn}(?1) AS v, length(CAST(${fn}(?1) AS BLOB)) AS n`, [value as never])!;

/** The bytes the transcript's rows and its index by chat and turn take. */
const transcriptBytes = (db: Db) =>
  db.get<{ b: number }>("SELECT sum(payload) AS b FROM dbstat WHERE name IN ('transcript_rows', 'sqlite_autoindex_transcript_rows_1')")!.b;

describe("the transcript's ids, kept as 16 bytes (migration 0061)", () => {
  it('are given back exactly, and anything that is not an id in the log’s form passes through as it was', async () => {
    const db = await openMemoryDb();
    for (const id of [randomUUID(), randomUUID(), '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']) {
      expect(through(db, 'id_key', id)).toMatchObject({ t: 'blob', n: 16 });
      expect(db.get<{ v: string }>('SELECT id_text(id_key(?)) AS v', [id])!.v).toBe(id);
    }
    const uuid = randomUUID();
    // Not in the log's form: an id in capitals, one with a letter past f, one short, one dash moved; a word; nothing.
    for (const other of [uuid.toUpperCase(), uuid.replace(/[a-f]/, 'g'), uuid.slice(1), `${uuid.slice(0, 8)}${uuid.slice(9, 10)}-${uuid.slice(10)}`, 'you', '']) {
      expect(through(db, 'id_key', other)).toMatchObject({ t: 'text', v: other });
      expect(through(db, 'id_text', other)).toMatchObject({ t: 'text', v: other });
    }
    expect(through(db, 'id_key', null)).toMatchObject({ t: 'null' });
    // Bytes of another length are not an id: they stay bytes.
    expect(through(db, 'id_text', new Uint8Array(15))).toMatchObject({ t: 'blob', n: 15 });
  });

  it('rewrite an older transcript a third smaller, read the same, are found through the index, and undo through the journal', async () => {
    const { engine, db } = await openTestEngine();
    const bot = engine.newId();
    const [chat, other] = [engine.newId(), engine.newId()];
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot), draft.chat(other, bot)]);
    const firsts: number[] = [];
    for (let i = 0; i < 40; i++) firsts.push(engine.append(analysedExchange(engine.newId, i % 4 === 3 ? other : chat, bot, `line ${i}`))[0]!.seq);
    const edited = db.get<{ turn_id: string }>('SELECT turn_id FROM transcript WHERE seq = ?', [firsts[5]!])!.turn_id;
    engine.append([{ kind: 'turn_edited', chatId: chat, payload: { turnId: edited, text: 'line 5, said better', segments: null } }]);
    const shown = db.all('SELECT * FROM transcript ORDER BY seq');
    expect(shown.every((r) => typeof (r as { turn_id: unknown }).turn_id === 'string' && typeof (r as { speaker: unknown }).speaker === 'string')).toBe(true);

    // The rows as the build before kept them: every id as its text (the column takes either; 0061 runs again).
    undoMigrationsSince(db, 61);
    db.exec('VACUUM');
    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM transcript_rows WHERE typeof(turn_id) = 'text' AND length(turn_id) = 36")!.n).toBe(80);
    const bytesBefore = transcriptBytes(db);
    await migrate(db, readMigrations(), () => 0);
    db.exec('VACUUM');
    const reopened = createEngine({ db, now: testClock(Date.UTC(2026, 1, 1)).now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });

    expect(db.all("SELECT role, typeof(turn_id) AS t, length(turn_id) AS n, typeof(speaker) AS s FROM transcript_rows GROUP BY 1, 2, 3, 4 ORDER BY 1")).toEqual([
      { role: 'assistant', t: 'blob', n: 16, s: 'blob' },
      { role: 'user', t: 'blob', n: 16, s: 'text' },
    ]);
    expect(db.all('SELECT * FROM transcript ORDER BY seq')).toEqual(shown);
    expect(transcriptBytes(db)).toBeLessThan((2 / 3) * bytesBefore);
    // A turn found by its id: through the index by chat and turn, not a pass over the chat's rows.
    const plan = db.all<{ detail: string }>('EXPLAIN QUERY PLAN SELECT seq FROM transcript WHERE chat_id = ? AND turn_key = id_key(?)', [chat, edited]).map((p) => p.detail);
    expect(plan.join('\n')).toContain('sqlite_autoindex_transcript_rows_1');
    expect(db.get<{ seq: number }>('SELECT seq FROM transcript WHERE chat_id = ? AND turn_key = id_key(?)', [chat, edited])!.seq).toBe(firsts[5]);

    // An edit finds its turn; a reply the host began and another bot finished changes its speaker (the
    // journal records the old one as text); a purge journals the other chat's rows as it deletes them.
    reopened.append([{ kind: 'turn_edited', chatId: chat, payload: { turnId: edited, text: 'line 5, said best', segments: null } }]);
    expect(db.get<{ text: string }>('SELECT text FROM transcript WHERE seq = ?', [firsts[5]!])!.text).toBe('line 5, said best');
    const guest = reopened.newId();
    const handedOver = reopened.newId();
    reopened.append([draft.bot(guest, { name: 'Bo' })]);
    const [started] = reopened.append([draft.assistantStarted(chat, handedOver, bot)]);
    reopened.append([draft.assistantTurn(chat, handedOver, guest, 'Bo takes the helm.')]);
    expect(db.get<{ s: string }>('SELECT speaker AS s FROM transcript WHERE seq = ?', [started!.seq])!.s).toBe(guest);
    reopened.append([{ kind: 'chat_deleted', chatId: other, payload: {} }]);
    reopened.purgeNow({ chatId: other });
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM transcript_rows')!.n).toBe(61);
    // A rewind through the journal (records written before the rewrite and after, the ids in them as
    // text) is the same as replaying the chat, and its undo gives the edit back.
    reopened.rewind(chat, firsts[2]!);
    const steered = dumpProjections(db);
    reopened.rebuildChat(chat);
    expect(dumpProjections(db)).toEqual(steered);
    expect(db.all<{ text: string }>('SELECT text FROM transcript WHERE chat_id = ? AND hidden = 0 ORDER BY seq', [chat]).map((r) => r.text)).toEqual([
      'line 0',
      'Mira answers line 0.',
      'line 1',
      'Mira answers line 1.',
    ]);
    reopened.undoRewind(chat);
    expect(db.get<{ text: string }>('SELECT text FROM transcript WHERE seq = ?', [firsts[5]!])!.text).toBe('line 5, said best');
    expect(db.get<{ s: string }>('SELECT speaker AS s FROM transcript WHERE seq = ?', [firsts[6]! + 1])!.s).toBe(bot);
  });
});
