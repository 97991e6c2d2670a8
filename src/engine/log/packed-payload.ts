/**
 * An event's payload as the log's rows keep it (migration 0058): the JSON's own UTF-8 bytes, with
 * each id and each of the log's common runs of keys written in a byte or two. Every event repeats
 * them (a reply's turn id, speaker and model, the keys of a prompt report, the bot an analysis
 * names): at 10,000 turns that was most of what the log held beyond the words.
 *
 * It reads back byte for byte: sync compares payloads as text and a backup writes them as they
 * are. The marks are bytes that valid JSON never holds raw (control characters other than its
 * whitespace, which a string must escape), so reading back needs no other rule than expanding each
 * mark; a payload that holds such a byte anyway is kept as its text. SQLite reads a packed payload
 * through `payload_json` (db/sqlite-db.ts): a BLOB is packed, TEXT is the JSON itself.
 *
 * The marks and the dictionary are part of every database written since: an entry is never changed or removed,
 * and new ones only go at the end of `EXTENDED` (tests/engine/packed-payload.test.ts holds its
 * digest).
 */

/**
 * 0x00, then how far back and how many bytes, each a LEB128 number: a string's words found whole
 * earlier in the same JSON (a player's line and its parsed segments, which repeat its words).
 */
const COPY_MARK = 0x00;
/** A string shorter than this costs about as much copied as written. */
const MIN_COPY = 12;
/** How far back a string's words are looked for: the search stays short in a long payload. */
const COPY_WINDOW = 4096;
/** More than a backup allows an event (4 MB of JSON): a copy claiming more is not a packed payload. */
const MAX_UNPACKED = 16 * 1024 * 1024;
/** 0x01 and 16 bytes: an id in the log's own form (lowercase, 8-4-4-4-12 hex digits). */
const ID_MARK = 0x01;
/** 0x1F and a byte: an entry of `EXTENDED`. */
const EXTENDED_MARK = 0x1f;
/** The one-byte marks: 0x02–0x1E but for tab, line feed and carriage return, which JSON may hold between its tokens. */
const SHORT_MARKS = [0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x0b, 0x0c, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e];

/** The runs every turn writes, one byte each (in the order of `SHORT_MARKS`). */
export const SHORT: readonly string[] = [
  '{"turnId":"',
  '","speaker":"',
  '","model":"',
  '","text":"',
  '","truncated":false,"reason":',
  'null,"usage":{"promptTokens":',
  ',"completionTokens":',
  '},"error":null',
  '","segments":[{"type":"',
  'narration","text":"',
  'dialogue","text":"',
  '"},{"type":"',
  '"}]}',
  '{"source":"',
  '","target":"',
  '","affinityDelta":',
  ',"trustDelta":',
  ',"facts":[',
  '],"lastInteraction":"',
  '{"memoryId":"',
  '","ownerId":"',
  '","sceneId":"',
  '","summary":"',
  '","keywords":"',
  '","witness":{',
  ',"fictionTime":"',
];

/** Less frequent runs, two bytes each. Append only. */
export const EXTENDED: readonly string[] = [
  '","source":"witnessed","reliability":',
  ',"significance":',
  ',"pinned":false,"autoPinned":false}',
  '","ok":true,"model":"',
  '{"minutes":',
  '"you":true',
  '"you":false',
  ':true,',
  ':false,',
  ':true}',
  ':false}',
  ',"prompt":{"budget":{"soft":',
  ',"hard":',
  '},"tokens":',
  ',"parts":[{"label":"',
  '},{"label":"',
  '","tier":"must","tokens":',
  '","tier":"should","tokens":',
  '","tier":"nice","tokens":',
  ',"kept":true,"text":',
  ',"kept":false,"text":',
  'null,"textHash":"',
  '"story","tier":"',
  ',"story":{"from":"',
  '","to":"',
  '","tiers":"',
  '","tokens":[',
  '],"dropped":[',
  ']}}',
  '],"memories":[',
  '{"id":"',
  ',"pinned":true,"significance":',
  ',"pinned":false,"significance":',
  ',"score":',
  ',"relevance":',
  ',"recency":',
  ',"matched":[',
  ',"score":null,"relevance":null,"recency":null,"matched":[]}',
  ',"contextLength":',
  ',"countedWith":"',
  '","tokenizerFamily":',
  '"truncated":true',
  '"reason":null',
  '"usage":null',
  '"error":null',
  ',"thinking":{"text":"',
  '","ms":',
  ',"sentAt":',
  ',"regenerateOf":"',
  '","fictionTime":"',
  '{"sceneId":"',
  '","containerId":"',
  '","participants":[',
  '{"entity":"',
  '","slot":"',
  '","posture":"',
  '","action":{"verb":"',
  '","interruptible":',
  ',"requiredAttention":"',
  '","expectedMinutes":',
  '},"attention":"',
  '","holding":[',
  '],"status":"present"}',
  '{"hash":"',
  '{"botId":"',
  '{"chatId":"',
  '"significance":',
  '","value":',
  '","field":"',
  '{"target":"',
];

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
const entryBytes = [...SHORT, ...EXTENDED].map((entry) => utf8.encode(entry));
/** A byte's entry, for the one-byte marks (undefined for any other byte). */
const shortEntry: (Uint8Array | undefined)[] = Array.from({ length: 32 }, () => undefined);
SHORT_MARKS.forEach((mark, i) => (shortEntry[mark] = entryBytes[i]));
/** The entries by their first byte, longest first (so a longer one wins where two start alike), with their marks. */
const entriesByFirstByte: { bytes: Uint8Array; mark: number[] }[][] = Array.from({ length: 128 }, () => []);
entryBytes.forEach((bytes, i) => entriesByFirstByte[bytes[0]!]!.push({ bytes, mark: i < SHORT.length ? [SHORT_MARKS[i]!] : [EXTENDED_MARK, i - SHORT.length] }));
for (const entries of entriesByFirstByte) entries.sort((a, b) => b.bytes.length - a.bytes.length);

