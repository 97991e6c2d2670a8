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
