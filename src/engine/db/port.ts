/**
 * The storage port. The engine reaches SQLite only through this interface, so the same engine runs
 * on OPFS inside the worker and in memory under vitest, against the same sqlite-wasm build.
 *
 * Contract: calls are synchronous; `transaction` runs `fn` atomically (nested calls become
 * savepoints) and rolls everything back if `fn` throws. `fn` must not await: SQLite's transaction
 * would otherwise stay open across unrelated work.
 */
export type SqlParam = string | number | bigint | boolean | null | Uint8Array;
export type SqlParams = readonly SqlParam[] | Readonly<Record<string, SqlParam>>;
export type Row = Record<string, string | number | bigint | null | Uint8Array>;

export interface Db {
  /** Runs one statement and returns how many rows it changed. */
  run(sql: string, params?: SqlParams): number;
  /** Runs one INSERT and returns the rowid of the row it added (cheaper than `RETURNING`, which SQLite stages in a temporary table). */
  insert(sql: string, params?: SqlParams): number;
  /** First row of one statement, or undefined. */
  get<T extends object = Row>(sql: string, params?: SqlParams): T | undefined;
  /** Every row of one statement. */
  all<T extends object = Row>(sql: string, params?: SqlParams): T[];
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): void;
  transaction<T>(fn: () => T): T;
  /**
   * Calls `callback` every `every` virtual-machine steps of a statement (SQLite's progress
   * handler; the count starts again with each statement), or stops calling when it is null: how
   * far a long migration has come.
   */
  onSteps(every: number, callback: (() => void) | null): void;
  readonly inTransaction: boolean;
  close(): void;
}
