import type { Database, Sqlite3Static } from '@sqlite.org/sqlite-wasm';

const patched = new Set<number>();

/**
 * Tells SQLite that a write to an OPFS file leaves the bytes around it as they were (SQLite's
 * "powersafe overwrite", its default for the files of every desktop VFS). The pool's VFS does not
 * say so, and without it each commit pads the WAL to a 4 KiB boundary with copies of its last
 * frame: one more page on disk for every commit of a Send, a tenth of what a Send wrote.
 *
 * The flag belongs to the VFS's file methods, which every file of the pool shares; the WAL reads it
 * when it opens, at the first query, so this runs between opening the database and its first query.
 */
export function trustOverwrites(sqlite: Sqlite3Static, database: Database): void {
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
  if (!methods || patched.has(methods)) return;
  const io = new capi.sqlite3_io_methods(methods);
  io.installMethod('xDeviceCharacteristics', () => capi.SQLITE_IOCAP_UNDELETABLE_WHEN_OPEN | capi.SQLITE_IOCAP_POWERSAFE_OVERWRITE);
  patched.add(methods);
}
