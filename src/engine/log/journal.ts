import type { Db } from '../db/port.ts';
import { CHAT_COLUMN } from '../events/registry.ts';

/**
 * The projection journal: reversible projections for chat rows. While an event is projected, temp
 * triggers on every chat table record what changed (an insert's key, an update's or delete's whole
 * prior row, always named by primary key), under the event's seq and the row's chat. Undoing a chat's tail walks those
 * records backwards, so a swipe or a rewind near the end of a 10,000-turn story costs the tail,
 * not the story. Writes made outside a projection (clearing tables for a rebuild, the undo itself)
 * are not recorded.
 */

interface TableShape {
  table: string;
  chatColumn: string;
  columns: string[];
  /** The primary key's columns: a row is named by its key, never by its rowid (reused once freed). */
  key: string[];
}

const shapes = new WeakMap<Db, TableShape[]>();

function shapesOf(db: Db): TableShape[] {
  let known = shapes.get(db);
  if (!known) {
    known = Object.entries(CHAT_COLUMN).map(([table, chatColumn]) => {
      const info = db.all<{ name: string; pk: number }>(`SELECT name, pk FROM pragma_table_info('${table}')`);
      const key = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      if (key.length === 0) throw new Error(`Table ${table} has no primary key, so its rows cannot be journaled`);
      return { table, chatColumn: chatColumn!, columns: info.map((c) => c.name), key };
    });
    shapes.set(db, known);
  }
  return known;
}

/** Creates the journaling triggers on this connection (they are TEMP: each opened database gets its own). */
export function installJournal(db: Db): void {
  db.exec('CREATE TEMP TABLE IF NOT EXISTS journaling (seq INTEGER); DELETE FROM temp.journaling; INSERT INTO temp.journaling VALUES (NULL);');
  for (const { table, chatColumn, columns, key } of shapesOf(db)) {
    const old = `json_object(${columns.map((c) => `'${c}', OLD.${c}`).join(', ')})`;
    const keyOf = (row: 'NEW' | 'OLD') => `json_object(${key.map((c) => `'${c}', ${row}.${c}`).join(', ')})`;
    const record = (op: string, row: 'NEW' | 'OLD', prior: string) =>
      `CREATE TEMP TRIGGER IF NOT EXISTS journal_${table}_${op} AFTER ${op.toUpperCase()} ON main.${table}
       WHEN (SELECT seq FROM temp.journaling) IS NOT NULL
       BEGIN
         INSERT INTO main.projection_journal (seq, chat_id, tbl, key, op, old)
         VALUES ((SELECT seq FROM temp.journaling), ${row}.${chatColumn}, '${table}', ${keyOf(row)}, '${op}', ${prior});
       END;`;
    db.exec(record('insert', 'NEW', 'NULL') + record('update', 'OLD', old) + record('delete', 'OLD', old));
  }
}

/** Runs `apply` with its writes to chat rows recorded under `seq`. */
export function journaled(db: Db, seq: number, apply: () => void): void {
  db.run('UPDATE temp.journaling SET seq = ?', [seq]);
  try {
    apply();
  } finally {
    db.run('UPDATE temp.journaling SET seq = NULL');
  }
}

/** Puts the chat's rows back as they were before the event at `fromSeq`, undoing its journal backwards. */
export function unproject(db: Db, chatId: string, fromSeq: number): void {
  const byTable = new Map(shapesOf(db).map((s) => [s.table, s]));
  const records = db.all<{ tbl: string; key: string; op: string; old: string | null }>(
    'SELECT tbl, key, op, old FROM projection_journal WHERE chat_id = ? AND seq >= ? ORDER BY id DESC',
    [chatId, fromSeq],
  );
  for (const r of records) {
    const shape = byTable.get(r.tbl);
    if (!shape) continue;
    const values = shape.columns.map((c) => `json_extract(?1, '$."${c}"')`);
    const where = shape.key.map((c) => `${c} = json_extract(?2, '$."${c}"')`).join(' AND ');
    if (r.op === 'insert') db.run(`DELETE FROM ${r.tbl} WHERE ${where}`, [null, r.key]);
    else if (r.op === 'update') db.run(`UPDATE ${r.tbl} SET ${shape.columns.map((c, i) => `${c} = ${values[i]}`).join(', ')} WHERE ${where}`, [r.old, r.key]);
    else db.run(`INSERT INTO ${r.tbl} (${shape.columns.join(', ')}) VALUES (${values.join(', ')})`, [r.old]);
  }
  db.run('DELETE FROM projection_journal WHERE chat_id = ? AND seq >= ?', [chatId, fromSeq]);
}
