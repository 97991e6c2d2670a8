import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import { wrapSqlite } from '../../src/engine/db/sqlite-db.ts';
import { loadSqlite, openMemoryDb } from '../support/sqlite.ts';

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

  it('hands every kind of value over and back unchanged', () => {
    db.exec('CREATE TABLE v (x)');
    const long = 'ä漢🎭 '.repeat(60_000);
    const sent = ['', 'plain', 'ü漢字🎭', long, 0, -1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, 0.1, -2.5e-300, 2n ** 60n, null, new Uint8Array([0, 255, 7]), new Uint8Array(0)];
    for (const value of sent) db.run('INSERT INTO v (x) VALUES (?)', [value]);
    const back = db.all<{ x: unknown }>('SELECT x FROM v ORDER BY rowid').map((r) => r.x);
    expect(back).toEqual(sent);
    expect(typeof back[1]).toBe('string');
    // Several strings in one statement each land in their own column, an empty one as '' not NULL.
    expect(db.get('SELECT ? AS a, ? AS b, ? AS c, typeof(?) AS d', ['one', '', 'drei', ''])).toEqual({ a: 'one', b: '', c: 'drei', d: 'text' });
    expect(db.get('SELECT ? AS yes, ? AS no', [true, false])).toEqual({ yes: 1, no: 0 });
  });

  it('insert answers the rowid of the row it added, and fails like run when the row is refused', () => {
    db.exec('CREATE TABLE k (id INTEGER PRIMARY KEY, name TEXT UNIQUE)');
    expect(db.insert('INSERT INTO k (name) VALUES (?)', ['a'])).toBe(1);
    expect(db.insert('INSERT INTO k (id, name) VALUES (?, ?)', [40, 'b'])).toBe(40);
    expect(() => db.insert('INSERT INTO k (name) VALUES (?)', ['a'])).toThrow(/UNIQUE/);
    expect(db.insert('INSERT INTO k (name) VALUES (?)', ['c'])).toBe(41);
  });

  it('refuses a parameter the statement does not have, and stays usable', () => {
    expect(() => db.get('SELECT ? AS a', ['one', 'two'])).toThrow(/range/i);
    expect(db.get('SELECT ? AS a', ['one'])).toEqual({ a: 'one' });
  });

  it('leaves no parameter set after a statement: the next run without it reads NULL', () => {
    expect(db.get<{ v: unknown }>('SELECT ?1 AS v', [5])).toEqual({ v: 5 });
    expect(db.get<{ v: unknown }>('SELECT ?1 AS v')).toEqual({ v: null });
  });

  it('runs a kept query through a view again without preparing it again (the log is read through one)', async () => {
    const sqlite = await loadSqlite();
    const raw = new sqlite.oo1.DB(':memory:', 'c');
    const viewDb = wrapSqlite(sqlite, raw);
    viewDb.exec(`CREATE TABLE rows (seq INTEGER PRIMARY KEY, chat INTEGER, text TEXT);
      CREATE TABLE refs (ref INTEGER PRIMARY KEY, id TEXT UNIQUE);
      CREATE VIEW named AS SELECT r.seq, c.id AS chat_id, r.text FROM rows r LEFT JOIN refs c ON c.ref = r.chat;
      INSERT INTO refs (id) VALUES ('chat');
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO rows (chat, text) SELECT 1, 'line ' || i FROM n;`);
    for (let seq = 1000; seq < 1050; seq++) expect(viewDb.get('SELECT text FROM named WHERE seq = ?', [seq])).toEqual({ text: `line ${seq}` });
    let reprepared = 0;
    for (let stmt = sqlite.capi.sqlite3_next_stmt(raw.pointer!, 0); stmt; stmt = sqlite.capi.sqlite3_next_stmt(raw.pointer!, stmt)) {
      reprepared += sqlite.capi.sqlite3_stmt_status(stmt, sqlite.capi.SQLITE_STMTSTATUS_REPREPARE, 0);
    }
    expect(reprepared).toBe(0);
  });
});
