import type { Database, Sqlite3Static } from '@sqlite.org/sqlite-wasm';

const patched = new Set<number>();

/**
 * Tells SQLite that a write to an OPFS file leaves the bytes around it as they were (SQLite's
 * "powersafe overwrite", its default for the files of every desktop VFS). The pool's VFS does not
 * say so, and without it each commit pads the WAL to a 4 KiB boundary with copies of its last
 * frame: one more page on disk for every commit of a Send, a tenth of what a Send wrote.
 *
 * The flag belongs to the VFS's file methods, which every file of the pool shares, and is reachable
 * only through an open file. The pager reads it once, as it opens the database: without it, it takes
 * the VFS's 4 KiB sector for the unit of a write and writes every page of that sector whenever it
 * changes one of them (four 1 KiB pages for one). So a database is opened, the methods patched,
 * and the database closed and opened again (`openTrustingOverwrites`).
 *
 * Returns whether it patched them now (the database open at the time read the flag without it).
 */
export function trustOverwrites(sqlite: Sqlite3Static, database: Database): boolean {
  const { capi, wasm } = sqlite;
  const mark = wasm.pstack.pointer;
  let methods = 0;
  try {
    const out = wasm.pstack.allocPtr();
    if (capi.sqlite3_file_control(database.pointer!, 'main', capi.SQLITE_FCNTL_FILE_POINTER, out) === 0) {
      const file = wasm.peekPtr(out);
      if (file) methods = wasm.peekPtr(file);
    }
  } finally {
    wasm.pstack.restore(mark);
  }
  if (!methods || patched.has(methods)) return false;
  const io = new capi.sqlite3_io_methods(methods);
  io.installMethod('xDeviceCharacteristics', () => capi.SQLITE_IOCAP_UNDELETABLE_WHEN_OPEN | capi.SQLITE_IOCAP_POWERSAFE_OVERWRITE);
  patched.add(methods);
  return true;
}

/** Opens a database whose pager has read the flag: the first open in a worker is made twice. */
export function openTrustingOverwrites(sqlite: Sqlite3Static, open: () => Database): Database {
  const database = open();
  if (!trustOverwrites(sqlite, database)) return database;
  database.close();
  return open();
}
