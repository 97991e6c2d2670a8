import type { Db } from '../db/port.ts';
import { definitionOf, PROJECTED_TABLES } from '../events/registry.ts';
import { project } from './append.ts';
import { UnknownEventKindError } from './errors.ts';
import { EVENT_COLUMNS, fromRow, type EventRow } from './row.ts';

const BATCH = 2_000;

/**
 * Clears every projected table and replays the visible events (neither superseded nor hidden) in
 * log order. Always a legal way to reach the current state; the property test holds it equal to
 * what incremental projection produced.
 */
export function rebuild(db: Db): number {
  return db.transaction(() => {
    for (const table of PROJECTED_TABLES) db.run(`DELETE FROM ${table}`);
    let replayed = 0;
    let after = 0;
    for (;;) {
      const rows = db.all<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events
         WHERE seq > ? AND superseded_by IS NULL AND hidden_by IS NULL ORDER BY seq LIMIT ${BATCH}`,
        [after],
      );
      for (const row of rows) {
        const def = definitionOf(row.kind);
        if (!def) throw new UnknownEventKindError(row.kind);
        project(db, def, fromRow(row));
      }
      replayed += rows.length;
      const last = rows.at(-1);
      if (!last || rows.length < BATCH) return replayed;
      after = last.seq;
    }
  });
}