/** What valid JSON never holds raw, and a packed payload uses as marks. */
const isMarkByte = (byte: number) => byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d;

const HEX = '0123456789abcdef';
/** A lowercase hex digit's value, -1 for any other byte. */
const hexValue = new Int8Array(256).fill(-1);
for (let i = 0; i < 16; i++) hexValue[HEX.charCodeAt(i)] = i;
const hexDigits = utf8.encode(HEX);
/** Where each byte's two hex digits start in an id's text: the dashes stand between. */
const ID_DIGIT_PAIRS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const DASH = 0x2d;

function isId(json: Uint8Array, at: number): boolean {
  if (at + 36 > json.length || json[at + 8] !== DASH || json[at + 13] !== DASH || json[at + 18] !== DASH || json[at + 23] !== DASH) return false;
  for (const i of ID_DIGIT_PAIRS) if (hexValue[json[at + i]!]! < 0 || hexValue[json[at + i + 1]!]! < 0) return false;
  return true;
}

function entryAt(json: Uint8Array, at: number): { bytes: Uint8Array; mark: number[] } | undefined {
  const first = json[at]!;
  if (first >= 128) return undefined;
  next: for (const entry of entriesByFirstByte[first]!) {
    if (at + entry.bytes.length > json.length) continue;
    for (let k = 1; k < entry.bytes.length; k++) if (json[at + k] !== entry.bytes[k]) continue next;
    return entry;
  }
  return undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Bytes compared while looking for copies in one payload, at most: text made to nearly repeat
 * itself ("aaa…ab" after "aaa…a") would otherwise cost the window times its length for each of
 * its strings. Past it a payload keeps its strings as they are.
 */
const COPY_SEARCH_BUDGET = 1 << 20;

/** Where the bytes `json[start, start + length)` stand whole before `start`, within the window; -1 if nowhere. */
function earlier(json: Uint8Array, start: number, length: number, budget: { left: number }): number {
  const first = json[start]!;
  search: for (let from = Math.max(0, start - COPY_WINDOW); from + length <= start; from++) {
    if (json[from] !== first) continue;
    for (let k = 1; k < length; k++) {
      if (--budget.left < 0) return -1;
      if (json[from + k] !== json[start + k]) continue search;
    }
    return from;
  }
  return -1;
}

/** Each string whose words stand whole earlier in the JSON: by where its words start, how far back and how long. */
function repeatedStrings(json: Uint8Array): Map<number, [distance: number, length: number]> | undefined {
  let repeats: Map<number, [number, number]> | undefined;
  const budget = { left: COPY_SEARCH_BUDGET };
  let start = -1;
  for (let i = 0; i < json.length; i++) {
    const byte = json[i]!;
    if (start < 0) {
      if (byte === QUOTE) start = i + 1;
    } else if (byte === BACKSLASH) {
      i++; // the escaped byte is the string's, whatever it is
    } else if (byte === QUOTE) {
      const length = i - start;
      const from = length >= MIN_COPY && budget.left > 0 ? earlier(json, start, length, budget) : -1;
      if (from >= 0) (repeats ??= new Map()).set(start, [start - from, length]);
      start = -1;
    }
  }
  return repeats;
}

function writeNumber(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  out[at++] = value;
  return at;
}

/** A LEB128 number at `at`: its value and where the next byte is. */
function readNumber(stored: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= stored.length) break;
    const byte = stored[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return [value, at];
  }
  throw new Error('A packed payload ends inside a copy');
}

