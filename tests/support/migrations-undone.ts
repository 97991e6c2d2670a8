import type { Db } from '../../src/engine/db/port.ts';
import { definitionOf } from '../../src/engine/events/registry.ts';

/**
 * Puts a fully migrated database's data back in the shape it had before migration `version`, as
 * far as the migrations since then changed it, and forgets them (`meta`): migrations apply by
 * count, so a test of an older migration runs it, and every one after it, again.
 *
 * - 0067: the memories' ids as text (in the columns 0067 made, which take either).
 * - 0066: the changed values' rows with each change's value again, as JSON, from its event.
 * - 0065 needs nothing undone: run again on a log whose ids are bytes, `id_key` passes them through.
 * - 0064: the memories' rows under their chat's id, in the table they had, with its indexes and
 *   the search indexes' triggers; the journal's records of them named for it.
 * - 0063: the known facts' rows under their chat's id, their pair as text, in the table they had
 *   (its rows in the same order); the journal's records of them named for it.
 * - 0062: the changed values' rows under their chat's id, their target as text, in the table they
 *   had; the journal's records of them named for it.
 * - 0061: the transcript's ids as text (in the column 0061 made, which takes either).
 */
export function undoMigrationsSince(db: Db, version: number): void {
  if (version <= 66) {
    db.exec(`DROP VIEW value_changes;
      ALTER TABLE value_change_rows ADD COLUMN value TEXT;
      CREATE VIEW value_changes AS
        SELECT c.id AS chat_id, payload_json(r.target) AS target, r.field, r.seq, r.part, r.how, r.value, r.undone
        FROM value_change_rows r LEFT JOIN chat_refs c ON c.ref = r.chat;`);
    const rows = db.all<{ chat: number; target: string; field: string; seq: number; part: string; kind: string; payload: string }>(
      'SELECT v.chat, payload_json(v.target) AS target, v.field, v.seq, v.part, e.kind, payload_json(e.payload) AS payload FROM value_change_rows v JOIN event_rows e ON e.seq = v.seq',
    );
    for (const row of rows) {
      const change = definitionOf(row.kind)!.changes!(JSON.parse(row.payload) as never).find((c) => c.target === row.target && c.field === row.field && (c.part ?? '') === row.part)!;
      db.run('UPDATE value_change_rows SET value = ? WHERE chat = ? AND target = payload_packed(?) AND field = ? AND seq = ? AND part = ?', [
        JSON.stringify(change.value ?? null), row.chat, row.target, row.field, row.seq, row.part,
      ]);
    }
  }
  if (version <= 67) db.exec('UPDATE memory_rows SET id = id_text(id), owner_id = id_text(owner_id), scene_id = id_text(scene_id)');
  if (version <= 64) {
    const memoriesBefore = db.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'memory_rows'")!.sql
      .replace(/CREATE TABLE "?memory_rows"?/, 'CREATE TABLE memories_before').replace('chat INTEGER NOT NULL', 'chat_id TEXT NOT NULL').replace('UNIQUE (chat, id)', 'UNIQUE (chat_id, id)');
    // The triggers and indexes as 0064 made them, named for the table they had.
    const made = db.all<{ sql: string }>("SELECT sql FROM sqlite_master WHERE tbl_name = 'memory_rows' AND type IN ('index', 'trigger') AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'journal_%'").map((r) => r.sql);
    db.exec(`DROP VIEW memories_for_search;
      ${memoriesBefore};
      INSERT INTO memories_before SELECT created_seq, id, owner_id, chat_id, scene_id, summary, witness_you, witness_host, witness_guest,
        fiction_time, source, reliability, significance, pinned, auto_pinned, keywords FROM memories;
      DROP VIEW memories;
      DROP TABLE memory_rows;
      ALTER TABLE memories_before RENAME TO memories;
      ${made.map((sql) => sql.replaceAll('memory_rows', 'memories').replace(/\bchat\b(?! INTEGER)/g, 'chat_id')).join(';\n')};
      CREATE VIEW memories_for_search AS
        SELECT created_seq, search_text(summary) AS summary, search_text(keywords) AS keywords FROM memories;
      ${journalNamedFor('memory_rows', 'memories')}`);
  }
  if (version <= 63) {
    db.exec(`CREATE TABLE edge_facts_before (
        chat_id TEXT NOT NULL,
        source TEXT NOT NULL,
        target TEXT NOT NULL,
        fact_key TEXT NOT NULL,
        fact TEXT NOT NULL,
        added_seq INTEGER NOT NULL,
        PRIMARY KEY (chat_id, source, target, fact_key)
      ) STRICT;
      INSERT INTO edge_facts_before SELECT c.id, id_text(r.source), id_text(r.target), r.fact_key, r.fact, r.added_seq
        FROM edge_fact_rows r JOIN chat_refs c ON c.ref = r.chat ORDER BY r.rowid;
      DROP VIEW edge_facts;
      DROP TABLE edge_fact_rows;
      ALTER TABLE edge_facts_before RENAME TO edge_facts;
      ${journalNamedFor('edge_fact_rows', 'edge_facts')}`);
  }
  if (version <= 62) {
    db.exec(`CREATE TABLE value_changes_before (
        chat_id TEXT NOT NULL,
        target TEXT NOT NULL,
        field TEXT NOT NULL,
        seq INTEGER NOT NULL,
        part TEXT NOT NULL DEFAULT '',
        how TEXT NOT NULL,
        value TEXT,
        undone INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (chat_id, target, field, seq, part)
      ) STRICT, WITHOUT ROWID;
      INSERT INTO value_changes_before SELECT chat_id, target, field, seq, part, how, value, undone FROM value_changes;
      DROP VIEW value_changes;
      DROP TABLE value_change_rows;
      ALTER TABLE value_changes_before RENAME TO value_changes;
      ${journalNamedFor('value_change_rows', 'value_changes')}`);
  }
  if (version <= 61) db.exec('UPDATE transcript_rows SET turn_id = id_text(turn_id), speaker = id_text(speaker)');
  db.run('DELETE FROM meta WHERE version >= ?', [version]);
}

/** SQL: the journal's records of `rows` named for `table` again, their chat by its id. */
const journalNamedFor = (rows: string, table: string) => `
  UPDATE projection_journal
    SET tbl = '${table}',
        key = json_set(json_remove(key, '$.chat'), '$.chat_id', (SELECT id FROM chat_refs WHERE ref = projection_journal.chat)),
        old = CASE WHEN old IS NULL OR json_type(old, '$.chat') IS NULL THEN old
                   ELSE json_set(json_remove(old, '$.chat'), '$.chat_id', (SELECT id FROM chat_refs WHERE ref = projection_journal.chat)) END
    WHERE tbl = '${rows}';`;
