import type { Db } from '../db/port.ts';
import { chatKeyOf, definitionOf, EVENT_DEFINITIONS } from '../events/registry.ts';
import { chatRef, EVENT_COLUMNS, fromRow, type EventRow } from './row.ts';
import { idSql, type IdBlock } from '../ids.ts';
import { chatTables, journalHorizon, setJournalHorizon, unproject } from './journal.ts';
import { rebuildChat, replayChat } from './rebuild.ts';
import { VISIBLE } from './visibility.ts';

/** Marker kinds whose whole effect is on visibility: a copy takes what they left shown, not them. */
export const SKIPPED_IN_COPY = ['chat_rewound', 'rewind_undone', 'reply_version_chosen', 'manual_edit_undone'];
/**
 * Marker kinds that also project: copied without their reference to another event (the copy holds
 * one version of each reply, already chosen, with its analysis in force).
 */
export const STRIPPED_IN_COPY: Record<string, string[]> = {
  assistant_turn_started: ['regenerateOf'],
  turn_edited: ['analysisOf'],
  reply_continued: ['analysisOf'],
};

/**
 * Marker kinds copied with their reference translated to the copy of the event they name: an
 * "Undo this change" stays undone in the branch, even one made after the branch's turn (the copy
 * takes the story as it is shown now, like the edits undone since). One whose event was not copied
 * is left out.
 */
export const TRANSLATED_IN_COPY: Record<string, string> = { change_undone: 'event' };

export interface ChatCopy {
  from: string;
  to: string;
  /** The first event not copied; everything visible in `from` before it is. */
  before: { id: string; seq: number } | null;
  /** Ids for the copies: a block of `count` from the clock, and a random 32-bit tail to spread over them. */
  ids: (count: number) => { block: IdBlock; tail: number };
  deviceId: string;
  /** Marks the first copied event as the command's (its re-send finds it). */
  commandId: string | null;
  /** How many of the latest copies get the original's journal (what a swipe or rewind soon after needs). */
  journalTail: number;
}

/**
 * Writes a chat's visible story before an event again under another chat, and gives the new chat
 * the projected rows that story produces, in a handful of SQL statements whatever its length. The
 * copies are ordinary events (new ids in the same order, the same payloads: a branch's turns,
 * memories, scenes and places keep their ids, which are keyed within their chat), so any later
 * rebuild replays them like any other; only this first projection takes a shortcut: the original's
 * rows as they stood at `before` (its journal undone back to there, then redone) are copied with
 * their chat and the seqs of the events that wrote them translated. The property and branch tests
 * hold the shortcut equal to a replay. The new chat's journal starts after the copies: a rewind
 * into the copied stretch replays that chat once (`journal_horizon`).
 */
