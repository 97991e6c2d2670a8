import type { Db } from '../db/port.ts';
import type { MergeResult, SyncedEvent } from '../log/merge.ts';
import { EVENT_COLUMNS } from '../log/row.ts';

export interface SyncState {
  /** This log's events up to this local seq are on the server. */
  pushedSeq: number;
  /** The server's changes up to here are in this log (opaque; null: none yet). */
  pulledSince: string | null;
}

/** "Pause sync on this device", and its undo: a local choice, not an event. */
export function setSyncPaused(db: Db, paused: boolean): void {
  db.run('UPDATE sync_device SET paused = ?', [paused ? 1 : 0]);
}

/** The passphrase this device seals with (null: none); kept on this device only. */
export function setSyncPassphrase(db: Db, passphrase: string | null): void {
  db.run('UPDATE sync_device SET passphrase = ?', [passphrase]);
}

/**
 * The log's side of sync with one server (`remote`): where it stands, what to push next, and
 * pulled events merged together with the checkpoint that says they were pulled.
 */
export function syncLog(db: Db, merge: (events: readonly SyncedEvent[]) => MergeResult) {
  /** This log's events after local seq `afterSeq`, in seq order, as they travel to other devices. */
  const eventsAfter = (afterSeq: number, limit: number): (SyncedEvent & { seq: number })[] =>
    db.all<SyncedEvent & { seq: number }>(`SELECT ${EVENT_COLUMNS} FROM events WHERE seq > ? ORDER BY seq LIMIT ?`, [afterSeq, limit]);
  const state = (remote: string): SyncState => {
    const row = db.get<{ pushed_seq: number; pulled_since: string | null }>('SELECT pushed_seq, pulled_since FROM sync_state WHERE remote = ?', [remote]);
    return { pushedSeq: row?.pushed_seq ?? 0, pulledSince: row?.pulled_since ?? null };
  };
  return {
    state,
    /** Whether the player paused sync on this device. */
    paused: (): boolean => db.get<{ paused: number }>('SELECT paused FROM sync_device')?.paused === 1,
    setPaused: (paused: boolean) => setSyncPaused(db, paused),
    /** The passphrase this device seals with, or null. */
    passphrase: (): string | null => db.get<{ passphrase: string | null }>('SELECT passphrase FROM sync_device')?.passphrase ?? null,
    setPassphrase: (passphrase: string | null) => setSyncPassphrase(db, passphrase),
    /** The next events to push: this log's after the push checkpoint, in the order they were written here. */
    toPush: (remote: string, limit: number) => eventsAfter(state(remote).pushedSeq, limit),
    eventsAfter,
    pushed(remote: string, seq: number): void {
      db.run(
        `INSERT INTO sync_state (remote, pushed_seq) VALUES (?1, ?2)
         ON CONFLICT (remote) DO UPDATE SET pushed_seq = max(pushed_seq, ?2)`,
        [remote, seq],
      );
    },
    /** Ids of events a purge removed here, whose copies the server may still hold. */
    toRemove: (limit: number): string[] => db.all<{ id: string }>('SELECT id FROM sync_removals ORDER BY id LIMIT ?', [limit]).map((r) => r.id),
    /** The server no longer holds these (deleted now, or never had them). */
    removed(ids: readonly string[]): void {
      db.run('DELETE FROM sync_removals WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(ids)]);
    },
    /** Merges a pulled page and moves the pull checkpoint past it, in one transaction: never one without the other. */
    pulled(remote: string, events: readonly SyncedEvent[], since: string): MergeResult {
      return db.transaction(() => {
        const merged = merge(events);
        db.run(
          `INSERT INTO sync_state (remote, pulled_since) VALUES (?1, ?2)
           ON CONFLICT (remote) DO UPDATE SET pulled_since = ?2`,
          [remote, since],
        );
        return merged;
      });
    },
  };
}
