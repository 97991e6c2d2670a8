import type { Database, PreparedStatement, BindingSpec } from '@sqlite.org/sqlite-wasm';
import type { Db, Row, SqlParams } from './port.ts';

/**
 * The one `Db` adapter, over sqlite-wasm's oo1 API. It takes an already opened database, so the
 * worker can hand it an OPFS one and tests an in-memory one; the engine never knows which.
 */
export function wrapSqlite(database: Database): Db {
  const statements = new Map<string, PreparedStatement>();
  let depth = 0;

  function prepared(sql: string): PreparedStatement {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = database.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  }

  /** Each statement's column names, read once: oo1's get({}) asks for every name on every row. */
  const columns = new WeakMap<PreparedStatement, string[]>();
  function rowOf(stmt: PreparedStatement): Row {
    let names = columns.get(stmt);
    // A schema change re-prepares a `SELECT *` with other columns: read them again then.
    if (!names || names.length !== stmt.columnCount) {
      names = stmt.getColumnNames();
      columns.set(stmt, names);
    }
    const values = stmt.get([]) as unknown[];
    const row: Row = {};
    for (let i = 0; i < names.length; i++) row[names[i]!] = values[i] as Row[string];
    return row;
  }

  function withStatement<T>(sql: string, params: SqlParams | undefined, use: (s: PreparedStatement) => T): T {
    const stmt = prepared(sql);
    try {
      if (params !== undefined && (Array.isArray(params) ? params.length > 0 : true)) {
        stmt.bind(params as BindingSpec);
      }
      return use(stmt);
    } finally {
      stmt.reset(true);
    }
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
      return withStatement(sql, params, (stmt) => {
        while (stmt.step()) {
          // drain: RETURNING clauses and pragmas may yield rows
        }
        return database.changes() as number;
      });
    },
    get<T extends object = Row>(sql: string, params?: SqlParams): T | undefined {
      return withStatement(sql, params, (stmt) => (stmt.step() ? (rowOf(stmt) as T) : undefined));
    },
    all<T extends object = Row>(sql: string, params?: SqlParams): T[] {
      return withStatement(sql, params, (stmt) => {
        const rows: T[] = [];
        while (stmt.step()) rows.push(rowOf(stmt) as T);
        return rows;
      });
    },
    exec(sql) {
      database.exec(sql);
    },
    transaction<T>(fn: () => T): T {
      const outer = depth === 0;
      const savepoint = `sp${depth}`;
      database.exec(outer ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`);
      depth++;
      let result: T;
      try {
        result = fn();
      } catch (error) {
        depth--;
        undo(outer, savepoint);
        throw error;
      }
      try {
        database.exec(outer ? 'COMMIT' : `RELEASE ${savepoint}`);
      } catch (error) {
        // A commit can fail (storage full, a deferred constraint). SQLite may already have rolled
        // back, or may hold the transaction open; either way it ends here, undone, and the caller
        // sees why. The depth goes down exactly once, so the next transaction starts clean.
        depth--;
        undo(outer, savepoint);
        throw error;
      }
      depth--;
      return result;
    },
    get inTransaction() {
      return depth > 0;
    },
    close() {
      for (const stmt of statements.values()) stmt.finalize();
      statements.clear();
      database.close();
    },
  };
}
