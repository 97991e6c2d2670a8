import type { Db } from '../db/port.ts';
import type { MergeResult, SyncedEvent } from '../log/merge.ts';
import { EVENT_COLUMNS } from '../log/row.ts';
import { compareIds } from '../ids.ts';

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

/** "Encrypt with a passphrase" / "Change passphrase": the server's story is written anew, sealed with this one. */
export function setPendingPassphrase(db: Db, passphrase: string | null): void {
  db.run('UPDATE sync_device SET pending_passphrase = ?', [passphrase]);
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
  const heldBackCount = (): number => db.get<{ n: number }>('SELECT count(*) AS n FROM sync_held_back')!.n;
  /** Some event here sorts after the earliest of these: merging them would write it again after them. */
  const wouldMoveEventsHere = (events: readonly SyncedEvent[]): boolean => {
    const earliest = events.reduce((min, e) => (compareIds(e.id, min) < 0 ? e.id : min), events[0]!.id);
    return db.get('SELECT 1 AS x FROM event_rows WHERE id > id_key(?) LIMIT 1', [earliest]) !== undefined;
  };
  return {
    state,
    /** Whether the player paused sync on this device. */
    paused: (): boolean => db.get<{ paused: number }>('SELECT paused FROM sync_device')?.paused === 1,
    setPaused: (paused: boolean) => setSyncPaused(db, paused),
    /** The passphrase this device seals with, or null. */
    passphrase: (): string | null => db.get<{ passphrase: string | null }>('SELECT passphrase FROM sync_device')?.passphrase ?? null,
    setPassphrase: (passphrase: string | null) => setSyncPassphrase(db, passphrase),
    /** The passphrase the server's story is being sealed with anew ("Encrypt", "Change passphrase"), until that is committed. */
    pendingPassphrase: (): string | null => db.get<{ pending_passphrase: string | null }>('SELECT pending_passphrase FROM sync_device')?.pending_passphrase ?? null,
    /** The rewrite with the pending passphrase was committed: it is the passphrase now. */
    resealed(): void {
      db.run('UPDATE sync_device SET passphrase = pending_passphrase, pending_passphrase = NULL WHERE pending_passphrase IS NOT NULL');
    },
    /** How many events this log holds. */
    eventCount: (): number => db.get<{ n: number }>('SELECT count(*) AS n FROM event_rows')!.n,
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
    /**
     * Merges a pulled page and moves the pull checkpoint past it, in one transaction: never one
     * without the other. While more pages are to come (`more`), a page that would move events
     * written here since the pull began (each such merge replays their chats whole) is held back
     * instead, and so is every page after it; the pull's last page merges them all in one go.
     */
    pulled(remote: string, events: readonly SyncedEvent[], since: string, more = false): MergeResult & { heldBack: number } {
      return db.transaction(() => {
        const holding = db.get('SELECT 1 AS x FROM sync_held_back LIMIT 1') !== undefined;
        let merged: MergeResult & { heldBack: number };
        if (more && (holding || (events.length > 0 && wouldMoveEventsHere(events)))) {
          for (const event of events) db.run('INSERT INTO sync_held_back (id, event) VALUES (?, ?) ON CONFLICT (id) DO NOTHING', [event.id, JSON.stringify(event)]);
          merged = { added: 0, chats: [], everything: false, waiting: 0, heldBack: heldBackCount() };
        } else {
          const held = holding ? db.all<{ event: string }>('SELECT event FROM sync_held_back').map((r) => JSON.parse(r.event) as SyncedEvent) : [];
          if (holding) db.run('DELETE FROM sync_held_back');
          merged = { ...merge(held.length > 0 ? [...held, ...events] : events), heldBack: 0 };
        }
        // A page with none to come is the pull's end: the device has had the whole story since.
        db.run(
          `INSERT INTO sync_state (remote, pulled_since, caught_up) VALUES (?1, ?2, ?3)
           ON CONFLICT (remote) DO UPDATE SET pulled_since = ?2, caught_up = max(caught_up, ?3)`,
          [remote, since, more ? 0 : 1],
        );
        return merged;
      });
    },
    /** Which of these event ids this log already holds. */
    known(ids: readonly string[]): Set<string> {
      if (ids.length === 0) return new Set();
      return new Set(db.all<{ id: string }>('SELECT id_text(id) AS id FROM event_rows WHERE id IN (SELECT id_key(value) FROM json_each(?))', [JSON.stringify(ids)]).map((r) => r.id));
    },
    /** Whether this device has ever pulled the whole story from this server. */
    // Any generation of the server's database: one written anew does not make the device a newcomer.
    caughtUp: (remote: string): boolean => db.get('SELECT 1 AS x FROM sync_state WHERE (remote = ?1 OR substr(remote, 1, length(?1) + 2) = ?1 || \'#g\') AND caught_up = 1', [remote]) !== undefined,
    /**
     * How many events written here the server does not have yet. A generation written anew (see
     * `relay/sync-generations.ts`) holds what the one before held: what was pushed there counts.
     */
    unsynced: (remote: string): number => {
      const base = remote.replace(/#g\d+$/, '');
      const pushed = db.get<{ seq: number | null }>("SELECT max(pushed_seq) AS seq FROM sync_state WHERE remote = ?1 OR substr(remote, 1, length(?1) + 2) = ?1 || '#g'", [base])?.seq ?? 0;
      return db.get<{ n: number }>('SELECT count(*) AS n FROM event_rows WHERE seq > ?', [pushed])!.n;
    },
  };
}
