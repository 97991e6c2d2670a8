import { describe, expect, it } from 'vitest';
import { migrate, MigrationError } from '../../src/engine/db/migrate.ts';
import { openMemoryDb, readMigrations } from '../support/sqlite.ts';

const now = () => 1_700_000_000_000;

function schemaOf(db: Awaited<ReturnType<typeof openMemoryDb>>) {
  return db.all('SELECT type, name, sql FROM sqlite_master ORDER BY name');
}

describe('migrations', () => {
  it('applies every file once, records version and checksum, and re-running is a no-op', async () => {
    const db = await openMemoryDb();
    const files = readMigrations();
    expect(await migrate(db, files, now)).toEqual(files.map((_, i) => i + 1));
    const meta = db.all<{ version: number; name: string; checksum: string }>('SELECT * FROM meta');
    expect(meta.map((m) => m.name)).toEqual(files.map((f) => f.name));
    expect(meta.every((m) => /^[0-9a-f]{64}$/.test(m.checksum))).toBe(true);
    const before = schemaOf(db);
    expect(await migrate(db, files, now)).toEqual([]);
    expect(schemaOf(db)).toEqual(before);
  });

  it('applies only the new file when one is added', async () => {
    const db = await openMemoryDb();
    const files = readMigrations();
    await migrate(db, files, now);
    const added = { name: `${String(files.length + 1).padStart(4, '0')}_add_notes.sql`, sql: 'CREATE TABLE notes (x TEXT);' };
    expect(await migrate(db, [...files, added], now)).toEqual([files.length + 1]);
    expect(db.get("SELECT name FROM sqlite_master WHERE name = 'notes'")).toBeDefined();
  });

  it('refuses an edited, already applied migration, naming the file, and changes nothing', async () => {
    const db = await openMemoryDb();
    const files = readMigrations();
    await migrate(db, files, now);
    const before = schemaOf(db);
    const edited = files.map((f, i) => (i === 0 ? { ...f, sql: `${f.sql}\n-- a quiet edit\n` } : f));
    const pending = { name: `${String(files.length + 1).padStart(4, '0')}_later.sql`, sql: 'CREATE TABLE later (x);' };
    const error = await migrate(db, [...edited, pending], now).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).file).toBe(files[0]!.name);
    expect((error as Error).message).toMatch(/was edited after it was applied/);
    expect(schemaOf(db)).toEqual(before);
  });

  it('rolls back a failing migration entirely, including earlier pending ones, naming the file', async () => {
    const db = await openMemoryDb();
    const files = readMigrations();
    await migrate(db, files, now);
    db.run("INSERT INTO events (id, device_id, ts, kind, payload) VALUES ('x', 'd', 1, 'k', '{}')");
    const before = schemaOf(db);
    const metaBefore = db.all('SELECT * FROM meta');
    const n = files.length;
    const good = { name: `${String(n + 1).padStart(4, '0')}_good.sql`, sql: 'CREATE TABLE good (x); INSERT INTO good VALUES (1);' };
    const bad = {
      name: `${String(n + 2).padStart(4, '0')}_bad.sql`,
      sql: "INSERT INTO events (id, device_id, ts, kind, payload) VALUES ('y', 'd', 2, 'k', '{}'); CREATE TABLE half (x); SELECT * FROM no_such_table;",
    };
    const error = await migrate(db, [...files, good, bad], now).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).file).toBe(bad.name);
    expect((error as Error).message).toMatch(/no_such_table/);
    expect(schemaOf(db)).toEqual(before);
    expect(db.all('SELECT * FROM meta')).toEqual(metaBefore);
    expect(db.get<{ n: number }>('SELECT count(*) AS n FROM events')?.n).toBe(1);
  });

  it('leaves a fresh database with no tables at all when the first migration fails', async () => {
    const db = await openMemoryDb();
    const error = await migrate(db, [{ name: '0001_broken.sql', sql: 'CREATE TABLE a (x); CREATE TABL b;' }], now).catch(
      (e: unknown) => e,
    );
    expect((error as MigrationError).file).toBe('0001_broken.sql');
    expect(schemaOf(db)).toEqual([]);
  });

  it('rejects badly named and out-of-sequence files before touching anything', async () => {
    const db = await openMemoryDb();
    await expect(migrate(db, [{ name: 'init.sql', sql: '' }], now)).rejects.toThrow(/must look like 0001_name.sql/);
    await expect(migrate(db, [{ name: '0002_skip.sql', sql: '' }], now)).rejects.toThrow(/out of sequence/);
    expect(schemaOf(db)).toEqual([]);
  });

  it('refuses to open a database migrated by a newer build', async () => {
    const db = await openMemoryDb();
    const files = readMigrations();
    await migrate(db, [...files, { name: `${String(files.length + 1).padStart(4, '0')}_future.sql`, sql: 'CREATE TABLE f (x);' }], now);
    await expect(migrate(db, files, now)).rejects.toThrow(/newer version of the app/);
  });
});
