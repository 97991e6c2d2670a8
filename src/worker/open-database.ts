import type { Database, SAHPoolUtil, Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { loadSqlite } from './early-start.ts';
import { MigrationError } from '../engine/db/migrate.ts';
import { wrapSqlite } from '../engine/db/sqlite-db.ts';
import { openEngine, type Engine } from '../engine/engine.ts';
import { MIGRATIONS } from './migrations.ts';
import type { DatabaseState, StorageMode } from './protocol.ts';

const POOL_NAME = 'roleplay-engine';
const POOL_DIRECTORY = '/roleplay-engine';
const DB_FILE = '/roleplay-engine.sqlite3';
/** Broken databases are copied here before a fresh start, never deleted. */
export const QUARANTINE_DIRECTORY = 'roleplay-engine-quarantine';

export interface OpenDatabase {
  engine: Engine | undefined;
  storage: StorageMode;
  state: DatabaseState;
  /** Moves a broken (or unwanted) database aside, keeping a copy, and opens a new empty one. */
  startFresh(): Promise<OpenDatabase>;
  /** The database file's bytes as they stand between two transactions (SQLite's own serialization). */
  fileBytes(): Uint8Array;
  /** SQLite's WebAssembly memory (it only grows: its size is the high-water mark) and its page cache. */
  memoryUse(): MemoryUse;
  close(): void;
}

export interface MemoryUse {
  wasmHeapBytes: number;
  pageCacheLimitBytes: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** While the previous leader's worker is being torn down, its access handles are still held. */
function isHandleBusy(error: unknown): boolean {
  const text = `${(error as Error)?.name ?? ''} ${(error as Error)?.message ?? ''}`;
  return /NoModificationAllowedError|InvalidStateError|Access Handles cannot be created|createSyncAccessHandle/i.test(text);
}

async function installPool(sqlite: Sqlite3Static): Promise<SAHPoolUtil> {
  let delay = 20;
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await sqlite.installOpfsSAHPoolVfs({
        name: POOL_NAME,
        directory: POOL_DIRECTORY,
        preserveOnInitFailure: true,
        forceReinitIfPreviouslyFailed: true,
        initialCapacity: 6,
      } as Parameters<Sqlite3Static['installOpfsSAHPoolVfs']>[0]);
    } catch (error) {
      if (!isHandleBusy(error) || Date.now() > deadline) throw error;
      await sleep(delay);
      delay = Math.min(delay * 2, 500);
    }
  }
}

function sqliteCode(error: unknown): number | undefined {
  const code = (error as { resultCode?: unknown })?.resultCode;
  return typeof code === 'number' ? code & 0xff : undefined;
}

const JOURNAL_FILE_LIMIT = 4 * 1024 * 1024;
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

async function openWith(database: Database, storage: StorageMode, startFresh: () => Promise<OpenDatabase>): Promise<OpenDatabase> {
  const sqlite = await loadSqlite();
  const db = wrapSqlite(sqlite, database);
  const memoryUse = (): MemoryUse => {
    const pages = db.get<{ pages: number; size: number }>('SELECT (SELECT cache_size FROM pragma_cache_size) AS pages, (SELECT page_size FROM pragma_page_size) AS size')!;
    // A negative cache_size is a limit in KiB, a positive one in pages.
    return { wasmHeapBytes: sqlite.wasm.heap8().byteLength, pageCacheLimitBytes: pages.pages < 0 ? -pages.pages * 1024 : pages.pages * pages.size };
  };
  const base = { storage, startFresh, close: () => db.close(), fileBytes: () => sqlite.capi.sqlite3_js_db_export(database.pointer!), memoryUse };
  try {
    // The rollback journal is kept between commits, its header zeroed, instead of deleted and made
    // again each time: as safe, and one file operation less on every write. Capped so a restore's
    // big transaction does not leave a big file behind. The lock is held for as long as the
    // database is open (this worker's connection is the only one: the pool's files are its alone),
    // so SQLite trusts its page cache across transactions instead of reading the file's change
    // counter, size and lock again before every query.
    if (storage === 'opfs') db.exec(`PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = PERSIST; PRAGMA journal_size_limit = ${JOURNAL_FILE_LIMIT}`);
    const engine = await openEngine({ db, now: Date.now, randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)) }, MIGRATIONS);
    const { dbId, created } = engine.identify();
    return { ...base, engine, state: { kind: 'ready', dbId, created } };
  } catch (error) {
    const code = sqliteCode(error) ?? sqliteCode((error as { cause?: unknown })?.cause);
    const message = error instanceof Error ? error.message : String(error);
    if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB || /not a database|malformed/i.test(message)) {
      return { ...base, engine: undefined, state: { kind: 'corrupt', detail: message } };
    }
    if (error instanceof MigrationError) return { ...base, engine: undefined, state: { kind: 'failed', detail: message } };
    throw error;
  }
}

/** Copies the database file's bytes to the quarantine directory, named by time. */
async function quarantine(bytes: Uint8Array): Promise<string> {
  const root = await navigator.storage.getDirectory();
  const dir = await root.getDirectoryHandle(QUARANTINE_DIRECTORY, { create: true });
  const name = `roleplay-engine-${new Date().toISOString().replace(/[:.]/g, '-')}.sqlite3`;
  const file = await dir.getFileHandle(name, { create: true });
  const handle = await file.createSyncAccessHandle();
  try {
    handle.write(bytes, { at: 0 });
    handle.flush();
  } finally {
    handle.close();
  }
  return name;
}

/** The leader's database on OPFS. Only call this while holding the database lock. */
export async function openOpfsDatabase(): Promise<OpenDatabase> {
  const sqlite = await loadSqlite();
  const pool = await installPool(sqlite);
  const open = (): Promise<OpenDatabase> => {
    const database = new pool.OpfsSAHPoolDb(DB_FILE);
    const startFresh = async (): Promise<OpenDatabase> => {
      database.close();
      if (pool.getFileNames().includes(DB_FILE)) {
        await quarantine(pool.exportFile(DB_FILE));
        pool.unlink(DB_FILE);
      }
      return open();
    };
    return openWith(database, 'opfs', startFresh);
  };
  return open();
}

/** For browsers without OPFS or Web Locks (private windows): this tab only, gone when it closes. */
export async function openMemoryDatabase(): Promise<OpenDatabase> {
  const sqlite = await loadSqlite();
  const open = (): Promise<OpenDatabase> => {
    const database = new sqlite.oo1.DB(':memory:', 'c');
    return openWith(database, 'memory', async () => {
      database.close();
      return open();
    });
  };
  return open();
}

