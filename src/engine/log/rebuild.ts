import type { Db } from '../db/port.ts';
import { CHAT_COLUMN, chatKeyOf, definitionOf, EVENT_DEFINITIONS, KINDS_REACHING_CHATS, PROJECTED_TABLES, storedTable } from '../events/registry.ts';
import { UnknownEventKindError } from './errors.ts';
import { project, projectIntoChat } from './project.ts';
import { JOURNAL_KEPT_EVENTS, journalEdge, journalHorizon, journalingSwitch, setJournalHorizon, unproject } from './journal.ts';
import { chatRef, EVENT_COLUMNS, fromRow, type EventRow } from './row.ts';
import { forgetMarks, inheritFromCause, VISIBLE } from './visibility.ts';
import { refillSearchIndexes } from '../queries/search-index.ts';
import { anyChangeUndone, applyProjection, eventsUndoneBy } from '../events/value-changes.ts';

const BATCH = 2_000;
/**
 * A rebuild journals a chat's latest `JOURNAL_KEPT_EVENTS` only where replaying the chat would be
 * slow (past `CHEAP_REPLAY_EVENTS`, a quarter of a second); a shorter chat gets its latest
 * `SHORT_JOURNAL_EVENTS`, enough for a swipe, an edit or a rewind among the last two dozen
 * exchanges. Steering further back in it replays it once (`rebuildChatFrom`), which journals it
 * whole again. Recording the journal was a third of a rebuild's time.
 */
const CHEAP_REPLAY_EVENTS = 10_000;
const SHORT_JOURNAL_EVENTS = 200;
/** Projected tables (and the journal) whose own indexes a full rebuild sets aside; `visibility`'s serve the markers' replay. */
const TABLES_REINDEXED_AT_THE_END = [...PROJECTED_TABLES.filter((t) => t !== 'visibility').map(storedTable), 'projection_journal'];
const MARKING_KINDS = JSON.stringify(EVENT_DEFINITIONS.filter((d) => 'marks' in d).map((d) => d.kind));

/**
 * Replays the matching events after seq `after`, in seq order, which is id order (the order of
 * events on every device; `writeInIdOrder` keeps it so), in pages; `ahead` sees each page before
 * its events are applied.
 */
