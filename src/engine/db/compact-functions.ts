import type { Sqlite3Static } from '@sqlite.org/sqlite-wasm';
import { packInto, unpackedLength, unpackInto } from '../log/packed-payload.ts';
import { SQLITE_BLOB, SQLITE_DETERMINISTIC, SQLITE_INNOCUOUS, SQLITE_NULL, SQLITE_TEXT, SQLITE_TRANSIENT, SQLITE_UTF8 } from './sqlite-codes.ts';

interface ValueExports {
  sqlite3_value_type(value: number): number;
  sqlite3_value_blob(value: number): number;
  sqlite3_value_text(value: number): number;
  sqlite3_value_bytes(value: number): number;
  sqlite3_result_text(context: number, text: number, bytes: number, destructor: number): void;
  sqlite3_result_blob(context: number, blob: number, bytes: number, destructor: number): void;
  sqlite3_result_null(context: number): void;
}

/**
 * The SQL functions through which rows keep payloads and ids in fewer bytes than their text.
 *
 * `payload_json` and `payload_packed` (migration 0058, engine/log/packed-payload.ts): the view
 * `events` reads every payload through the first and writes through the second, and two of the
 * log's indexes are built on the first, so both must exist on every connection.
 *
 * They work on SQLite's own bytes in the wasm heap: through oo1's `createFunction` each call made
 * a JS string or array of its argument and another of its result, 4.6 µs a payload against
 * 0.7 µs for the unpacking itself, and a chat's replay reads each of its events. Results go back
 * as SQLITE_TRANSIENT, which SQLite copies before the function returns: the scratch buffer is reused.
 */
