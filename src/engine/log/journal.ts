import type { Db } from '../db/port.ts';
import { CHAT_COLUMN, chatRefOf, columnAsText, columnFromText, storedTable } from '../events/registry.ts';
import { chatRef } from './row.ts';

/**
 * The projection journal: reversible projections for chat rows. While an event is projected,
 * triggers on every chat table record what changed (an insert's key, an update's or delete's whole
 * prior row, always named by primary key), under the event's seq and the row's chat (its number in
 * the log, `chat_refs`: a record is a few dozen bytes, and a player with many chats keeps up to
 * `JOURNAL_KEPT_EVENTS` of each). Undoing a chat's tail walks those
 * records backwards, so a swipe or a rewind near the end of a 10,000-turn story costs the tail,
 * not the story. Writes made outside a projection (clearing tables for a rebuild, the undo itself)
 * are not recorded.
 */

export interface TableShape {
  table: string;
  chatColumn: string;
  columns: string[];
  /** The primary key's columns: a row is named by its key, never by its rowid (reused once freed). */
  key: string[];
}

const shapes = new WeakMap<Db, TableShape[]>();

/** The tables holding chat rows, with their columns and keys. */
export function chatTables(db: Db): TableShape[] {
  let known = shapes.get(db);
  if (!known) {
    known = Object.entries(CHAT_COLUMN).map(([projected, chatColumn]) => {
      const table = storedTable(projected);
      const info = db.all<{ name: string; pk: number }>(`SELECT name, pk FROM pragma_table_info('${table}')`);
      const key = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      if (key.length === 0) throw new Error(`Table ${table} has no primary key, so its rows cannot be journaled`);
      return { table, chatColumn: chatColumn!, columns: info.map((c) => c.name), key };
    });
    shapes.set(db, known);
  }
  return known;
}

/**
 * From which seq on a chat's journal is complete (0: all of it). A branch's copied stretch has no
 * journal; a tail rebuild reaching behind the horizon replays the whole chat instead.
 */
export function journalHorizon(db: Db, chatId: string): number {
  return db.get<{ seq: number }>('SELECT seq FROM journal_horizon WHERE chat_id = ?', [chatId])?.seq ?? 0;
}

export function setJournalHorizon(db: Db, chatId: string, seq: number): void {
  db.run('INSERT INTO journal_horizon (chat_id, seq) VALUES (?, ?) ON CONFLICT (chat_id) DO UPDATE SET seq = excluded.seq', [chatId, seq]);
}

/**
 * How many of a chat's latest events the journal covers: a few hundred turns back, far more than
 * a player steers, while a year-long story's journal stays a fixed size. Steering further back than
 * that replays the chat once (seconds for 10,000 turns), which also refills its journal.
 */
export const JOURNAL_KEPT_EVENTS = 2_000;

/**
 * The seq of the chat's `keep`-th latest event (undefined: it has fewer), where its journal may
 * start. Read from the log's rows, whose index by chat holds every seq: through the view `events`
 * SQLite fetched each of the chat's rows, at every start.
 */
export const journalEdge = (db: Db, chatId: string, keep: number): number | undefined =>
  db.get<{ seq: number }>('SELECT seq FROM event_rows WHERE chat = (SELECT ref FROM chat_refs WHERE id = ?) ORDER BY seq DESC LIMIT 1 OFFSET ?', [chatId, keep - 1])?.seq;

/** Drops each chat's journal older than its latest `keep` events, and moves its horizon there. */
export function pruneJournal(db: Db, keep: number = JOURNAL_KEPT_EVENTS): number {
  return db.transaction(() => {
    const edges: [number, number][] = [];
    for (const { chat_id, ref } of db.all<{ chat_id: string; ref: number | null }>('SELECT c.id AS chat_id, r.ref FROM chats c LEFT JOIN chat_refs r ON r.id = c.id')) {
      const edge = journalEdge(db, chat_id, keep);
      if (ref === null || edge === undefined || edge <= journalHorizon(db, chat_id)) continue;
      edges.push([ref, edge]);
      setJournalHorizon(db, chat_id, edge);
    }
    if (edges.length === 0) return 0;
    // One pass over the journal's older part (it is indexed by seq, not by chat), each record
    // against its own chat's edge.
    return db.run(
      `DELETE FROM projection_journal WHERE seq < ?2
         AND seq < (SELECT e.value ->> 1 FROM json_each(?1) e WHERE e.value ->> 0 = projection_journal.chat)`,
      [JSON.stringify(edges), Math.max(...edges.map(([, edge]) => edge))],
    );
  });
}

