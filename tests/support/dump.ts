import type { Db } from '../../src/engine/db/port.ts';
import { PROJECTED_TABLES } from '../../src/engine/events/registry.ts';
import { indexAllPendingMemories } from '../../src/engine/queries/search-index.ts';

/** Every projected table, every column, in a stable order: two equal dumps mean equal state. */
export function dumpProjections(db: Db): Record<string, unknown[]> {
  const dump: Record<string, unknown[]> = {};
  for (const table of PROJECTED_TABLES) {
    const columns = db.all<{ name: string }>(`SELECT name FROM pragma_table_info('${table}')`).map((c) => c.name);
    dump[table] = db.all(`SELECT * FROM ${table} ORDER BY ${columns.map((_, i) => i + 1).join(', ')}`);
  }
  return dump;
}

/** FTS5's own check that the index matches the memories table, row for row. Throws if not. */
export function checkMemoryIndex(db: Db): void {
  indexAllPendingMemories(db);
  db.run("INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)");
}

/** A column holding an event's local seq: the same event has another seq on another device. */
const SEQ_COLUMN = /^(seq|.*_seq|superseded_by|hidden_by)$/;

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
