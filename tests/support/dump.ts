import type { Db } from '../../src/engine/db/port.ts';
import { PROJECTED_TABLES, storedTable } from '../../src/engine/events/registry.ts';
import { indexAllPendingMemories, indexAllPendingTranscript } from '../../src/engine/queries/search-index.ts';

/** Every projected table, every column, in a stable order: two equal dumps mean equal state. */
export function dumpProjections(db: Db): Record<string, unknown[]> {
  const dump: Record<string, unknown[]> = {};
  // A table read through a view (the transcript) is dumped as read and as stored: both must agree.
  for (const table of new Set(PROJECTED_TABLES.flatMap((t) => [t, storedTable(t)]))) {
    const columns = db.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`).map((c) => c.name);
    // A chat named by its number in this database's log (migration 0057) is dumped by its id: the
    // same chat has another number on another device.
    const read = columns.map((c) => (c === 'chat' ? '(SELECT id FROM chat_refs WHERE ref = chat) AS chat' : c)).join(', ');
    dump[table] = db.all(`SELECT ${read} FROM ${table} ORDER BY ${columns.map((_, i) => i + 1).join(', ')}`);
  }
  return dump;
}

/** FTS5's own check that the index matches the memories table, row for row. Throws if not. */
export function checkMemoryIndex(db: Db): void {
  indexAllPendingMemories(db);
  db.run("INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)");
}

/**
 * The same for the transcript's index: a row reads its words from the log (migration 0053), and
 * the index must have been told, at each change, the words it indexed. Throws if not.
 */
export function checkTranscriptIndex(db: Db): void {
  indexAllPendingTranscript(db);
  db.run("INSERT INTO transcript_fts (transcript_fts, rank) VALUES ('integrity-check', 1)");
}

/** A column holding an event's local seq: the same event has another seq on another device. */
const SEQ_COLUMN = /^(seq|.*_seq|superseded_by|hidden_by|undone_by)$/;

/**
 * Every projected table with each event named by its id instead of this database's local seq,
 * rows in a stable order: what two devices holding the same events must agree on.
 */
export function canonicalProjections(db: Db): Record<string, string[]> {
  const idOf = new Map(db.all<{ seq: number; id: string }>('SELECT seq, id FROM events').map((e) => [e.seq, e.id]));
  const dump: Record<string, string[]> = {};
  for (const [table, rows] of Object.entries(dumpProjections(db))) {
    dump[table] = (rows as Record<string, unknown>[])
      .map((row) => JSON.stringify(Object.entries(row).map(([column, value]) => [column, SEQ_COLUMN.test(column) && typeof value === 'number' ? (idOf.get(value) ?? `gone:${value}`) : value])))
      .sort();
  }
  return dump;
}

/**
 * What a reader would see wrong in a log's visibility, whichever devices wrote it: an event shown
 * although what caused it is not (an analysis of a version no longer shown), and a reply showing
 * more than one of its versions at once. Empty when all is well.
 */
export function visibilityProblems(db: Db): string[] {
  const problems: string[] = [];
  const shown = (alias: string) => `NOT EXISTS (SELECT 1 FROM visibility v WHERE v.seq = ${alias}.seq)`;
  for (const row of db.all<{ id: string; kind: string; cause: string }>(
    `SELECT e.id, e.kind, c.id AS cause FROM events e JOIN events c ON c.event_key = e.cause_key WHERE ${shown('e')} AND NOT ${shown('c')}`,
  )) {
    problems.push(`${row.kind} ${row.id} is shown, but its cause ${row.cause} is not`);
  }
  const started = db.all<{ id: string; of: string | null; visible: number }>(
    `SELECT e.id, json_extract(e.payload, '$.regenerateOf') AS of, ${shown('e')} AS visible FROM events e WHERE kind = 'assistant_turn_started'`,
  );
  const parent = new Map(started.map((s) => [s.id, s.of]));
  const rootOf = (id: string): string => {
    const of = parent.get(id);
    return of ? rootOf(of) : id;
  };
  const visibleVersions = new Map<string, string[]>();
  for (const s of started) if (s.visible) visibleVersions.set(rootOf(s.id), [...(visibleVersions.get(rootOf(s.id)) ?? []), s.id]);
  for (const [root, versions] of visibleVersions) if (versions.length > 1) problems.push(`the reply ${root} shows ${versions.length} versions at once`);
  return problems;
}
