import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import { openMemoryDb } from '../support/sqlite.ts';

let db: Db;
const values = () => db.all<{ v: number }>('SELECT v FROM t ORDER BY v').map((r) => r.v);

beforeEach(async () => {
  db = await openMemoryDb();
  db.exec('CREATE TABLE t (v INTEGER UNIQUE)');
});

describe('the sqlite-wasm Db adapter', () => {
  it('runs, gets and lists with positional and named parameters', () => {
    expect(db.run('INSERT INTO t (v) VALUES (?), (?)', [1, 2])).toBe(2);
    expect(db.get<{ v: number }>('SELECT v FROM t WHERE v = :v', { ':v': 2 })).toEqual({ v: 2 });
    expect(db.get('SELECT v FROM t WHERE v = 99')).toBeUndefined();
    expect(values()).toEqual([1, 2]);
  });

  it('commits a transaction and rolls it back whole when the function throws', () => {
    db.transaction(() => db.run('INSERT INTO t (v) VALUES (1)'));
    expect(() =>
      db.transaction(() => {
        db.run('INSERT INTO t (v) VALUES (2)');
        db.run('INSERT INTO t (v) VALUES (1)'); // unique violation
      }),
    ).toThrow(/UNIQUE/);
    expect(values()).toEqual([1]);
    expect(db.inTransaction).toBe(false);
  });

  it('nests as savepoints: an inner failure caught by the caller undoes only the inner part', () => {
    db.transaction(() => {
      db.run('INSERT INTO t (v) VALUES (1)');
      expect(() =>
        db.transaction(() => {
          db.run('INSERT INTO t (v) VALUES (2)');
          throw new Error('inner');
        }),
      ).toThrow('inner');
      db.run('INSERT INTO t (v) VALUES (3)');
    });
    expect(values()).toEqual([1, 3]);
  });

  it('leaves a reused statement usable after an error in it', () => {
    db.run('INSERT INTO t (v) VALUES (?)', [1]);
    expect(() => db.run('INSERT INTO t (v) VALUES (?)', [1])).toThrow(/UNIQUE/);
    db.run('INSERT INTO t (v) VALUES (?)', [2]);
    expect(values()).toEqual([1, 2]);
  });

  it('a commit that fails reports its own error, ends the transaction undone, and the next one works', () => {
    // A deferred foreign key is checked at COMMIT, which is where storage-full failures happen too.
    db.exec('PRAGMA foreign_keys = ON; CREATE TABLE parent (id INTEGER PRIMARY KEY); CREATE TABLE child (p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)');
    expect(() =>
      db.transaction(() => {
        db.run('INSERT INTO t (v) VALUES (1)');
        db.run('INSERT INTO child (p) VALUES (42)');
      }),
    ).toThrow(/FOREIGN KEY constraint failed/);
    expect(db.inTransaction).toBe(false);
    expect(values()).toEqual([]);
    db.transaction(() => db.run('INSERT INTO t (v) VALUES (2)'));
    db.transaction(() => db.transaction(() => db.run('INSERT INTO t (v) VALUES (3)')));
    expect(values()).toEqual([2, 3]);
  });
});
