import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { loadSqlite, readMigrations } from '../support/sqlite.ts';
import { wrapSqlite } from '../../src/engine/db/sqlite-db.ts';
import { openEngine } from '../support/engine.ts';
import { draft } from '../support/fixtures.ts';
import { defaultKickoff } from '../../src/engine/kickoff/schema.ts';
import { rewriteDatabase, rewriteReason } from '../../src/worker/rewrite-database.ts';
import { PAGE_BYTES } from '../../src/worker/disk-layout.ts';

/** A story of `turns` turns on a database of its own, with the handles the rewrite takes. */
async function story(turns: number) {
  const sqlite = await loadSqlite();
  const database = new sqlite.oo1.DB(':memory:', 'c');
  database.exec(`PRAGMA page_size = ${PAGE_BYTES}`);
  const db = wrapSqlite(sqlite, database);
  const engine = await openEngine({ db, now: () => Date.UTC(2026, 0, 1), randomBytes: (n) => new Uint8Array(randomBytes(n)) }, readMigrations());
  engine.saveYou({ name: 'Ada', pronouns: '', persona: '' });
  const botId = engine.saveBot({ name: 'Mira', persona: 'A captain.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: '' }, null);
  const chatId = engine.startChat(botId, defaultKickoff({ name: 'Mira', initialRelationship: '' }, new Date(2026, 0, 1, 20)));
  for (let j = 0; j < turns; j += 2) {
    const turnId = engine.newId();
    engine.append([draft.userTurn(chatId, engine.newId(), `"Turn ${j}."`), draft.assistantStarted(chatId, turnId, botId), draft.assistantTurn(chatId, turnId, botId, 'The rain drums on the deck. '.repeat(4))]);
  }
  return { db, engine, chatId };
}

const pages = (db: Awaited<ReturnType<typeof story>>['db']) =>
  db.get<{ pages: number; free: number }>('SELECT (SELECT page_count FROM pragma_page_count) AS pages, (SELECT freelist_count FROM pragma_freelist_count) AS free')!;

describe('the once-only rewrite of an older database', () => {
  it('is worth a rewrite after a migration ran at this start, a twentieth of it free, and not before', async () => {
    const { db } = await story(400);
    // A table a fifth of the database, copied and the original dropped, as 0053 does the transcript's rows.
    db.exec('CREATE TABLE copied_later AS SELECT * FROM event_rows');
    const whole = pages(db).pages;
    db.exec('DROP TABLE copied_later');
    const { free, pages: now } = pages(db);
    expect(free * 4).toBeLessThan(now);
    expect(free * 20).toBeGreaterThanOrEqual(whole);
    expect(rewriteReason(db)).toBeNull();
    expect(rewriteReason(db, true)).toBe('migrated');
  });

  it('gives back the pages a dropped index left free, saying how far it has come, and keeps every turn', async () => {
    const { db, engine, chatId } = await story(400);
    // As this app makes a database: nothing to rewrite.
    expect(rewriteReason(db)).toBeNull();
    // What a migration dropping a table or an index leaves: its pages free, still on the disk.
    db.exec('CREATE TABLE dropped_later AS SELECT * FROM events, (SELECT 1 UNION ALL SELECT 2)');
    db.exec('DROP TABLE dropped_later');
    const before = pages(db);
    expect(before.free * 4).toBeGreaterThanOrEqual(before.pages);
    expect(rewriteReason(db)).toBe('free-pages');
    const turnsBefore = JSON.stringify(engine.transcript(chatId, { limit: 500 }));

    const said: number[] = [];
    rewriteDatabase(db, (fraction) => said.push(fraction));

    const after = pages(db);
    expect(after.free).toBe(0);
    expect(after.pages).toBeLessThan(before.pages - before.free / 2);
    expect(said[0]).toBe(0);
    expect(said.at(-1)).toBe(1);
    expect(said.length).toBeGreaterThan(2);
    expect(said).toEqual([...said].sort((a, b) => a - b));
    expect(JSON.stringify(engine.transcript(chatId, { limit: 500 }))).toBe(turnsBefore);
    expect(rewriteReason(db)).toBeNull();
    expect(rewriteReason(db, true)).toBeNull();
    // The story goes on after it.
    engine.append([draft.userTurn(chatId, engine.newId(), '"After."')]);
    expect(engine.transcript(chatId).turns.at(-1)!.text).toBe('"After."');
  });
});
