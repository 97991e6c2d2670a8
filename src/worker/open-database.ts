import type { Database, SAHPoolUtil, Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { loadSqlite } from './early-start.ts';
import { MigrationError } from '../engine/db/migrate.ts';
import { wrapSqlite } from '../engine/db/sqlite-db.ts';
import { openTrustingOverwrites } from './powersafe-overwrite.ts';
import { isStorageFailure } from './storage-failure.ts';
import { createEngine, type Engine } from '../engine/engine.ts';
import { migrate } from '../engine/db/migrate.ts';
import { rewriteDatabase, rewriteReason } from './rewrite-database.ts';
import { PAGE_BYTES, WAL_PAGES_BEFORE_COPY } from './disk-layout.ts';
import { MIGRATIONS } from './migrations.ts';
import type { DatabaseState, StorageMode } from './protocol.ts';

const POOL_NAME = 'roleplay-engine';
const POOL_DIRECTORY = '/roleplay-engine';
const DB_FILE = '/roleplay-engine.sqlite3';
const WAL_FILE = `${DB_FILE}-wal`;
const JOURNAL_FILE = `${DB_FILE}-journal`;
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
  /**
   * Copies what the WAL holds into the database and empties the WAL's file: between sessions and
   * in a long pause, the file otherwise keeps its 4 MB (the cap it is cut to after each copy).
   */
  shrinkWal(): void;
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

/**
 * The leader before this one gives its quota back only as its access handles close: a browser
 * nearly full refuses this worker's handles for that moment. Tried again this long, then said.
 */
const QUOTA_RETRY_MS = 3_000;

async function installPool(sqlite: Sqlite3Static): Promise<SAHPoolUtil> {
  let delay = 20;
  const started = Date.now();
  const deadline = started + 15_000;
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
      const refusedForQuota = isStorageFailure(error) && Date.now() - started < QUOTA_RETRY_MS;
      if (!(isHandleBusy(error) || refusedForQuota) || Date.now() > deadline) throw error;
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
/** How the database meets the disk: `disk-layout.ts` says why. */
const onDiskPragmas = (pageBytes: number) => `PRAGMA page_size = ${pageBytes}; PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA journal_size_limit = ${JOURNAL_FILE_LIMIT}; PRAGMA wal_autocheckpoint = ${WAL_PAGES_BEFORE_COPY}`;
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

export interface OpenOptions {
  /** How far the once-only rewrite of an older database has come (`rewrite-database.ts`): 0, then up to 1. */
  onRewrite?: (fraction: number) => void;
  /** Tests: make a new database with these pages, as older builds did, and leave it so. */
  pageBytes?: number;
}

async function openWith(database: Database, storage: StorageMode, startFresh: () => Promise<OpenDatabase>, options: OpenOptions = {}): Promise<OpenDatabase> {
  const sqlite = await loadSqlite();
  const db = wrapSqlite(sqlite, database);
  const memoryUse = (): MemoryUse => {
    const pages = db.get<{ pages: number; size: number }>('SELECT (SELECT cache_size FROM pragma_cache_size) AS pages, (SELECT page_size FROM pragma_page_size) AS size')!;
    // A negative cache_size is a limit in KiB, a positive one in pages.
    return { wasmHeapBytes: sqlite.wasm.heap8().byteLength, pageCacheLimitBytes: pages.pages < 0 ? -pages.pages * 1024 : pages.pages * pages.size };
  };
  const fileBytes = () => {
    const bytes = sqlite.capi.sqlite3_js_db_export(database.pointer!);
    // The copy holds every committed page (read through the WAL), so it needs no WAL of its own:
    // marked a rollback-journal database (header bytes 18-19), any SQLite opens it alone.
    if (bytes.length >= 100) bytes[18] = bytes[19] = 1;
    return bytes;
  };
  const shrinkWal = () => {
    if (storage === 'opfs' && !db.inTransaction) db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  };
  const base = { storage, startFresh, close: () => db.close(), fileBytes, memoryUse, shrinkWal };
  try {
    if (storage === 'opfs') db.exec(onDiskPragmas(options.pageBytes ?? PAGE_BYTES));
    // A migration that copies a table (0052 copies the log) shows its bar as the rewrite does.
    const applied = await migrate(db, MIGRATIONS, Date.now, options.onRewrite);
    // A database older than this build (not a new one, made by every migration at its first start).
    const migrated = applied.length > 0 && applied[0] !== 1;
    // After the migrations: the pages of the tables and indexes they dropped are free to give back.
    if (storage === 'opfs' && !options.pageBytes && rewriteReason(db, migrated)) {
      try {
        rewriteDatabase(db, options.onRewrite ?? (() => {}));
      } catch (error) {
        // No room for the copy (it needs about twice the database), or anything else: VACUUM is one
        // transaction, so the database is as it was, and opens so; the next start tries again.
        console.error('Rewriting the database failed; it opens as it was', error);
      }
    }
    const engine = createEngine({ db, now: Date.now, randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)) });
    const { dbId, created } = engine.identify();
    return { ...base, engine, state: { kind: 'ready', dbId, created } };
  } catch (error) {
    const code = sqliteCode(error) ?? sqliteCode((error as { cause?: unknown })?.cause);
    const message = error instanceof Error ? error.message : String(error);
    if (code === SQLITE_CORRUPT || code === SQLITE_NOTADB || /not a database|malformed/i.test(message)) {
      return { ...base, engine: undefined, state: { kind: 'corrupt', detail: message } };
    }
    // A migration's copy the storage had no room for: rolled back, it waits for space, not for a fresh start.
    if (error instanceof MigrationError && isStorageFailure(error.cause)) return { ...base, engine: undefined, state: { kind: 'no-room', detail: message } };
    if (error instanceof MigrationError) return { ...base, engine: undefined, state: { kind: 'failed', detail: message } };
    throw error;
  }
}

