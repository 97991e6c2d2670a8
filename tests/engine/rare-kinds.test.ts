import { expect, it } from 'vitest';
import { RARE_KINDS, rareKind } from '../../src/engine/log/rare-kinds.ts';
import { definitionOf } from '../../src/engine/events/registry.ts';
import { openTestEngine } from '../support/sqlite.ts';

it("indexes by kind exactly the kinds the code says are searched so (SQLite uses a partial index only for the query that states its condition)", async () => {
  const { db } = await openTestEngine();
  const index = db.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'events_by_kind'")!.sql.replace(/\s+/g, ' ');
  expect(index.endsWith(`WHERE ${rareKind()}`)).toBe(true);
  expect(RARE_KINDS.filter((kind) => !definitionOf(kind))).toEqual([]);
  const plan = (sql: string) => db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).map((r) => r.detail).join('; ');
  expect(plan(`SELECT payload FROM events WHERE kind = 'purged' AND ${rareKind()}`)).toContain('USING INDEX events_by_kind');
  // The purge check of each deleted row, too: a purge of a long chat read the log once a row before.
  const trigger = db.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'events_are_permanent'")!.sql.replace(/\s+/g, ' ');
  expect(trigger.split(rareKind('p'))).toHaveLength(3);
});
