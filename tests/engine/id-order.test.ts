import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/engine/db/port.ts';
import { rebuild } from '../../src/engine/log/rebuild.ts';
import { TRAVELLING_COLUMNS, withoutLogGuards } from '../../src/engine/log/row.ts';
import { canonicalProjections } from '../support/dump.ts';
import { createEngine, type Engine } from '../support/engine.ts';
import { analysedExchange, draft } from '../support/fixtures.ts';
import { openTestEngine, readMigrations, testClock } from '../support/sqlite.ts';

const exchange = (engine: Engine, chat: string, bot: string, text: string) => engine.append(analysedExchange(() => engine.newId(), chat, bot, text));

/** Events standing after an event with a greater id, in seq order. */
const outOfOrder = (db: Db) =>
  db.all<{ id: string }>('SELECT id FROM (SELECT id, max(id) OVER (ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM event_rows) WHERE id < before').map((r) => r.id);

describe('a log synced before seq order was kept to id order (0059)', () => {
  it('is noted by the migration, written again in id order as the app opens, once, and shows the story as it was', async () => {
    const clock = testClock();
    const { engine, db } = await openTestEngine({ now: clock.now });
    const bot = engine.newId();
    const chat = engine.newId();
    engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
    for (let i = 0; i < 6; i++) exchange(engine, chat, bot, `line ${i}`);
    const shown = canonicalProjections(db);
    const turns = engine.transcript(chat).turns.map((t) => t.text);

    // As a merge before 2d9840b left it: the last three exchanges arrived here before the two
    // ahead of them (another device's, pulled late), under later seqs than theirs.
    const tail = db.all<Record<string, unknown> & { seq: number }>(`SELECT seq, ${TRAVELLING_COLUMNS} FROM events ORDER BY seq DESC LIMIT 25`).reverse();
    db.transaction(() => {
      withoutLogGuards(db, () => db.run('DELETE FROM events WHERE seq >= ?', [tail[0]!.seq]));
      let seq = tail.at(-1)!.seq + 100;
      for (const e of [...tail.slice(10), ...tail.slice(0, 10)]) {
        db.run(`INSERT INTO events (seq, ${TRAVELLING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [seq++, e.id, e.device_id, e.ts, e.kind, e.chat_id, e.payload, e.cause_id, e.command_id] as (string | number | null)[]);
      }
    });
    expect(outOfOrder(db)).toHaveLength(10);

    // 0059 as it runs on that database (which keeps ids as bytes since 0065: 0059 ran on text).
    db.exec('DROP TABLE log_out_of_order');
    db.exec(readMigrations().find((m) => m.name.startsWith('0059_'))!.sql.replace('SELECT min(id) FROM', 'SELECT id_text(min(id)) FROM'));
    expect(db.all('SELECT from_id FROM log_out_of_order')).toEqual([{ from_id: tail[0]!.id }]);

    const reopened = createEngine({ db, now: clock.now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });
    expect(outOfOrder(db)).toEqual([]);
    expect(db.all('SELECT from_id FROM log_out_of_order')).toEqual([]);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')!.n).toBe(3 + 6 * 5);
    expect(canonicalProjections(db)).toEqual(shown);
    expect(reopened.transcript(chat).turns.map((t) => t.text)).toEqual(turns);
    // A replay walks the chat by seq: it comes to the same rows.
    rebuild(db);
    expect(canonicalProjections(db)).toEqual(shown);
    // The story goes on after it, and the next start finds nothing to do.
    exchange(reopened, chat, bot, 'after');
    expect(reopened.transcript(chat).turns.at(-1)!.text).toBe('Mira answers after.');
    const before = db.all('SELECT seq, id FROM events ORDER BY seq');
    createEngine({ db, now: clock.now, randomBytes: (n) => new Uint8Array(randomBytes(n)) });
    expect(db.all('SELECT seq, id FROM events ORDER BY seq')).toEqual(before);
  });
});
