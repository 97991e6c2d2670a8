import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { BackupEvent } from '../../src/engine/log/backup-event.ts';
import type { SyncedEvent } from '../../src/engine/log/merge.ts';
import type { Engine } from '../support/engine.ts';
import { migrate } from '../../src/engine/db/migrate.ts';
import { wrapSqlite } from '../../src/engine/db/sqlite-db.ts';
import { indexAllPendingTranscript } from '../../src/engine/queries/search-index.ts';
import { checkTranscriptIndex } from '../support/dump.ts';
import { draft } from '../support/fixtures.ts';
import { loadSqlite, openTestEngine, readMigrations } from '../support/sqlite.ts';

/** What a turn's row keeps of its words: null when it reads them from its event. */
const keptWords = (db: Db, turnId: string) => db.get<{ text: string | null }>('SELECT text FROM transcript_rows WHERE turn_id = id_key(?)', [turnId])!.text;
const shownWords = (db: Db, turnId: string) => db.get<{ text: string }>('SELECT text FROM transcript WHERE turn_id = ?', [turnId])!.text;
const everything = (engine: Engine): SyncedEvent[] => engine.eventsAfter(0, 1_000_000).map(({ seq: _, ...event }) => event);
const found = (engine: Engine, words: string) => engine.searchChats(words).map((hit) => hit.turnId);

async function story() {
  const device = await openTestEngine();
  const { engine } = device;
  const [bot, chat] = [engine.newId(), engine.newId()];
  engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
  const exchange = (said: string, answer: string) => {
    const [mine, reply] = [engine.newId(), engine.newId()];
    engine.append([draft.userTurn(chat, mine, said), draft.assistantStarted(chat, reply, bot), draft.assistantTurn(chat, reply, bot, answer)]);
    return { mine, reply };
  };
  return { ...device, bot, chat, exchange };
}

describe("a turn's words, kept once in the log", () => {
  it('are read from the event that wrote them, and an edit keeps its own', async () => {
    const { engine, db, chat, exchange } = await story();
    const { mine, reply } = exchange('Hold the lantern steady.', 'Mira raises the lantern over the breakwater.');
    expect([keptWords(db, mine), keptWords(db, reply)]).toEqual([null, null]);
    expect(engine.transcript(chat).turns.map((t) => t.text)).toEqual(['Hold the lantern steady.', 'Mira raises the lantern over the breakwater.']);

    engine.append([{ kind: 'turn_edited', chatId: chat, payload: { turnId: reply, text: 'Mira lowers the lantern.', segments: null } }]);
    expect(keptWords(db, reply)).toBe('Mira lowers the lantern.');
    expect(found(engine, 'lowers')).toEqual([reply]);
    expect(found(engine, 'breakwater')).toEqual([]);
    checkTranscriptIndex(db);
  });

  it('stay searchable, and the index right, when a merge writes a tail again under new seqs', async () => {
    const a = await story();
    const b = await openTestEngine();
    b.engine.mergeEvents(everything(a.engine));
    a.exchange('From the laptop.', 'Mira answers the laptop.');
    // The phone's turn sorts after the laptop's: merging the laptop's moves it to the end.
    const phone = await (async () => {
      const [mine, reply] = [b.engine.newId(), b.engine.newId()];
      b.engine.append([draft.userTurn(a.chat, mine, 'From the phone.'), draft.assistantStarted(a.chat, reply, a.bot), draft.assistantTurn(a.chat, reply, a.bot, 'Mira answers the harbourmaster.')]);
      return { mine, reply };
    })();
    indexAllPendingTranscript(b.db);
    const before = b.db.get<{ seq: number }>('SELECT finished_seq AS seq FROM transcript_rows WHERE turn_id = id_key(?)', [phone.reply])!.seq;

    b.engine.mergeEvents(everything(a.engine));

    expect(b.db.get<{ seq: number }>('SELECT finished_seq AS seq FROM transcript_rows WHERE turn_id = id_key(?)', [phone.reply])!.seq).toBeGreaterThan(before);
    expect(shownWords(b.db, phone.reply)).toBe('Mira answers the harbourmaster.');
    expect(found(b.engine, 'harbourmaster')).toEqual([phone.reply]);
    expect(found(b.engine, 'laptop').length).toBe(2);
    // Told the wrong words as the moved rows left it, FTS5 keeps stale entries and says so here.
    checkTranscriptIndex(b.db);
  });

  it('leave the search index right when a backup replaces the story they are in', async () => {
    const here = await story();
    here.exchange('Hide the silver key.', 'Mira buries the key under the lighthouse.');
    indexAllPendingTranscript(here.db);
    const backup = await story();
    backup.exchange('Raise the sails.', 'Mira climbs the rigging.');
    const events = backup.db.all<BackupEvent>('SELECT id, device_id, ts, kind, chat_id, payload, cause_id, command_id FROM events ORDER BY id');

    here.engine.restore.begin();
    here.engine.restore.add(events);
    here.engine.restore.commit(events.length);

    checkTranscriptIndex(here.db);
    expect(found(here.engine, 'rigging').length).toBe(1);
    expect(found(here.engine, 'lighthouse')).toEqual([]);
  });

  it('leave no trace in the search index when their chat is deleted forever', async () => {
    const { engine, db, chat, exchange } = await story();
    exchange('Hide the silver key.', 'Mira buries the key under the lighthouse.');
    indexAllPendingTranscript(db);
    engine.deleteChat(chat);
    engine.purgeNow({ chatId: chat });
    checkTranscriptIndex(db);
    expect(db.all("SELECT rowid FROM transcript_fts WHERE transcript_fts MATCH 'lighthouse'")).toEqual([]);
  });
});

