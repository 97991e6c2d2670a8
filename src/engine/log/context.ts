import type { Db } from '../db/port.ts';
import type { IdBlock } from '../ids.ts';

/** What writing to the log needs: the database, the clock and this device's id. */
export interface LogContext {
  db: Db;
  now: () => number;
  /** The next id from this database's hybrid logical clock. */
  newId: () => string;
  /** `count` consecutive ids from the same clock and a random tail, for a bulk copy to mint in SQL. */
  reserveIds: (count: number) => { block: IdBlock; tail: number };
  /** This database's id, recorded on every event it writes. */
  deviceId: () => string;
  /** How many of each chat's latest events the projection journal covers (`JOURNAL_KEPT_EVENTS`). */
  journalKeep: number;
}
