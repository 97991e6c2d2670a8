import { defineQuery, none } from '../call.ts';
import type { Db } from '../db/port.ts';

/** The seq of the newest event in the log (0: none yet). */
export const headSeq = (db: Db): number => db.get<{ seq: number | null }>('SELECT max(seq) AS seq FROM event_rows')?.seq ?? 0;

export const headCalls = {
  headSeq: defineQuery({ args: none, run: ({ db }) => headSeq(db) }),
};