/** The journal's triggers as they must read for the tables as they are now, by name. */
function journalTriggers(db: Db): Map<string, string> {
  const wanted = new Map<string, string>();
  for (const { table, chatColumn, columns, key } of chatTables(db)) {
    const asText = (row: 'NEW' | 'OLD', c: string) => columnAsText(table, c, `${row}.${c}`);
    const old = `json_object(${columns.map((c) => `'${c}', ${asText('OLD', c)}`).join(', ')})`;
    // An update records only the columns it changed: marking a reply analysed journaled its whole
    // row, the reply's text with it, and the journal was a tenth of what a Send wrote.
    const changed = `(SELECT json_group_object(c, v) FROM (${columns.map((c) => `SELECT '${c}' AS c, ${asText('OLD', c)} AS v WHERE OLD.${c} IS NOT NEW.${c}`).join(' UNION ALL ')}))`;
    const keyOf = (row: 'NEW' | 'OLD') => `json_object(${key.map((c) => `'${c}', ${asText(row, c)}`).join(', ')})`;
    // A chat's last_seq moves with every event: recording the whole chats row each time was a
    // quarter of a rebuild. It is not journaled; replaying a chat's tail sets it afresh (`settleLastSeq`).
    const watched = (op: string) => (op === 'update' && table === 'chats' ? `UPDATE OF ${columns.filter((c) => c !== 'last_seq').join(', ')}` : op.toUpperCase());
    const record = (op: string, row: 'NEW' | 'OLD', prior: string) =>
      wanted.set(
        `journal_${table}_${op}`,
        `CREATE TRIGGER journal_${table}_${op} AFTER ${watched(op)} ON ${table} ` +
          `WHEN journal_seq() IS NOT NULL ` +
          `BEGIN INSERT INTO projection_journal (seq, chat, tbl, key, op, old) ` +
          `VALUES (journal_seq(), ${chatRefOf(table, `${row}.${chatColumn}`)}, '${table}', ${keyOf(row)}, '${op}', ${prior}); END`,
      );
    record('insert', 'NEW', 'NULL');
    record('update', 'OLD', changed);
    record('delete', 'OLD', old);
  }
  return wanted;
}

/**
 * Makes the journal's triggers (part of the schema since migration 0023) match the chat tables'
 * columns: run when the database opens. Nothing is written when all is as it
 * should be; a table given a column by a later migration gets its triggers rewritten here, so its
 * undo never loses that column.
 */
export function ensureJournal(db: Db): void {
  const wanted = journalTriggers(db);
  const have = new Map(
    db.all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'journal\\_%' ESCAPE '\\'").map((t) => [t.name, t.sql]),
  );
  const stale = [...have.keys()].filter((name) => have.get(name) !== wanted.get(name));
  const missing = [...wanted.keys()].filter((name) => have.get(name) !== wanted.get(name));
  if (stale.length === 0 && missing.length === 0) return;
  db.transaction(() => {
    for (const name of stale) db.exec(`DROP TRIGGER ${name}`);
    for (const name of missing) db.exec(wanted.get(name)!);
  });
}

/**
 * For a replay of many events in one transaction: records what follows under `seq` (null: records
 * nothing), setting the switch only when it changes, so consecutive journaled events cost one
 * statement each instead of two. The caller sets null at the end; the transaction's end, either
 * way, turns it off.
 */
export function journalingSwitch(db: Db): (seq: number | null) => void {
  let current: number | null = null;
  switchJournal(db, null);
  return (seq) => {
    if (seq === current) return;
    switchJournal(db, seq);
    current = seq;
  };
}

/**
 * The switch the journal's triggers read (`journal_seq()`): a value of the connection
 * (`db/sqlite-db.ts`), so turning it on and off writes nothing to disk.
 */
const switchJournal = (db: Db, seq: number | null) => void db.get('SELECT set_journal_seq(?) AS x', [seq]);

/** Runs `apply` with its writes to chat rows recorded under `seq`. */
export function journaled(db: Db, seq: number, apply: () => void): void {
  switchJournal(db, seq);
  try {
    apply();
  } finally {
    switchJournal(db, null);
  }
}

/**
 * Puts the chat's rows back as they were before the event at `fromSeq`, undoing its journal
 * backwards. The journal must reach back there (`journalHorizon`).
 */
export function unproject(db: Db, chatId: string, fromSeq: number): void {
  if (fromSeq < journalHorizon(db, chatId)) throw new Error(`the journal of chat ${chatId} does not reach back to seq ${fromSeq}`);
  const byTable = new Map(chatTables(db).map((s) => [s.table, s]));
  const records = db.all<{ tbl: string; key: string; op: string; old: string | null }>(
    // The tail by seq, then sorted: scanning the whole journal backwards by id would spare the sort.
    `SELECT tbl, key, op, old FROM projection_journal INDEXED BY projection_journal_by_seq WHERE chat = ${chatRef('?')} AND seq >= ? ORDER BY id DESC`,
    [chatId, fromSeq],
  );
  for (const r of records) {
    const shape = byTable.get(r.tbl);
    if (!shape) continue;
    const values = shape.columns.map((c) => columnFromText(r.tbl, c, `json_extract(?1, '$."${c}"')`));
    const where = shape.key.map((c) => `${c} = ${columnFromText(r.tbl, c, `json_extract(?2, '$."${c}"')`)}`).join(' AND ');
    // An update's record holds the columns it changed (all of them, in a journal written before that).
    const restored = shape.columns.map((c, i) => `${c} = CASE WHEN json_type(?1, '$."${c}"') IS NULL THEN ${c} ELSE ${values[i]} END`);
    if (r.op === 'insert') db.run(`DELETE FROM ${r.tbl} WHERE ${where}`, [null, r.key]);
    else if (r.op === 'update') db.run(`UPDATE ${r.tbl} SET ${restored.join(', ')} WHERE ${where}`, [r.old, r.key]);
    else db.run(`INSERT INTO ${r.tbl} (${shape.columns.join(', ')}) VALUES (${values.join(', ')})`, [r.old]);
  }
  db.run(`DELETE FROM projection_journal WHERE chat = ${chatRef('?')} AND seq >= ?`, [chatId, fromSeq]);
}