export function copyChat(db: Db, copy: ChatCopy): number {
  db.exec('CREATE TEMP TABLE IF NOT EXISTS chat_copy (n INTEGER PRIMARY KEY, old_seq INTEGER UNIQUE, old_id TEXT UNIQUE)');
  db.run('DELETE FROM temp.chat_copy');
  const count = db.run(
    `INSERT INTO temp.chat_copy (old_seq, old_id)
     SELECT seq, id FROM events e
     WHERE chat_id = ?1 AND ${VISIBLE('e')} AND kind NOT IN (SELECT value FROM json_each(?3))
       AND (kind NOT IN (${translatedKinds}) AND id < ?2 OR kind IN (${translatedKinds}) AND EXISTS (
         SELECT 1 FROM events t WHERE t.chat_id = e.chat_id AND t.event_key = id_key(${translatedRef('e')}) AND t.id < ?2 AND ${VISIBLE('t')}))
     ORDER BY seq`,
    [copy.from, copy.before?.id ?? '~', JSON.stringify(SKIPPED_IN_COPY)],
  );
  if (count === 0) throw new Error(`chat ${copy.from} has nothing visible to copy`);
  const head = db.get<{ seq: number }>('SELECT max(seq) AS seq FROM event_rows')!.seq;
  // The copies take seqs head+1.. and ids from a reserved block, both in the original's id order
  // (its seq order, which the index by chat holds).
  const ids = copy.ids(count);
  const stripped = Object.entries(STRIPPED_IN_COPY).map(([kind, fields]) => `WHEN '${kind}' THEN json_remove(e.payload, ${fields.map((f) => `'$.${f}'`).join(', ')})`);
  const translated = Object.entries(TRANSLATED_IN_COPY).map(([kind, field]) => `WHEN '${kind}' THEN json_set(e.payload, '$.${field}', ${idSql(ids.block, 'ref.n - 1', ids.tail)})`);
  db.run(
    `INSERT INTO events (seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id)
     SELECT ?1 + c.n, ${idSql(ids.block, 'c.n - 1', ids.tail)}, ?2, e.ts, e.kind, ?3, CASE e.kind ${[...stripped, ...translated].join(' ')} ELSE e.payload END,
       CASE WHEN cause.n IS NOT NULL THEN ${idSql(ids.block, 'cause.n - 1', ids.tail)} END, CASE WHEN c.n = 1 THEN ?4 END
     FROM temp.chat_copy c JOIN events e ON e.seq = c.old_seq LEFT JOIN temp.chat_copy cause ON cause.old_id = e.cause_id
       LEFT JOIN temp.chat_copy ref ON ref.old_id = ${translatedRef('e')}
     ORDER BY c.n`,
    [head, copy.deviceId, copy.to, copy.commandId],
  );
  // The copied markers mark the copies (their rows below are copied already marked).
  // `+id`: the copies are the log's last rows, read by seq; sorted by the id index, it walked the log.
  for (const row of db.all<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events e WHERE seq > ? AND kind IN (${translatedKinds}) ORDER BY +id`, [head])) {
    definitionOf(row.kind)?.marks?.(db, fromRow(row));
  }

  const journalReaches = copy.before === null || copy.before.seq >= journalHorizon(db, copy.from);
  if (!journalReaches) {
    // The original's journal no longer reaches back there: project the copies the long way.
    rebuildChat(db, copy.to);
    return count;
  }
  if (copy.before) unproject(db, copy.from, copy.before.seq);
  copyRows(db, copy.from, copy.to, head);
  const journaledFrom = copyJournalTail(db, copy, head, count);
  if (copy.before) replayChat(db, copy.from, copy.before.seq);
  setJournalHorizon(db, copy.to, head + journaledFrom);
  return count;
}

const translatedKinds = Object.keys(TRANSLATED_IN_COPY).map((k) => `'${k}'`).join(', ');
const translatedRef = (alias: string) => `CASE ${alias}.kind ${Object.entries(TRANSLATED_IN_COPY).map(([kind, field]) => `WHEN '${kind}' THEN json_extract(${alias}.payload, '$.${field}')`).join(' ')} END`;

const isSeq = (column: string) => column === 'seq' || column.endsWith('_seq');
/** The copy's seq for an original seq; one with no copy of its own (a marker's, as `chats.last_seq` can hold) names the copy of the latest event before it. */
const seqOfCopy = (head: number, seq: string) => `${head} + (SELECT n FROM temp.chat_copy WHERE old_seq <= ${seq} ORDER BY old_seq DESC LIMIT 1)`;

/** The original's rows, under the new chat, each seq naming the copy of the event it named. */
function copyRows(db: Db, from: string, to: string, head: number): void {
  for (const { table, chatColumn, columns } of chatTables(db)) {
    const seqs = columns.filter(isSeq);
    const values = columns.map((c) => {
      if (c === chatColumn) return chatKeyOf(table, '?1');
      const i = seqs.indexOf(c);
      if (i < 0) return `r.${c}`;
      return `coalesce(${head} + m${i}.n, ${seqOfCopy(head, `r.${c}`)})`;
    });
    const joins = seqs.map((c, i) => `LEFT JOIN temp.chat_copy m${i} ON m${i}.old_seq = r.${c}`).join(' ');
    db.run(`INSERT INTO ${table} (${columns.join(', ')}) SELECT ${values.join(', ')} FROM ${table} r ${joins} WHERE r.${chatColumn} = ${chatKeyOf(table, '?2')}`, [to, from]);
  }
}

/**
 * The original's journal for its latest copied events, rewritten as the copy's (chat and seqs
 * translated in each row's key and prior values), so a swipe or a rewind soon after branching
 * undoes its tail like anywhere else. Returns the first copy (its `n`) the journal covers.
 */
function copyJournalTail(db: Db, copy: ChatCopy, head: number, count: number): number {
  const firstN = Math.max(1, count - copy.journalTail + 1);
  const first = db.get<{ old_seq: number }>('SELECT old_seq FROM temp.chat_copy WHERE n = ?', [firstN])!.old_seq;
  if (first < journalHorizon(db, copy.from)) return count + 1;
  // json_replace: an update's record names only the columns it changed, and none is added to it.
  const rewrite = (json: string, table: string, columns: readonly string[], chatColumn: string) =>
    `json_replace(${json}, '$.${chatColumn}', ${chatKeyOf(table, '?1')}${columns.filter(isSeq).map((c) => `, '$.${c}', ${seqOfCopy(head, `json_extract(${json}, '$.${c}')`)}`).join('')})`;
  const keys = chatTables(db).map(({ table, chatColumn, columns, key }) => {
    const inKey = key.filter((c) => c === chatColumn || isSeq(c));
    const keyed = inKey.length === 0 ? 'j.key' : `json_set(j.key${inKey.map((c) => `, '$.${c}', ${c === chatColumn ? chatKeyOf(table, '?1') : seqOfCopy(head, `json_extract(j.key, '$.${c}')`)}`).join('')})`;
    return { table, key: keyed, old: rewrite('j.old', table, columns, chatColumn) };
  });
  db.run(
    `INSERT INTO projection_journal (seq, chat, tbl, key, op, old)
     SELECT ${seqOfCopy(head, 'j.seq')}, ${chatRef('?1')}, j.tbl,
       CASE j.tbl ${keys.map((k) => `WHEN '${k.table}' THEN ${k.key}`).join(' ')} END,
       j.op,
       CASE WHEN j.old IS NULL THEN NULL ${keys.map((k) => `WHEN j.tbl = '${k.table}' THEN ${k.old}`).join(' ')} END
     FROM projection_journal j INDEXED BY projection_journal_by_seq
     WHERE j.chat = ${chatRef('?2')} AND j.seq >= ?3 AND j.seq < ?4
     ORDER BY j.id`,
    [copy.to, copy.from, first, copy.before?.seq ?? Number.MAX_SAFE_INTEGER],
  );
  return firstN;
}

/** Kinds with `marks`, so the branch test can hold every one to a decision above. */
export const MARKING_CHAT_KINDS = EVENT_DEFINITIONS.filter((d) => 'marks' in d && d.scope !== 'global').map((d) => d.kind);
