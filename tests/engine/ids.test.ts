import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createEngine } from '../support/engine.ts';
import { createIdClock, idSql, readClock } from '../../src/engine/ids.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const bytes = (n: number) => new Uint8Array(randomBytes(n));

describe('ids from the hybrid logical clock', () => {
  it('are UUIDv7 carrying the wall clock, strictly increasing within one millisecond', () => {
    const t = Date.UTC(2026, 10, 23, 12);
    const clock = createIdClock(() => t, bytes);
    const ids = Array.from({ length: 5000 }, () => clock.next());
    for (const id of ids.slice(0, 10)) expect(id).toMatch(UUID_V7);
    expect(parseInt(ids[0]!.replaceAll('-', '').slice(0, 12), 16)).toBe(t);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draw their random tails from a pool, four fresh bytes for each id', () => {
    let calls = 0;
    const counting = (n: number) => {
      calls++;
      return bytes(n);
    };
    const clock = createIdClock(() => Date.UTC(2026, 10, 23, 12), counting);
    const tails = Array.from({ length: 2_000 }, () => clock.next().slice(-8));
    expect(calls).toBe(2);
    // 2,000 draws of 32 random bits: a repeat would mean bytes were used twice.
    expect(new Set(tails).size).toBe(tails.length);
  });

  it('never go behind an id already made, when the wall clock jumps back', () => {
    let t = Date.UTC(2026, 10, 23, 12);
    const clock = createIdClock(() => t, bytes);
    const before = clock.next();
    t -= 3_600_000; // the user's clock was corrected by an hour
    const after = [clock.next(), clock.next()];
    expect(before < after[0]! && after[0]! < after[1]!).toBe(true);
  });

  it('never go behind an id seen from elsewhere, and v4 ids (older builds) move nothing', () => {
    const clock = createIdClock(() => Date.UTC(2026, 0, 1), bytes);
    const fromTheFuture = createIdClock(() => Date.UTC(2027, 0, 1), bytes).next();
    clock.observe('f47ac10b-58cc-4372-a567-0e02b2c3d479');
    clock.observe('not an id');
    expect(clock.next() < fromTheFuture).toBe(true);
    clock.observe(fromTheFuture);
    expect(clock.next() > fromTheFuture).toBe(true);
  });

  it('of a reopened database continue after its newest event, even with the wall clock behind it', async () => {
    let t = Date.UTC(2026, 10, 23, 12);
    const { engine, db } = await openTestEngine({ now: () => t });
    engine.append([draft.you()]);
    const newest = db.get<{ id: string }>('SELECT max(id) AS id FROM events')!.id;
    t -= 86_400_000;
    const reopened = createEngine({ db, now: () => t, randomBytes: bytes });
    const [event] = reopened.append([draft.you({ name: 'Bea' })]);
    expect(event!.id > newest).toBe(true);
    expect(event!.deviceId).toBe(reopened.identify().dbId);
  });

  it('minted in SQL from a reserved block are what the clock would have made one by one, and the clock goes on after them', async () => {
    const { db } = await openTestEngine();
    const t = Date.UTC(2026, 10, 23, 12);
    const oneByOne = createIdClock(() => t, bytes);
    const reserving = createIdClock(() => t, bytes);
    oneByOne.next();
    reserving.next();
    const expected = Array.from({ length: 300 }, () => oneByOne.next());
    const block = reserving.reserve(300);
    const minted = db
      .all<{ id: string }>(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 299) SELECT ${idSql(block, 'i', 0xdeadbeef)} AS id FROM n`)
      .map((r) => r.id);
    for (const id of minted.slice(0, 5)) expect(id).toMatch(UUID_V7);
    // Everything but the random tail is the clock's own layout.
    expect(minted.map((id) => id.slice(0, 28))).toEqual(expected.map((id) => id.slice(0, 28)));
    expect([...minted].sort()).toEqual(minted);
    expect(new Set(minted.map((id) => id.slice(28))).size).toBe(300);
    // The same offset always names the same id (a copy finds its cause's id by computing it again).
    expect(db.get<{ id: string }>(`SELECT ${idSql(block, '7', 0xdeadbeef)} AS id`)!.id).toBe(minted[7]);
    expect(reserving.next() > minted.at(-1)!).toBe(true);
  });

  it('reserved where the millisecond has too little counter left move to the next one', () => {
    const t = Date.UTC(2026, 10, 23, 12);
    const clock = createIdClock(() => t, bytes);
    clock.observe(`${t.toString(16).padStart(12, '0').replace(/^(.{8})(.{4})$/, '$1-$2')}-7fff-bfff-fffb00000000`);
    const block = clock.reserve(10);
    expect(block).toEqual({ ms: t + 1, counter: 0 });
    expect(readClock(clock.next())).toEqual({ ms: t + 1, counter: 10 });
  });
});
