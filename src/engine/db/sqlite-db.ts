import type { Database, PreparedStatement, BindingSpec, Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import type { Db, Row, SqlParam, SqlParams } from './port.ts';
import { spacedForSearch } from '../text/search-text.ts';
import { defineCompactFunctions } from './compact-functions.ts';
import { SQLITE_BLOB, SQLITE_DONE, SQLITE_FLOAT, SQLITE_INTEGER, SQLITE_ROW, SQLITE_STATIC, SQLITE_TEXT } from './sqlite-codes.ts';

/** The C functions this adapter calls directly; pointers are plain numbers in this (32-bit) build. */
interface RawExports {
  sqlite3_bind_text(stmt: number, index: number, text: number, bytes: number, destructor: number): number;
  sqlite3_bind_blob(stmt: number, index: number, blob: number, bytes: number, destructor: number): number;
  sqlite3_bind_int(stmt: number, index: number, value: number): number;
  sqlite3_bind_int64(stmt: number, index: number, value: bigint): number;
  sqlite3_bind_double(stmt: number, index: number, value: number): number;
  sqlite3_bind_null(stmt: number, index: number): number;
  sqlite3_step(stmt: number): number;
  sqlite3_reset(stmt: number): number;
  sqlite3_bind_parameter_count(stmt: number): number;
  sqlite3_column_count(stmt: number): number;
  sqlite3_column_type(stmt: number, column: number): number;
  sqlite3_column_double(stmt: number, column: number): number;
  sqlite3_column_int64(stmt: number, column: number): bigint;
  sqlite3_column_text(stmt: number, column: number): number;
  sqlite3_column_blob(stmt: number, column: number): number;
  sqlite3_column_bytes(stmt: number, column: number): number;
  sqlite3_changes(db: number): number;
  sqlite3_last_insert_rowid(db: number): bigint;
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * The one `Db` adapter, over sqlite-wasm. It takes an already opened database, so the worker can
 * hand it an OPFS one and tests an in-memory one; the engine never knows which.
 *
 * Statements are prepared through oo1 and kept; binding, stepping and reading go straight to the C
 * functions. oo1's `bind` copies every string into a fresh allocation and its `get` crosses a
 * converting wrapper per column: for the engine's short statements of many parameters that was
 * three quarters of the time (17 µs per eight-column insert, 3 µs this way). Parameters are
 * written into one scratch buffer and bound where they lie, which is safe because every statement
 * is reset (bindings cleared) before the next one binds.
 */
export function wrapSqlite(sqlite3: Sqlite3Static, database: Database): Db {
  const c = sqlite3.wasm.exports as RawExports;
  const wasm = sqlite3.wasm;
  const dbPointer = database.pointer as number;
  const statements = new Map<string, PreparedStatement>();
  let depth = 0;
  // The full-text indexes read their text through this (migration 0038): it must exist on every
  // connection before a trigger or a search can run.
  database.createFunction({
    name: 'search_text',
    arity: 1,
    deterministic: true,
    xFunc: (_context, text) => (typeof text === 'string' ? spacedForSearch(text) : text),
  });
  defineCompactFunctions(sqlite3, dbPointer);
  // The projection journal's switch (engine/log/journal.ts): the seq whose changes the journal's
  // triggers record, or null. A value of this connection, not a row: setting it and clearing it
  // wrote a page to disk in every commit that projected an event. A transaction that ends, either
  // way, leaves it off, as the row it replaced was rolled back with its transaction.
  let journalSeq: number | null = null;
  database.createFunction({ name: 'journal_seq', arity: 0, xFunc: () => journalSeq });
  database.createFunction({
    name: 'set_journal_seq',
    arity: 1,
    xFunc: (_context, seq) => {
      journalSeq = typeof seq === 'number' ? seq : typeof seq === 'bigint' ? Number(seq) : null;
      return null;
    },
  });

  let scratch = 0;
  let scratchBytes = 0;
  /** Set while a statement's parameters lie in the scratch buffer; a nested bind copies instead. */
  let scratchHeld = false;

  function prepared(sql: string): PreparedStatement {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = database.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Throws SQLite's own error (message and `resultCode`) for a failed call. */
  function fail(rc: number): never {
    sqlite3.oo1.DB.checkRc(dbPointer, rc);
    throw new Error(`sqlite3 result code ${rc}`);
  }

  function scratchFor(bytes: number): number {
    // Never the null pointer, even for no bytes: SQLite binds an empty string there as NULL.
    if (!scratch || bytes > scratchBytes) {
      if (scratch) wasm.dealloc(scratch);
      scratchBytes = Math.max(bytes, 2 * scratchBytes, 4096);
      scratch = wasm.alloc(scratchBytes) as number;
    }
    return scratch;
  }

  /** Binds positional parameters written into the scratch buffer, which the caller holds. */
  function bindFast(pointer: number, params: readonly SqlParam[]): void {
    let bytes = 0;
    for (const value of params) {
      if (typeof value === 'string') bytes += value.length * 3;
      else if (value instanceof Uint8Array) bytes += value.byteLength;
    }
    let at = scratchFor(bytes);
    for (let i = 0; i < params.length; i++) {
      const value = params[i];
      const index = i + 1;
      let rc: number;
      if (value === null || value === undefined) rc = c.sqlite3_bind_null(pointer, index);
      else if (typeof value === 'string') {
        // Memory may have grown since the last view: take the heap afresh for each write.
        const written = utf8Encoder.encodeInto(value, wasm.heap8u().subarray(at, at + value.length * 3)).written;
        rc = c.sqlite3_bind_text(pointer, index, at, written, SQLITE_STATIC);
        at += written;
      } else if (typeof value === 'number') {
        if ((value | 0) === value) rc = c.sqlite3_bind_int(pointer, index, value);
        else if (Number.isSafeInteger(value)) rc = c.sqlite3_bind_int64(pointer, index, BigInt(value));
        else rc = c.sqlite3_bind_double(pointer, index, value);
      } else if (typeof value === 'boolean') rc = c.sqlite3_bind_int(pointer, index, value ? 1 : 0);
      else if (typeof value === 'bigint') rc = c.sqlite3_bind_int64(pointer, index, value);
      else if (value instanceof Uint8Array) {
        wasm.heap8u().set(value, at);
        rc = c.sqlite3_bind_blob(pointer, index, at, value.byteLength, SQLITE_STATIC);
        at += value.byteLength;
      } else throw new TypeError(`Cannot bind a parameter of type ${typeof value}`);
      if (rc !== 0) fail(rc);
    }
  }

  function column(pointer: number, i: number): Row[string] {
    switch (c.sqlite3_column_type(pointer, i)) {
      case SQLITE_INTEGER: {
        const value = c.sqlite3_column_double(pointer, i);
        // Beyond 2^53 a double loses digits: those come back as BigInt, as oo1 gives them.
        if (Number.isSafeInteger(value)) return value;
        const exact = c.sqlite3_column_int64(pointer, i);
        return exact >= Number.MIN_SAFE_INTEGER && exact <= Number.MAX_SAFE_INTEGER ? Number(exact) : exact;
      }
      case SQLITE_FLOAT:
        return c.sqlite3_column_double(pointer, i);
      case SQLITE_TEXT: {
        const text = c.sqlite3_column_text(pointer, i);
        const bytes = c.sqlite3_column_bytes(pointer, i);
        return bytes === 0 ? '' : utf8Decoder.decode(wasm.heap8u().subarray(text, text + bytes));
      }
      case SQLITE_BLOB: {
        const blob = c.sqlite3_column_blob(pointer, i);
        const bytes = c.sqlite3_column_bytes(pointer, i);
        return bytes === 0 ? new Uint8Array(0) : wasm.heap8u().slice(blob, blob + bytes);
      }
      default:
        return null;
    }
  }

  /** Each statement's column names, read once. */
  const columns = new WeakMap<PreparedStatement, string[]>();
  function rowOf(stmt: PreparedStatement, pointer: number): Row {
    let names = columns.get(stmt);
    // A schema change re-prepares a `SELECT *` with other columns: read them again then.
    if (!names || names.length !== c.sqlite3_column_count(pointer)) {
      names = stmt.getColumnNames();
      columns.set(stmt, names);
    }
    const row: Row = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = column(pointer, i);
    return row;
  }

  /** One step: true for a row, false when done; SQLite's error otherwise. */
  function step(pointer: number): boolean {
    const rc = c.sqlite3_step(pointer);
    if (rc === SQLITE_ROW) return true;
    if (rc === SQLITE_DONE) return false;
    return fail(rc);
  }

  function withStatement<T>(sql: string, params: SqlParams | undefined, use: (s: PreparedStatement, pointer: number) => T): T {
    const stmt = prepared(sql);
    const pointer = stmt.pointer as number;
    let holdsScratch = false;
    try {
      const positional = Array.isArray(params);
      if (positional && params.length > 0 && !scratchHeld) {
        scratchHeld = holdsScratch = true;
        bindFast(pointer, params as readonly SqlParam[]);
      } else if (params !== undefined && !(positional && params.length === 0)) stmt.bind(params as BindingSpec);
      return use(stmt, pointer);
    } finally {
      // The step's error, if any, was thrown above; reset repeats its code and is not checked.
      c.sqlite3_reset(pointer);
      // No parameter is left pointing into the scratch buffer. Each is set to NULL, not cleared
      // with sqlite3_clear_bindings: that marks a statement whose plan looked at a parameter
      // (a query through the log's view, migration 0056) as expired, and SQLite then prepared it
      // again at its next step, 8 µs a lookup of one event.
      for (let i = c.sqlite3_bind_parameter_count(pointer); i > 0; i--) c.sqlite3_bind_null(pointer, i);
      if (holdsScratch) scratchHeld = false;
    }
  }

  /**
   * BEGIN, COMMIT and savepoints run as kept statements: `exec` prepared them anew each time, a
   * tenth of a small command's transaction.
   */
  function control(sql: string): void {
    withStatement(sql, undefined, (_, pointer) => {
      while (step(pointer)) {
        // these statements yield no rows
      }
    });
  }

  /** Rolls back what a failed transaction did; one that SQLite already ended is left alone. */
  function undo(outer: boolean, savepoint: string): void {
    try {
      database.exec(outer ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
    } catch (rollbackError) {
      if (!/no transaction is active|no such savepoint/i.test(String(rollbackError))) throw rollbackError;
    }
  }

  return {
    run(sql, params) {
      return withStatement(sql, params, (_, pointer) => {
        while (step(pointer)) {
          // drain: RETURNING clauses and pragmas may yield rows
        }
        return c.sqlite3_changes(dbPointer);
      });
    },
    insert(sql, params) {
      return withStatement(sql, params, (_, pointer) => {
        while (step(pointer)) {
          // an INSERT yields no rows; drained as `run` does
        }
        return Number(c.sqlite3_last_insert_rowid(dbPointer));
      });
    },
    get<T extends object = Row>(sql: string, params?: SqlParams): T | undefined {
      return withStatement(sql, params, (stmt, pointer) => (step(pointer) ? (rowOf(stmt, pointer) as T) : undefined));
    },
    all<T extends object = Row>(sql: string, params?: SqlParams): T[] {
      return withStatement(sql, params, (stmt, pointer) => {
        const rows: T[] = [];
        while (step(pointer)) rows.push(rowOf(stmt, pointer) as T);
        return rows;
      });
    },
    exec(sql) {
      database.exec(sql);
    },
    onSteps(every, callback) {
      sqlite3.capi.sqlite3_progress_handler(
        dbPointer,
        callback ? every : 0,
        callback
          ? () => {
              callback();
              return 0;
            }
          : 0,
        0,
      );
    },
    transaction<T>(fn: () => T): T {
      const outer = depth === 0;
      const savepoint = `sp${depth}`;
      control(outer ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`);
      depth++;
      let result: T;
      try {
        result = fn();
      } catch (error) {
        depth--;
        if (outer) journalSeq = null;
        undo(outer, savepoint);
        throw error;
      }
      try {
        control(outer ? 'COMMIT' : `RELEASE ${savepoint}`);
      } catch (error) {
        // A commit can fail (storage full, a deferred constraint). SQLite may already have rolled
        // back, or may hold the transaction open; either way it ends here, undone, and the caller
        // sees why. The depth goes down exactly once, so the next transaction starts clean.
        depth--;
        if (outer) journalSeq = null;
        undo(outer, savepoint);
        throw error;
      }
      depth--;
      if (outer) journalSeq = null;
      return result;
    },
    get inTransaction() {
      return depth > 0;
    },
    close() {
      for (const stmt of statements.values()) stmt.finalize();
      statements.clear();
      if (scratch) wasm.dealloc(scratch);
      scratch = 0;
      scratchBytes = 0;
      database.close();
    },
  };
}