/**
 * Packs the JSON's UTF-8 bytes into `out` (never more bytes than the JSON's): the length written,
 * or -1 when the JSON holds a byte the marks use and must be kept as its text.
 */
export function packInto(json: Uint8Array, out: Uint8Array): number {
  const repeats = repeatedStrings(json);
  let at = 0;
  for (let i = 0; i < json.length; ) {
    const byte = json[i]!;
    if (isMarkByte(byte)) return -1;
    const repeat = repeats?.get(i);
    if (repeat) {
      out[at++] = COPY_MARK;
      at = writeNumber(out, writeNumber(out, at, repeat[0]), repeat[1]);
      i += repeat[1];
      continue;
    }
    if (hexValue[byte]! >= 0 && isId(json, i)) {
      out[at++] = ID_MARK;
      for (const k of ID_DIGIT_PAIRS) out[at++] = (hexValue[json[i + k]!]! << 4) | hexValue[json[i + k + 1]!]!;
      i += 36;
      continue;
    }
    const entry = entryAt(json, i);
    if (entry) {
      for (const markByte of entry.mark) out[at++] = markByte;
      i += entry.bytes.length;
    } else {
      out[at++] = byte;
      i++;
    }
  }
  return at;
}

/** The entry a mark at `at` stands for (undefined: not a mark this dictionary has). */
const entryOfMark = (stored: Uint8Array, at: number) => (stored[at] === EXTENDED_MARK ? entryBytes[SHORT.length + (stored[at + 1] ?? 256)] : shortEntry[stored[at]!]);

/** How many bytes a packed payload's JSON takes. */
export function unpackedLength(stored: Uint8Array): number {
  let bytes = 0;
  for (let i = 0; i < stored.length; ) {
    const byte = stored[i]!;
    if (!isMarkByte(byte)) {
      bytes++;
      i++;
    } else if (byte === ID_MARK) {
      bytes += 36;
      i += 17;
    } else if (byte === COPY_MARK) {
      const [, next] = readNumber(stored, i + 1);
      const [length, after] = readNumber(stored, next);
      bytes += length;
      i = after;
      if (bytes > MAX_UNPACKED) throw new Error('A packed payload claims more bytes than any event holds');
    } else {
      bytes += entryOfMark(stored, i)?.length ?? 0;
      i += byte === EXTENDED_MARK ? 2 : 1;
    }
  }
  return bytes;
}

/** Writes a packed payload's JSON into `out`, which holds at least `unpackedLength(stored)` bytes. */
export function unpackInto(stored: Uint8Array, out: Uint8Array): void {
  let at = 0;
  for (let i = 0; i < stored.length; ) {
    const byte = stored[i]!;
    if (!isMarkByte(byte)) {
      out[at++] = byte;
      i++;
    } else if (byte === ID_MARK) {
      if (i + 17 > stored.length) throw new Error('A packed payload ends inside an id');
      for (let k = 1; k <= 16; k++) {
        if (k === 5 || k === 7 || k === 9 || k === 11) out[at++] = DASH;
        out[at++] = hexDigits[stored[i + k]! >> 4]!;
        out[at++] = hexDigits[stored[i + k]! & 15]!;
      }
      i += 17;
    } else if (byte === COPY_MARK) {
      const [distance, next] = readNumber(stored, i + 1);
      const [length, after] = readNumber(stored, next);
      if (distance < length || distance > at) throw new Error(`A packed payload copies what it has not written, at byte ${i}`);
      out.copyWithin(at, at - distance, at - distance + length);
      at += length;
      i = after;
    } else {
      const entry = entryOfMark(stored, i);
      if (!entry) throw new Error(`A packed payload holds an unknown mark (${byte}) at byte ${i}`);
      out.set(entry, at);
      at += entry.length;
      i += byte === EXTENDED_MARK ? 2 : 1;
    }
  }
}

/** The payload as a row keeps it: packed bytes, or the JSON itself when it holds a byte the marks use. */
export function packPayload(json: string): Uint8Array | string {
  const bytes = utf8.encode(json);
  const out = new Uint8Array(bytes.length);
  const length = packInto(bytes, out);
  return length < 0 ? json : out.slice(0, length);
}

/** The JSON a packed payload was made from (TEXT is the JSON already). */
export function unpackPayload(stored: Uint8Array | string): string {
  if (typeof stored === 'string') return stored;
  const out = new Uint8Array(unpackedLength(stored));
  unpackInto(stored, out);
  return fromUtf8.decode(out);
}