/** Copies a database's files to the quarantine directory, named by time: the database, then its WAL (`-wal`). */
async function quarantine(files: { bytes: Uint8Array; suffix: string }[]): Promise<void> {
  const root = await navigator.storage.getDirectory();
  const dir = await root.getDirectoryHandle(QUARANTINE_DIRECTORY, { create: true });
  const stem = `roleplay-engine-${new Date().toISOString().replace(/[:.]/g, '-')}.sqlite3`;
  for (const { bytes, suffix } of files) {
    const file = await dir.getFileHandle(`${stem}${suffix}`, { create: true });
    const handle = await file.createSyncAccessHandle();
    try {
      handle.write(bytes, { at: 0 });
      handle.flush();
    } finally {
      handle.close();
    }
  }
}

/** The leader's database on OPFS. Only call this while holding the database lock. */
export async function openOpfsDatabase(options: OpenOptions = {}): Promise<OpenDatabase> {
  const sqlite = await loadSqlite();
  const pool = await installPool(sqlite);
  const open = async (): Promise<OpenDatabase> => {
    const database = openTrustingOverwrites(sqlite, () => new pool.OpfsSAHPoolDb(DB_FILE));
    const startFresh = async (): Promise<OpenDatabase> => {
      database.close();
      const files = pool.getFileNames();
      if (files.includes(DB_FILE)) {
        // The WAL may hold the last commits: it goes with the database.
        await quarantine([DB_FILE, WAL_FILE].filter((file) => files.includes(file)).map((file) => ({ bytes: pool.exportFile(file), suffix: file.slice(DB_FILE.length) })));
        for (const file of [DB_FILE, WAL_FILE, JOURNAL_FILE]) if (files.includes(file)) pool.unlink(file);
      }
      return open();
    };
    const opened = await openWith(database, 'opfs', startFresh, options);
    // A database from before WAL kept its rollback journal between commits; its header zeroed, it
    // holds nothing SQLite would read again, only the disk space of the last big transaction.
    if (opened.state.kind === 'ready' && pool.getFileNames().includes(JOURNAL_FILE)) pool.unlink(JOURNAL_FILE);
    return opened;
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