function replay(db: Db, where: string, params: readonly (string | number)[], each: (row: EventRow) => void, after = 0, ahead?: (page: readonly EventRow[]) => void): number {
  let replayed = 0;
  for (;;) {
    // Bounded on seq, the rowid: a chat's range starts there in the index by chat, which ends in it.
    const rows: EventRow[] = db.all<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.seq > ? AND (${where}) ORDER BY e.seq LIMIT ${BATCH}`, [after, ...params]);
    ahead?.(rows);
    for (const row of rows) each(row);
    replayed += rows.length;
    const last = rows.at(-1);
    if (!last || rows.length < BATCH) return replayed;
    after = last.seq;
  }
}

function definition(kind: string) {
  const def = definitionOf(kind);
  if (!def) throw new UnknownEventKindError(kind);
  return def;
}

/**
 * Clears every projected table and fills it again from the event rows alone: first which events
 * are visible (every marker event in id order, hidden ones too, so each sees what the earlier ones
 * left), then the visible events' projections in id order. Always a legal way to reach the current
 * state; the property test holds it equal to what incremental projection produced.
 *
 * Each chat's journal is refilled only for its latest `journalKeep` events, what `pruneJournal`
 * would keep of it: older events are projected without it (most of a long log), and each chat's
 * `last_seq` is set once at the end instead of after every event.
 */
export function rebuild(db: Db, journalKeep: number = JOURNAL_KEPT_EVENTS): number {
  return db.transaction(() => {
    // The full-text indexes are rebuilt once at the end, from their tables, instead of row by row
    // through their triggers (which are set aside meanwhile, inside this transaction).
    const ftsTriggers = db.all<{ name: string; sql: string }>(
      `SELECT t.name, t.sql FROM sqlite_master t WHERE t.type = 'trigger'
         AND EXISTS (SELECT 1 FROM sqlite_master f WHERE f.type = 'table' AND f.sql LIKE 'CREATE VIRTUAL TABLE%fts5%' AND t.sql LIKE '%' || f.name || '%')`,
    );
    for (const trigger of ftsTriggers) db.exec(`DROP TRIGGER ${trigger.name}`);
    // The screens' indexes are made again once at the end, from whole tables (a sort), instead of
    // kept up row by row; projections name rows by primary key and never need them.
    const screenIndexes = db.all<{ name: string; sql: string }>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(TABLES_REINDEXED_AT_THE_END)],
    );
    for (const index of screenIndexes) db.exec(`DROP INDEX ${index.name}`);
    for (const table of PROJECTED_TABLES) db.run(`DELETE FROM ${storedTable(table)}`);
    db.run('DELETE FROM projection_journal');
    db.run('DELETE FROM journal_horizon');
    remark(db);
    const undoneKnown = anyChangeUndone(db);
    const journalFrom = new Map<string, number>();
    for (const { chat_id, events } of db.all<{ chat_id: string; events: number }>('SELECT c.id AS chat_id, count(*) AS events FROM event_rows e JOIN chat_refs c ON c.ref = e.chat GROUP BY e.chat')) {
      const keep = events > CHEAP_REPLAY_EVENTS ? journalKeep : Math.min(journalKeep, SHORT_JOURNAL_EVENTS);
      const edge = journalEdge(db, chat_id, keep);
      if (edge !== undefined) journalFrom.set(chat_id, edge);
    }
    // Events behind their chat's edge are projected unrecorded. Where a whole page of them comes,
    // the journal's triggers are set aside for it: even idle, each fired and read the switch.
    const journaledAt = (row: EventRow): number | null => (row.chat_id !== null && row.seq < (journalFrom.get(row.chat_id) ?? 0) ? null : row.seq);
    const journalTriggers = db.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'journal\\_%' ESCAPE '\\'");
    let triggersIn = true;
    const journalAs = journalingSwitch(db);
    const replayed = replay(
      db,
      VISIBLE('e'),
      [],
      (row) => {
        const def = definition(row.kind);
        // last_seq is settled once at the end, not moved event by event.
        journalAs(journaledAt(row));
        applyProjection(db, def, fromRow(row), undoneKnown);
      },
      0,
      (page) => {
        const wanted = page.some((row) => journaledAt(row) !== null);
        if (wanted === triggersIn) return;
        for (const trigger of journalTriggers) db.exec(wanted ? trigger.sql : `DROP TRIGGER ${trigger.name}`);
        triggersIn = wanted;
      },
    );
    if (!triggersIn) for (const trigger of journalTriggers) db.exec(trigger.sql);
    journalAs(null);
    for (const [chatId, seq] of journalFrom) if (db.get('SELECT 1 AS x FROM chats WHERE id = ?', [chatId])) setJournalHorizon(db, chatId, seq);
    settleLastSeq(db);
    for (const index of screenIndexes) db.exec(index.sql);
    for (const trigger of ftsTriggers) db.exec(trigger.sql);
    // The indexes then hold every row: none waits for them (migrations 0024, 0025, 0037).
    refillSearchIndexes(db);
    return replayed;
  });
}

/**
 * Sets each chat's `last_seq` (or one chat's) to its last visible event in replay order: what
 * projecting its events one by one leaves there. Not journaled, so a tail replay sets it here.
 */
export function settleLastSeq(db: Db, chatId?: string): void {
  db.run(
    `UPDATE chats SET last_seq = coalesce((SELECT e.seq FROM events e WHERE e.chat_id = chats.id AND ${VISIBLE('e')} ORDER BY e.seq DESC LIMIT 1), last_seq)
     ${chatId === undefined ? '' : 'WHERE id = ?'}`,
    chatId === undefined ? [] : [chatId],
  );
}

/**
 * Works out again which of a chat's events are visible: its markers replayed in id order, as a
 * full rebuild does. For a chat whose log gained events that sort among its older ones (merged
 * from another device), where a marker may now see a different log before it.
 */
export function remarkChat(db: Db, chatId: string): void {
  forgetMarks(db, 'SELECT seq FROM events WHERE chat_id = ?', [chatId]);
  remark(db, chatId);
}

/**
 * Replays visibility as appending made it, in id order: each marker's `marks`, and each event with
 * a cause not shown taking on its cause's state (`inheritFromCause`), as it did when it arrived.
 * Between two markers only that inheritance changes anything, so each stretch is done in one
 * statement (repeated while it finds more, for chains): going event by event cost a rebuild half
 * its speed.
 */
function remark(db: Db, chatId?: string): void {
  const inChat = chatId === undefined ? '' : `e.chat_ref = ${chatRef('?')} AND `;
  const params = chatId === undefined ? [] : [chatId];
  let after = 0;
  const inheritBetween = (before: number) => {
    while (
      db.run(
        `INSERT INTO visibility (seq, superseded_by, hidden_by)
         SELECT e.seq, v.superseded_by, v.hidden_by FROM events e JOIN events c ON c.event_key = e.cause_key JOIN visibility v ON v.seq = c.seq
         WHERE ${inChat}e.seq > ? AND e.seq < ? AND e.cause_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM visibility w WHERE w.seq = e.seq)
         ON CONFLICT (seq) DO NOTHING`,
        [...params, after, before],
      ) > 0
    );
  };
  replay(db, `${inChat}kind IN (SELECT value FROM json_each(?))`, [...params, MARKING_KINDS], (row) => {
    inheritBetween(row.seq);
    definition(row.kind).marks?.(db, fromRow(row));
    inheritFromCause(db, { seq: row.seq, causeId: row.cause_id });
    after = row.seq;
  });
  inheritBetween(Number.MAX_SAFE_INTEGER);
}

/**
 * Rebuilds one chat's rows alone: its own visible events, plus the global events that reach into
 * chat rows, limited to this chat. A regenerate or rewind then costs the size of that story, not of
 * every story the user has. Chat projections touch only rows of their own chat; that is what makes
 * this equal to a full rebuild, and the property test checks it. Visibility is left as it is: it is
 * kept current by the marker events as they are appended.
 */
export function rebuildChat(db: Db, chatId: string): number {
  return db.transaction(() => {
    for (const [table, column] of Object.entries(CHAT_COLUMN)) db.run(`DELETE FROM ${storedTable(table)} WHERE ${column} = ${chatKeyOf(table, '?')}`, [chatId]);
    db.run(`DELETE FROM projection_journal WHERE chat = ${chatRef('?')}`, [chatId]);
    db.run('DELETE FROM journal_horizon WHERE chat_id = ?', [chatId]);
    return replayChat(db, chatId, 0);
  });
}

/**
 * Brings one chat's rows in line with the log from the event at `fromSeq` on: the journal undoes
 * what the events from there did, then the visible ones are projected again. What came before is
 * untouched, so a swipe or a rewind near the end costs the tail, not the story. Equal to
 * `rebuildChat`, which the property test holds it to; and where the chat's journal does not reach
 * back that far (a branch's copied stretch, a pruned journal), that is what it does.
 */
export function rebuildChatFrom(db: Db, chatId: string, fromSeq: number): number {
  if (fromSeq < journalHorizon(db, chatId)) return rebuildChat(db, chatId);
  return db.transaction(() => {
    unproject(db, chatId, fromSeq);
    return replayChat(db, chatId, fromSeq);
  });
}

/** The chat's visible events from `fromSeq`, and the global events reaching into its rows, projected in id order. */
export function replayChat(db: Db, chatId: string, fromSeq: number): number {
  const reaching = JSON.stringify(KINDS_REACHING_CHATS);
  // A tail (a swipe, an edit, a rewind near the end) is read from the index by chat: the chat's
  // events and the global ones from `fromSeq`, sorted together. A whole chat is read from the log's
  // rows in their own order, the chat's picked out: through the index SQLite sorted the rest of the
  // chat again for each page.
  const chatRefColumn = fromSeq > 0 ? 'chat_ref' : '+chat_ref';
  const replayed = replay(
    db,
    `${VISIBLE('e')} AND (${chatRefColumn} = ${chatRef('?')} OR (${chatRefColumn} IS NULL AND kind IN (SELECT value FROM json_each(?))))`,
    [chatId, reaching],
    (row) => {
      const def = definition(row.kind);
      const event = fromRow(row);
      if (row.chat_id === null) projectIntoChat(db, def, event, chatId);
      else project(db, def, event);
    },
    fromSeq - 1,
  );
  settleLastSeq(db, chatId);
  return replayed;
}

/**
 * Brings projections back in line after visibility changed on `seqs`: each chat from its earliest
 * changed event on; the whole database when a global event changed.
 */
export function rebuildAfterMarking(db: Db, marked: readonly number[]): void {
  // A change taken back by a marker whose own visibility changed comes back (or goes) with it.
  const seqs = [...marked, ...eventsUndoneBy(db, marked)];
  const chats = db.all<{ chat_id: string | null; from_seq: number }>(
    'SELECT chat_id, min(seq) AS from_seq FROM events WHERE seq IN (SELECT value FROM json_each(?)) GROUP BY chat_id',
    [JSON.stringify(seqs)],
  );
  if (chats.some((c) => c.chat_id === null)) {
    rebuild(db);
    return;
  }
  for (const { chat_id, from_seq } of chats) rebuildChatFrom(db, chat_id!, from_seq);
}

/**
 * Projects a chat whose events were all just logged unprojected (`insertEvents`, an imported
 * chat), as `rebuildChat` would: its markers' visibility first, in id order, then its visible
 * events. Only events from `journalFrom` on are journaled, which is all the journal would keep of
 * them (`pruneJournal`); steering behind that replays the chat, as for any chat with a horizon.
 * `progress` hears how many events are projected, a page at a time.
 */
export function projectNewChat(db: Db, chatId: string, journalFrom: number, progress?: (projected: number) => void): number {
  return db.transaction(() => {
    remarkChat(db, chatId);
    setJournalHorizon(db, chatId, journalFrom);
    let projected = 0;
    const replayed = replay(db, `${VISIBLE('e')} AND chat_id = ?`, [chatId], (row) => {
      const def = definition(row.kind);
      if (row.seq >= journalFrom) project(db, def, fromRow(row));
      else applyProjection(db, def, fromRow(row));
      if (++projected % BATCH === 0) progress?.(projected);
    });
    settleLastSeq(db, chatId);
    return replayed;
  });
}
