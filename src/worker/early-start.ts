import sqlite3InitModule, { type Sqlite3Static } from '@sqlite.org/sqlite-wasm';

/**
 * What the database worker starts before anything asks for it, kept light: the worker's entry
 * imports only this, and loads the engine (its schemas take a tenth of a second to build) beside
 * it, so SQLite compiles and the storage check runs while the engine is still being set up.
 */

let sqlite3: Promise<Sqlite3Static> | undefined;
export function loadSqlite(): Promise<Sqlite3Static> {
  const init = sqlite3InitModule as unknown as (options: object) => Promise<Sqlite3Static>;
  sqlite3 ??= init({ print: () => {}, printErr: (...args: unknown[]) => console.debug('[sqlite]', ...args) }).then((s) => {
    // oo1 warns on every failed step even when the engine catches and reports the error itself.
    (s.config as { warn: (...args: unknown[]) => void }).warn = () => {};
    return s;
  });
  return sqlite3;
}

/**
 * Fetches and compiles SQLite now, while the tab's app is still loading: every way of opening the
 * database needs it, and the worker would otherwise wait for the app's first call to begin.
 */
export function preloadSqlite(): void {
  loadSqlite().catch(() => {
    // Opening the database reports it, with the tab's status.
    sqlite3 = undefined;
  });
}

let storageCheck: Promise<boolean> | undefined;

/** Whether this worker can keep data: OPFS sync access handles and Web Locks are both needed. */
export function persistentStorageAvailable(): Promise<boolean> {
  storageCheck ??= checkStorage();
  return storageCheck;
}

async function checkStorage(): Promise<boolean> {
  if (!('locks' in navigator) || !navigator.storage?.getDirectory) return false;
  try {
    await navigator.storage.getDirectory();
    return typeof (globalThis as { FileSystemSyncAccessHandle?: unknown }).FileSystemSyncAccessHandle === 'function';
  } catch {
    return false;
  }
}
