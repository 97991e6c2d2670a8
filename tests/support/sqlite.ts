import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import sqlite3InitModule, { type Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import type { Migration } from '../../src/engine/db/migrate.ts';
import { wrapSqlite } from '../../src/engine/db/sqlite-db.ts';
import type { Db } from '../../src/engine/db/port.ts';
import { openEngine, type Engine } from './engine.ts';

const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url);

let sqlite3: Promise<Sqlite3Static> | undefined;

/** The same sqlite-wasm build the browser runs; in Node its in-memory VFS. Quiet unless asked. */
export function loadSqlite(): Promise<Sqlite3Static> {
  const init = sqlite3InitModule as unknown as (opts: object) => Promise<Sqlite3Static>;
  sqlite3 ??= init({ print: () => {}, printErr: () => {} }).then((s) => {
    // oo1 warns on every failed step even when the caller catches the error; tests provoke many.
    (s.config as { warn: (...args: unknown[]) => void }).warn = () => {};
    return s;
  });
  return sqlite3;
}

export function readMigrations(): Migration[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((name) => name.endsWith('.sql'))
    .sort()
    .map((name) => ({ name, sql: readFileSync(new URL(name, MIGRATIONS_DIR), 'utf8') }));
}

export async function openMemoryDb(): Promise<Db> {
  const s = await loadSqlite();
  return wrapSqlite(s, new s.oo1.DB(':memory:', 'c'));
}

/** A test clock: starts at a fixed instant and moves only when told. */
export function testClock(start = Date.UTC(2026, 0, 1)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

export async function openTestEngine(options: { now?: () => number; journalKeep?: number } = {}): Promise<{ engine: Engine; db: Db }> {
  const db = await openMemoryDb();
  const engine = await openEngine(
    { db, now: options.now ?? testClock().now, randomBytes: (n) => new Uint8Array(randomBytes(n)), ...(options.journalKeep ? { journalKeep: options.journalKeep } : {}) },
    readMigrations(),
  );
  return { engine, db };
}
