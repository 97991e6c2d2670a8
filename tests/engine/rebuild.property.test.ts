import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { EVENT_DEFINITIONS, PROJECTED_TABLES, storedTable } from '../../src/engine/events/registry.ts';
import type { EventDefinition } from '../../src/engine/events/define.ts';
import { checkMemoryIndex, checkTranscriptIndex, dumpProjections, visibilityProblems } from '../support/dump.ts';
import { interpret, story } from '../support/story-ops.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';

/**
 * rebuild() == rebuildChat() == incremental projection, for random valid event sequences that include regenerates
 * (superseded_by) and rewinds with undo (hidden_by), from `story-ops.ts`.
 */

async function copyLogInto(source: Db): Promise<{ engine: Engine; db: Db }> {
  const fresh = await openTestEngine();
  watchWrites(fresh.db);
  const rows = source.all('SELECT seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id FROM events ORDER BY seq');
  fresh.db.transaction(() => {
    for (const r of rows) {
      fresh.db.run(
        'INSERT INTO events (seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        Object.values(r) as never,
      );
    }
  });
  return fresh;
}

/**
 * Records which projected table each event kind's projection writes: temporary triggers on every
 * projected table note the kind whose `apply` is running. Writes outside a projection (a rebuild
 * clearing tables) are not attributed to any kind.
 */
function watchWrites(db: Db): () => { kind: string; table: string }[] {
  db.run('CREATE TEMP TABLE projecting (kind TEXT)');
  db.run('INSERT INTO temp.projecting VALUES (NULL)');
  db.run('CREATE TEMP TABLE written (kind TEXT NOT NULL, tbl TEXT NOT NULL)');
  for (const table of PROJECTED_TABLES) {
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      db.run(
        `CREATE TEMP TRIGGER watch_${table}_${op.toLowerCase()} AFTER ${op} ON main.${storedTable(table)} BEGIN
           INSERT INTO temp.written SELECT kind, '${table}' FROM temp.projecting WHERE kind IS NOT NULL;
         END`,
      );
    }
  }
  return () => db.all<{ kind: string; table: string }>('SELECT DISTINCT kind, tbl AS "table" FROM temp.written ORDER BY kind, tbl');
}

const unwatched = new Map<EventDefinition, Pick<EventDefinition, 'apply' | 'applyToChat' | 'marks'>>();
beforeAll(() => {
  for (const def of EVENT_DEFINITIONS as readonly EventDefinition[]) {
    const { apply, applyToChat, marks } = def;
    unwatched.set(def, { apply, applyToChat, marks });
    const during = (db: Db, run: () => void) => {
      db.run('UPDATE temp.projecting SET kind = ?', [def.kind]);
      try {
        run();
      } finally {
        db.run('UPDATE temp.projecting SET kind = NULL');
      }
    };
    def.apply = (db, event) => during(db, () => apply(db, event));
    if (applyToChat) def.applyToChat = (db, event, chatId) => during(db, () => applyToChat(db, event, chatId));
    if (marks) {
      def.marks = (db, event) => {
        let marked: number[] = [];
        during(db, () => (marked = marks(db, event)));
        return marked;
      };
    }
  }
});
afterAll(() => {
  for (const [def, original] of unwatched) Object.assign(def, original);
});

describe('rebuild() equals incremental projection', () => {
  it('for random valid sequences with regenerates, rewinds and undos, table by table', async () => {
    await fc.assert(
      fc.asyncProperty(story, async (ops) => {
        const clock = testClock();
        // A journal of a chat's latest 12 events: rewinds, swipes and branches reach behind it.
        const { engine, db } = await openTestEngine({ now: () => clock.advance(1_000), journalKeep: 12 });
        const written = watchWrites(db);
        interpret(engine, db, ops);
        const incremental = dumpProjections(db);
        expect(visibilityProblems(db)).toEqual([]);
        const log = db.all('SELECT * FROM events ORDER BY seq');
        checkMemoryIndex(db);
        checkTranscriptIndex(db);

        // Each chat rebuilt alone (what regenerate and rewind do) leaves every table as it was.
        for (const { id } of db.all<{ id: string }>('SELECT DISTINCT chat_id AS id FROM events WHERE chat_id IS NOT NULL')) {
          engine.rebuildChat(id);
          expect(dumpProjections(db)).toEqual(incremental);
        }
        checkMemoryIndex(db);
        checkTranscriptIndex(db);

        engine.rebuild();
        expect(dumpProjections(db)).toEqual(incremental);
        checkMemoryIndex(db);

        // Every derived table emptied by hand, visibility included: the event rows alone rebuild it all.
        for (const table of PROJECTED_TABLES) db.run(`DELETE FROM ${storedTable(table)}`);
        engine.rebuild();
        expect(dumpProjections(db)).toEqual(incremental);
        // ...and not one event row changed on the way, whatever regenerates and rewinds did.
        expect(db.all('SELECT * FROM events ORDER BY seq')).toEqual(log);

        // Every table a projection wrote is one its kind declares: change notices are built from
        // the declarations, so an undeclared write would leave some screen stale.
        const undeclared = written().filter(({ kind, table }) => !(EVENT_DEFINITIONS.find((d) => d.kind === kind)!.writes as readonly string[]).includes(table));
        expect(undeclared).toEqual([]);

        // The same log restored into a new database (what a backup restore does) rebuilds to the same state.
        const restored = await copyLogInto(db);
        restored.engine.rebuild();
        expect(dumpProjections(restored.db)).toEqual(incremental);
        checkMemoryIndex(restored.db);
        // Thousands of runs must not exhaust the wasm heap.
        restored.db.close();
        db.close();
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 150), ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : {}) },
    );
    // 150 random stories take ~30 s alone; on a loaded 2-core machine twice that.
  }, 180_000);
});
