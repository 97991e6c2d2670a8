/** SQLite's own numbers, as its C API returns and takes them (sqlite3.h), for the adapters that call it directly. */

export const SQLITE_ROW = 100;
export const SQLITE_DONE = 101;

/** A value's type (`sqlite3_column_type`, `sqlite3_value_type`). */
export const SQLITE_INTEGER = 1;
export const SQLITE_FLOAT = 2;
export const SQLITE_TEXT = 3;
export const SQLITE_BLOB = 4;
export const SQLITE_NULL = 5;

/** The bound bytes stay where they are until the statement is reset: SQLite need not copy them. */
export const SQLITE_STATIC = 0;
/** SQLite copies the bytes before the call returns: the caller may reuse them. */
export const SQLITE_TRANSIENT = -1;

/** A function's flags (`sqlite3_create_function_v2`). */
export const SQLITE_UTF8 = 1;
export const SQLITE_DETERMINISTIC = 0x800;
export const SQLITE_INNOCUOUS = 0x200000;
