import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { wrapSqlite } from '../../src/engine/db/sqlite-db.ts';
import type { Db } from '../../src/engine/db/port.ts';
import { openEngine, type Engine } from '../support/engine.ts';
import { dumpProjections, checkMemoryIndex } from '../support/dump.ts';
import { testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { loadSqlite, openTestEngine, readMigrations } from '../support/sqlite.ts';

/**
 * A chat played, regenerated, rewound, un-rewound and rewound again by the app as it was before
 * the log became immutable (tests/fixtures/README.md): its database file, its v1 backup, and what
 * the screens showed. Both must come forward without losing a turn.
 */
const fixture = (name: string) => new URL(`../fixtures/${name}`, import.meta.url);
const frozen = JSON.parse(readFileSync(fixture('v1-expected.json'), 'utf8')) as {
  chatId: string;
  transcript: { turns: object[]; olderCursor: number | null };
  chatState: unknown;
  chats: unknown;
};
/**
 * What the screens showed then, plus what the transcript has said since: nothing edited or deleted, no reply with a second
 * version is shown last, no value edited by hand, no director's note, the reply order as new chats have it and nobody muted, no background, no scene ended yet, no threads, no items, no fields of the player's own, no memory with keywords (the analysis gave none then), no reply with thinking, and the rewind still in force (event 54) hid two turns ("Bail!" and its reply).
 */
const expected = {
  ...frozen,
  chatState: {
    ...(frozen.chatState as object),
    edited: [],
    lastEdit: null,
    directorNote: '',
    deleted: null,
    sampler: null,
    replyOrder: 'named',
    background: { shown: null, choice: 'host', host: null },
    lastSceneEnded: null,
    threads: [],
    items: [],
    fields: [],
    // What each held is in items now (the one truth of who has what): nothing here held anything.
    activities: (frozen.chatState as { activities: Record<string, unknown>[] }).activities.map(({ holding: _held, ...a }) => ({ ...a, muted: false })),
    memories: (frozen.chatState as { memories: object[] }).memories.map((m) => ({ ...m, keywords: '' })),
  },
  transcript: { ...frozen.transcript, turns: frozen.transcript.turns.map((t) => ({ ...t, speakerAvatar: null, thinking: null, edited: false, hidden: false, versions: null })), rewinds: [{ seq: 54, turns: 2 }], resetSeq: null, newerCursor: null },
  chats: (frozen.chats as object[]).map((c) => ({ ...c, botAvatar: null })),
};
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The v1 database file, as an in-memory database (schema version 5, nothing migrated yet). */
async function openV1Database(): Promise<Db> {
  const sqlite = await loadSqlite();
  const bytes = new Uint8Array(readFileSync(fixture('v1-database.sqlite3')));
  const raw = new sqlite.oo1.DB(':memory:', 'c');
  const memory = sqlite.wasm.allocFromTypedArray(bytes);
  const flags = sqlite.capi.SQLITE_DESERIALIZE_FREEONCLOSE | sqlite.capi.SQLITE_DESERIALIZE_RESIZEABLE;
  const rc = sqlite.capi.sqlite3_deserialize(raw.pointer!, 'main', memory, bytes.length, bytes.length, flags);
  if (rc !== 0) throw new Error(`sqlite3_deserialize failed: ${rc}`);
  return wrapSqlite(sqlite, raw);
}

const screens = (engine: Engine) => ({
  transcript: engine.transcript(expected.chatId),
  chatState: engine.chatState(expected.chatId),
  chats: engine.listChats(),
});
const texts = (engine: Engine) => engine.transcript(expected.chatId).turns.map((t) => t.text);

/** What only the log's new shape promises: ids in log order, every row signed by its device. */
function expectNewShape(db: Db) {
  const rows = db.all<{ seq: number; id: string; device_id: string }>('SELECT seq, id, device_id FROM events ORDER BY seq');
  expect(rows.length).toBeGreaterThan(50);
  for (const row of rows) expect(row.id).toMatch(UUID_V7);
  expect(rows.map((r) => r.id)).toEqual(rows.map((r) => r.id).sort());
  expect(new Set(rows.map((r) => r.device_id)).size).toBe(1);
}

describe('a database written by the first log shape', () => {
  it('migrates forward showing exactly what it showed, and its tables rebuild from the new rows alone', async () => {
    const db = await openV1Database();
    expect(db.get<{ v: number }>('SELECT max(version) AS v FROM meta')!.v).toBe(5);
    const identity = db.get<{ id: string }>('SELECT id FROM database_identity')!.id;
    const engine = await openEngine({ db, now: Date.now, randomBytes: (n) => new Uint8Array(randomBytes(n)) }, readMigrations());

    expect(screens(engine)).toEqual({ transcript: expected.transcript, chatState: expected.chatState, chats: expected.chats });
    expectNewShape(db);
    expect(db.get<{ d: string }>('SELECT DISTINCT device_id AS d FROM events')!.d).toBe(identity);

    // The markers that were columns are now derived: rebuilding from the marker events gives the
    // same visibility the migration copied over, and the same everything else.
    const migrated = dumpProjections(db);
    expect(migrated.visibility!.length).toBeGreaterThan(10);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(migrated);
    checkMemoryIndex(db);
  });

  it('keeps the hidden story and the earlier reply: undo brings the rewound turn back, and play goes on', async () => {
    const db = await openV1Database();
    const engine = await openEngine({ db, now: Date.now, randomBytes: (n) => new Uint8Array(randomBytes(n)) }, readMigrations());
    const before = texts(engine);
    expect(before).not.toContain('"Bail!"');
    engine.undoRewind(expected.chatId);
    expect(texts(engine)).toEqual([...before.slice(0, 7), '"Bail!"', 'The hold floods.', ...before.slice(7)]);
    // The superseded first answer to turn 2 is still in the log, as an earlier version.
    const superseded = db.all<{ payload: string }>(
      "SELECT e.payload FROM events e JOIN visibility v ON v.seq = e.seq WHERE e.kind = 'assistant_turn' AND v.superseded_by IS NOT NULL",
    );
    expect(superseded.map((r) => JSON.parse(r.payload).text)).toEqual(['Mira laughs at the rain.']);

    const newest = db.get<{ id: string }>('SELECT max(id) AS id FROM events')!.id;
    const { leader, client } = testLeader(engine, scriptedLlm('The sea calms.', 'not json').client);
    await client.sendTurn(expected.chatId, '"Land ho!"');
    await leader.idle();
    expect(texts(engine).slice(-2)).toEqual(['"Land ho!"', 'The sea calms.']);
    const added = db.all<{ id: string }>('SELECT id FROM events WHERE id > ? ORDER BY seq', [newest]);
    expect(added.length).toBeGreaterThan(2);
    expectNewShape(db);
  });

  it('refuses to change or delete an event row, at the database itself', async () => {
    const db = await openV1Database();
    await openEngine({ db, now: Date.now, randomBytes: (n) => new Uint8Array(randomBytes(n)) }, readMigrations());
    expect(() => db.run("UPDATE events SET payload = '{}' WHERE seq = 20")).toThrow(/events are immutable/);
    expect(() => db.run('DELETE FROM events WHERE seq = 20')).toThrow(/never deleted/);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(62);
  });
});

describe('a v1 backup file', () => {
  it('restores into a fresh database showing exactly what the app showed, rewinds and earlier replies included', async () => {
    const backup = JSON.parse(readFileSync(fixture('v1-backup.json'), 'utf8'));
    expect(backup.version).toBe(1);
    const { engine, db } = await openTestEngine({ now: Date.now });
    expect(engine.importLog(backup)).toEqual({ events: 62 });
    expect(screens(engine)).toEqual({ transcript: expected.transcript, chatState: expected.chatState, chats: expected.chats });
    expectNewShape(db);
    engine.undoRewind(expected.chatId);
    expect(texts(engine)).toContain('"Bail!"');
  });

  it('comes out of the new shape and back in unchanged (a v2 backup of the migrated story)', async () => {
    const db = await openV1Database();
    const engine = await openEngine({ db, now: Date.now, randomBytes: (n) => new Uint8Array(randomBytes(n)) }, readMigrations());
    const backup = JSON.parse(JSON.stringify(engine.exportLog()));
    expect(backup.version).toBe(2);
    expect(Object.keys(backup.events[0]).sort()).toEqual(['cause_id', 'chat_id', 'command_id', 'device_id', 'id', 'kind', 'payload', 'ts']);
    const target = await openTestEngine();
    target.engine.importLog(backup);
    expect(dumpProjections(target.db)).toEqual(dumpProjections(db));
    expect(target.db.all('SELECT id, device_id, ts, kind, chat_id, payload, cause_id FROM events ORDER BY seq')).toEqual(
      db.all('SELECT id, device_id, ts, kind, chat_id, payload, cause_id FROM events ORDER BY seq'),
    );
  });

  it('that is almost valid (an undo naming a rewind that is not there) is refused, and nothing is written', async () => {
    const backup = JSON.parse(readFileSync(fixture('v1-backup.json'), 'utf8'));
    const undo = backup.events.find((e: { kind: string }) => e.kind === 'rewind_undone');
    undo.payload = JSON.stringify({ rewindSeq: 999 });
    const { engine } = await openTestEngine();
    expect(() => engine.importLog(backup)).toThrow(/Event \d+ \(rewind_undone\) points its rewindSeq at event 999, which is not in the backup/);
    expect(engine.headSeq()).toBe(0);
  });
});
