import type { Db } from '../db/port.ts';
import type { BackupEvent } from './backup-event.ts';
import { BackupError } from './backup.ts';
import { rebuild } from './rebuild.ts';
import { TRAVELLING_COLUMNS as COLUMNS, withoutLogGuards } from './row.ts';

/**
 * Restoring replaces the log with a backup's: its events are first staged in a table of their own
 * (in batches, as a file streams in, so memory stays flat), then swapped in by one transaction that
 * either completes or leaves the database exactly as it was. Everything derived is rebuilt from
 * the new log; the database keeps its own identity.
 */
export function restoreStaging(db: Db) {
  return {
    begin(): void {
      db.exec(`DROP TABLE IF EXISTS restore_staging; CREATE TABLE restore_staging (
        id TEXT PRIMARY KEY, device_id TEXT NOT NULL, ts INTEGER NOT NULL, kind TEXT NOT NULL, chat_id TEXT,
        payload TEXT NOT NULL, cause_id TEXT, command_id TEXT) STRICT`);
    },
    add(events: readonly BackupEvent[]): void {
      db.transaction(() => {
        for (const e of events) {
          db.run(`INSERT INTO restore_staging (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, [
            e.id, e.device_id, e.ts, e.kind, e.chat_id, e.payload, e.cause_id, e.command_id,
          ]);
        }
      });
    },
    /** Swaps the staged events in for the log; `expected` is how many the verified backup held. */
    commit(expected: number): { events: number } {
      return db.transaction(() => {
        const staged = db.get<{ n: number }>('SELECT count(*) AS n FROM restore_staging')!.n;
        if (staged !== expected) throw new BackupError(`The restore staged ${staged} events of ${expected}; nothing was changed.`);
        // The log refuses deletes (migration 0006); a restore is the one thing that replaces it,
        // inside this transaction, with the guards put back before it ends.
        emptyTranscript(db);
        withoutLogGuards(db, () => {
          db.run('DELETE FROM events');
          db.run(`INSERT INTO events (${COLUMNS}) SELECT ${COLUMNS} FROM restore_staging ORDER BY id_key(id)`);
        });
        db.run('DELETE FROM stream_checkpoints');
        // The new log's seqs mean other events: sync offers all of it again (the server keeps what it has).
        db.run('UPDATE sync_state SET pushed_seq = 0');
        rebuild(db);
        db.run('DROP TABLE restore_staging');
        return { events: staged };
      });
    },
    abandon(): void {
      db.exec('DROP TABLE IF EXISTS restore_staging');
    },
  };
}

/**
 * Empties the transcript and its search index at once, before the log they read their words from
 * goes: deleted row by row, each indexed row told the index its words, and each event gave its row
 * its words first (migration 0053), a third of a 10,000-turn restore. The rebuild fills both again.
 */
function emptyTranscript(db: Db): void {
  db.run("INSERT INTO transcript_fts (transcript_fts) VALUES ('delete-all')");
  // A waiting row is one the index holds nothing of: its trigger tells the index nothing.
  db.run('INSERT INTO transcript_fts_pending (seq) SELECT seq FROM transcript_rows WHERE true ON CONFLICT (seq) DO NOTHING');
  db.run('DELETE FROM transcript_rows');
}