describe('a database from before 0053', () => {
  it("keeps each turn's words once, an edited turn's own, and its search index and journal as they were", async () => {
    const sqlite = await loadSqlite();
    const db = wrapSqlite(sqlite, new sqlite.oo1.DB(':memory:', 'c'));
    // From before 0049 too: a player's turn of one part still has its words in its parts.
    await migrate(db, readMigrations().filter((m) => m.name < '0049'), () => 0);
    const parts = (text: string) => JSON.stringify([{ type: 'dialogue', text }]);
    const turn = (seq: number, kind: string, turnId: string, text: string) =>
      db.run("INSERT INTO events (seq, id, device_id, ts, kind, chat_id, payload) VALUES (?, printf('019b0000-0000-7000-8000-%012d', ?1), 'device', ?1, ?, 'chat', json_object('turnId', ?, 'text', ?))", [seq, kind, turnId, text]);
    const row = (seq: number, role: string, turnId: string, text: string, edited = 0) =>
      db.run("INSERT INTO transcript (chat_id, turn_id, seq, role, speaker, text, segments, status, finished_seq, edited) VALUES ('chat', ?, ?, ?, 'you', ?, ?, 'done', ?2, ?)", [turnId, seq, role, text, role === 'user' ? parts(text) : null, edited]);
    turn(1, 'user_turn', 'said', '"Hold the lantern steady."');
    row(1, 'user', 'said', '"Hold the lantern steady."');
    turn(2, 'assistant_turn', 'answered', 'Mira raises the lantern.');
    row(2, 'assistant', 'answered', 'Mira raises the lantern.');
    turn(3, 'assistant_turn', 'edited', 'Mira sings.');
    row(3, 'assistant', 'edited', 'Mira hums a sea shanty.', 1);
    db.run("INSERT INTO projection_journal (seq, chat_id, tbl, key, op, old) VALUES (3, 'chat', 'transcript', json_object('chat_id', 'chat', 'turn_id', 'edited'), 'insert', NULL)");
    indexAllPendingTranscript(db);

    await migrate(db, readMigrations(), () => 0);

    expect(db.all('SELECT turn_id, text, segments FROM transcript_rows ORDER BY seq')).toEqual([
      { turn_id: 'said', text: null, segments: '"dialogue"' },
      { turn_id: 'answered', text: null, segments: null },
      { turn_id: 'edited', text: 'Mira hums a sea shanty.', segments: null },
    ]);
    expect(db.all('SELECT text FROM transcript ORDER BY seq').map((r) => (r as { text: string }).text)).toEqual([
      '"Hold the lantern steady."',
      'Mira raises the lantern.',
      'Mira hums a sea shanty.',
    ]);
    expect(db.all('SELECT tbl FROM projection_journal')).toEqual([{ tbl: 'transcript_rows' }]);
    checkTranscriptIndex(db);
    expect(db.all("SELECT rowid AS seq FROM transcript_fts WHERE transcript_fts MATCH 'shanty OR raises' ORDER BY rowid")).toEqual([{ seq: 2 }, { seq: 3 }]);
  });
});