export function defineCompactFunctions(sqlite3: Sqlite3Static, dbPointer: number): void {
  const c = sqlite3.wasm.exports as unknown as ValueExports;
  const wasm = sqlite3.wasm;
  let scratch = 0;
  let scratchBytes = 0;
  const room = (bytes: number): number => {
    if (!scratch || bytes > scratchBytes) {
      if (scratch) wasm.dealloc(scratch);
      scratchBytes = Math.max(bytes, 2 * scratchBytes, 4096);
      scratch = wasm.alloc(scratchBytes) as number;
    }
    return scratch;
  };
  /** The argument's bytes where SQLite holds them (as text, or as a blob). */
  const argumentBytes = (value: number, asText: boolean): [number, number] => {
    const pointer = asText ? c.sqlite3_value_text(value) : c.sqlite3_value_blob(value);
    return [pointer, c.sqlite3_value_bytes(value)];
  };
  const passOn = (context: number, value: number, type: number): void => {
    if (type === SQLITE_NULL) return c.sqlite3_result_null(context);
    const [pointer, bytes] = argumentBytes(value, type !== SQLITE_BLOB);
    if (type === SQLITE_BLOB) c.sqlite3_result_blob(context, pointer, bytes, SQLITE_TRANSIENT);
    else c.sqlite3_result_text(context, pointer, bytes, SQLITE_TRANSIENT);
  };

  const define = (name: string, body: (context: number, value: number) => void): void => {
    const pointer = wasm.installFunction('v(pip)', (context: number, _count: number, values: number) => {
      try {
        body(context, wasm.peekPtr(values) as number);
      } catch (error) {
        sqlite3.capi.sqlite3_result_error_js(context, error as Error);
      }
    });
    const flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    sqlite3.oo1.DB.checkRc(dbPointer, sqlite3.capi.sqlite3_create_function_v2(dbPointer, name, 1, flags as 1, 0, pointer, 0, 0, 0));
  };

  define('payload_json', (context, value) => {
    const type = c.sqlite3_value_type(value);
    if (type !== SQLITE_BLOB) return passOn(context, value, type);
    const [pointer, bytes] = argumentBytes(value, false);
    const length = unpackedLength(wasm.heap8u().subarray(pointer, pointer + bytes));
    const out = room(length);
    // After the allocation: the heap may have grown, which leaves an earlier view empty.
    const heap = wasm.heap8u();
    unpackInto(heap.subarray(pointer, pointer + bytes), heap.subarray(out, out + length));
    c.sqlite3_result_text(context, out, length, SQLITE_TRANSIENT);
  });

  define('payload_packed', (context, value) => {
    const type = c.sqlite3_value_type(value);
    if (type !== SQLITE_TEXT) return passOn(context, value, type);
    const [pointer, bytes] = argumentBytes(value, true);
    const out = room(bytes);
    const heap = wasm.heap8u();
    const length = packInto(heap.subarray(pointer, pointer + bytes), heap.subarray(out, out + bytes));
    if (length < 0) c.sqlite3_result_text(context, pointer, bytes, SQLITE_TRANSIENT);
    else c.sqlite3_result_blob(context, out, length, SQLITE_TRANSIENT);
  });

  // `id_key` and `id_text` (migration 0061): an id in the log's own form (36 characters, lowercase
  // hex) kept as its 16 bytes, and read back. Anything else (a speaker's 'you', an id from a hand-
  // edited backup) passes through as it is, so the two are exact inverses on text and bytes: a column
  // kept through `id_key` is compared with `id_key(?)` and read through `id_text`.
  define('id_key', (context, value) => {
    const type = c.sqlite3_value_type(value);
    if (type !== SQLITE_TEXT) return passOn(context, value, type);
    const [pointer, bytes] = argumentBytes(value, true);
    if (bytes !== ID_TEXT_BYTES) return passOn(context, value, type);
    const out = room(ID_BYTES);
    const heap = wasm.heap8u();
    if (!idBytesInto(heap.subarray(pointer, pointer + bytes), heap.subarray(out, out + ID_BYTES))) return passOn(context, value, type);
    c.sqlite3_result_blob(context, out, ID_BYTES, SQLITE_TRANSIENT);
  });

  define('id_text', (context, value) => {
    const type = c.sqlite3_value_type(value);
    if (type !== SQLITE_BLOB) return passOn(context, value, type);
    const [pointer, bytes] = argumentBytes(value, false);
    if (bytes !== ID_BYTES) return passOn(context, value, type);
    const out = room(ID_TEXT_BYTES);
    const heap = wasm.heap8u();
    idTextInto(heap.subarray(pointer, pointer + bytes), heap.subarray(out, out + ID_TEXT_BYTES));
    c.sqlite3_result_text(context, out, ID_TEXT_BYTES, SQLITE_TRANSIENT);
  });
}

const ID_BYTES = 16;
const ID_TEXT_BYTES = 36;
/** Where the id's text has its dashes (8-4-4-4-12). */
const isDash = (i: number) => i === 8 || i === 13 || i === 18 || i === 23;
const HEX_DIGITS = new TextEncoder().encode('0123456789abcdef');
/** A lowercase hex digit's value, or -1. */
const digitValue = (byte: number) => (byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : byte >= 0x61 && byte <= 0x66 ? byte - 0x57 : -1);

/** Writes the id's 16 bytes; false (and `out` left partly written) when `text` is not an id in the log's form. */
function idBytesInto(text: Uint8Array, out: Uint8Array): boolean {
  let at = 0;
  for (let i = 0; i < ID_TEXT_BYTES; i++) {
    if (isDash(i)) {
      if (text[i] !== 0x2d) return false;
      continue;
    }
    const high = digitValue(text[i]!);
    const low = digitValue(text[++i]!);
    if (high < 0 || low < 0) return false;
    out[at++] = (high << 4) | low;
  }
  return true;
}

function idTextInto(bytes: Uint8Array, out: Uint8Array): void {
  let at = 0;
  for (let i = 0; i < ID_BYTES; i++) {
    if (isDash(at)) out[at++] = 0x2d;
    out[at++] = HEX_DIGITS[bytes[i]! >> 4]!;
    out[at++] = HEX_DIGITS[bytes[i]! & 15]!;
  }
}
