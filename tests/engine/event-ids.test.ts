import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/engine/db/migrate.ts';
import type { Db } from '../../src/engine/db/port.ts';
import { compareIds } from '../../src/engine/ids.ts';
import { TRAVELLING_COLUMNS } from '../../src/engine/log/row.ts';
import { canonicalProjections } from '../support/dump.ts';
import { createEngine } from '../support/engine.ts';
import { analysedExchange, draft } from '../support/fixtures.ts';
import { openMemoryDb, openTestEngine, readMigrations, testClock } from '../support/sqlite.ts';

/** The bytes the log's rows take, with its indexes by id and by cause. */
const logBytes = (db: Db) =>
  db.get<{ b: number }>("SELECT sum(payload) AS b FROM dbstat WHERE name IN ('event_rows', 'sqlite_autoindex_event_rows_1', 'events_by_cause')")!.b;
const planOf = (db: Db, sql: string) => db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).map((p) => p.detail).join('\n');
type Row = Record<string, unknown> & { seq: number };
const LOG = `SELECT seq, ${TRAVELLING_COLUMNS} FROM events ORDER BY seq`;

describe("the log's ids, kept as 16 bytes (migration 0065)", () => {
  it('rewrite an older log smaller, read back the same, are found through the indexes, and the story rebuilt from them is the same', async () => {
    const { engine, db } = await openTestEngine();
    const bot = engine.newId();
    const chat = engine.newId();
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
    for (let i = 0; i < 30; i++) engine.append(analysedExchange(engine.newId, chat, bot, `line ${i}`));
    const again = engine.turns.regenerate(chat);
    engine.turns.finishTurn(again, { text: 'Another way it could have gone.', usage: null, truncated: false, reason: null, error: null });
    const rows = db.all<Row>(LOG);
    const story = canonicalProjections(db);

    // The same log as the build before kept it: migrated up to 0064, each id as its 36 characters.
    const older = await openMemoryDb();
    await migrate(older, readMigrations().filter((m) => m.name < '0065'), () => 0);
    for (const r of rows) {
      older.run(`INSERT INTO events (seq, ${TRAVELLING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        r.seq, r.id, r.device_id, r.ts, r.kind, r.chat_id, r.payload, r.cause_id, r.command_id,
      ] as (string | number | null)[]);
    }
    older.exec('VACUUM');
    expect(older.get<{ n: number }>("SELECT count(*) AS n FROM event_rows WHERE typeof(id) = 'text' AND length(id) = 36")!.n).toBe(rows.length);
    const bytesBefore = logBytes(older);

    await migrate(older, readMigrations(), () => 0);
    older.exec('VACUUM');
    expect(older.all('SELECT typeof(id) AS t, length(id) AS n, count(*) > 0 AS some FROM event_rows GROUP BY 1, 2')).toEqual([{ t: 'blob', n: 16, some: 1 }]);
    expect(older.get<{ n: number }>("SELECT count(*) AS n FROM event_rows WHERE cause_id IS NOT NULL AND typeof(cause_id) <> 'blob'")!.n).toBe(0);
    expect(older.all<Row>(LOG)).toEqual(rows);
    // Each event's id was ~a fifth of its row, and all of its index entry.
    expect(logBytes(older)).toBeLessThan(0.85 * bytesBefore);

    // An event by its id, what it caused, a command's first event: through the indexes, not a pass over the log.
    const reply = rows.find((r) => r.kind === 'assistant_turn')! as Row & { id: string };
    expect(planOf(older, 'SELECT seq FROM events WHERE event_key = id_key(?)')).toContain('sqlite_autoindex_event_rows_1');
    expect(planOf(older, 'SELECT seq FROM events WHERE cause_key = id_key(?)')).toContain('events_by_cause');
    expect(planOf(older, 'SELECT seq FROM events WHERE command_key = id_key(?)')).toContain('events_by_command');
    expect(older.get<{ seq: number }>('SELECT seq FROM events WHERE event_key = id_key(?)', [reply.id])!.seq).toBe(reply.seq);
    expect(older.all<{ kind: string }>('SELECT kind FROM events WHERE cause_key = id_key(?) ORDER BY seq', [reply.id]).map((r) => r.kind)).toEqual(['edge_update', 'memory_written']);

    const reopened = createEngine({ db: older, now: testClock(Date.UTC(2026, 1, 1)).now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });
    reopened.rebuild();
    expect(canonicalProjections(older)).toEqual(story);
    // The clock reads the newest id back as text: a new event sorts after every one before it.
    const [next] = reopened.append([draft.userTurn(chat, reopened.newId(), 'line 31')]);
    expect(compareIds(rows.at(-1)!.id as string, next!.id)).toBe(-1);
    // A rewind hides what the turn caused (found by cause), and its undo brings it back.
    const started = rows.filter((r) => r.kind === 'user_turn')[25]!;
    reopened.rewind(chat, started.seq);
    expect(reopened.transcript(chat).turns.filter((t) => t.seq >= started.seq)).toEqual([]);
    const rewound = canonicalProjections(older);
    reopened.rebuildChat(chat);
    expect(canonicalProjections(older)).toEqual(rewound);
    reopened.undoRewind(chat);
    expect(reopened.transcript(chat).turns.at(-1)!.text).toBe('line 31');
  });

  it('branch from the last turn, carrying the edits made since, once', async () => {
    const { engine, db } = await openTestEngine();
    const bot = engine.newId();
    const chat = engine.newId();
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
    for (let i = 0; i < 3; i++) engine.append(analysedExchange(engine.newId, chat, bot, `line ${i}`));
    const first = engine.transcript(chat).turns[0]!;
    engine.append([{ kind: 'turn_edited', chatId: chat, payload: { turnId: first.turnId, text: 'line 0, said better', segments: null } }]);
    const last = engine.transcript(chat).turns.at(-1)!;
    // From the last turn there is no next event to stop at: "up to the end" is no id at all, not a
    // word sorting after every id (as text it did; the log's ids are bytes now, which sort after text).
    const branch = engine.branchChat(chat, last.seq);
    expect(engine.transcript(branch).turns.map((t) => t.text)).toEqual(engine.transcript(chat).turns.map((t) => t.text));
    expect(engine.transcript(branch).turns[0]!.text).toBe('line 0, said better');
    // The edit came with the copied story; nothing after the last turn was there to carry again.
    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM events WHERE chat_id = ? AND kind = 'turn_edited'", [branch])!.n).toBe(1);
  });

  it('sort an id not in the log’s form before the rest, in memory as in the log: a backup holding one restores, and its export restores again', async () => {
    const { engine } = await openTestEngine();
    const bot = engine.newId();
    const chat = engine.newId();
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
    for (let i = 0; i < 2; i++) engine.append(analysedExchange(engine.newId, chat, bot, `line ${i}`));
    const backup = engine.exportLog() as { version: number; events: { id: string; kind: string }[] };
    // A hand-edited backup: the player's profile under an id in capitals, which as text sorts after
    // every other id here ('F' after '0'), so a backup written before 0065 held it last.
    const you = backup.events.findIndex((e) => e.kind === 'you_authored');
    const edited = { ...backup, events: [...backup.events.slice(0, you), ...backup.events.slice(you + 1), { ...backup.events[you]!, id: 'FFFFFFFF-0000-7000-8000-000000000001' }] };

    const { engine: restored, db } = await openTestEngine();
    restored.importLog(edited);
    // Seq order is id order (what a merge from another device relies on), the log's order of ids.
    const bySeq = db.all<{ id: string }>('SELECT id FROM events ORDER BY seq').map((r) => r.id);
    expect(bySeq).toEqual([...bySeq].sort(compareIds));
    const exported = restored.exportLog() as typeof backup;
    // Kept as text, it sorts first in the log, and the export follows the log.
    expect(exported.events[0]!.id).toBe('FFFFFFFF-0000-7000-8000-000000000001');
    expect(exported.events.map((e) => e.id)).toEqual([...exported.events.map((e) => e.id)].sort(compareIds));
    const again = (await openTestEngine()).engine;
    again.importLog(exported);
    expect(again.transcript(chat).turns.map((t) => t.text)).toEqual(engine.transcript(chat).turns.map((t) => t.text));
    expect(again.getYou()?.name).toBe(engine.getYou()?.name);
  });
});
