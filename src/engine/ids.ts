/**
 * UUIDv7 (RFC 9562) from a hybrid logical clock. The first 48 bits are Unix milliseconds, but never
 * behind the newest id this clock has made or been shown (`observe`): a wall clock that goes back,
 * or another device's log merged in, cannot make a new id sort before an old one. Within one
 * millisecond a 42-bit counter (rand_a, the variant's two spare bits, then 28 bits of rand_b; RFC
 * 9562's "fixed bit-length dedicated counter") keeps ids strictly increasing; 32 random bits follow,
 * so two devices never mint the same id. Migration 0006 mints ids in the same layout.
 */
export interface IdClock {
  next(): string;
  /** Moves the clock past an id from elsewhere (the log at start-up, a restored backup). */
  observe(id: string): void;
  /**
   * Takes `count` consecutive ids at once, as `count` calls of `next` would, for SQL to mint
   * (`idSql`): a bulk copy of thousands of events cannot afford one call per id.
   */
  reserve(count: number): IdBlock;
}

/** `count` ids in one millisecond, counters `counter` to `counter + count - 1`. */
export interface IdBlock {
  ms: number;
  counter: number;
}

const COUNTER_LIMIT = 2 ** 42;
/** Random bytes drawn at once: one call of the platform's generator per 1,024 ids instead of one per id (a tenth of an append's time in Node). */
const RANDOM_POOL_BYTES = 4_096;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** An id in the log's own form (lowercase), which `id_key` keeps as 16 bytes (db/compact-functions.ts). */
const LOG_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Any UUID, in either case: what a backup or another device may send. */
const UUID = new RegExp(LOG_FORM.source, 'i');

export function createIdClock(now: () => number, randomBytes: (length: number) => Uint8Array): IdClock {
  let ms = -1;
  let counter = 0;
  let pool: Uint8Array = new Uint8Array(0);
  let used = 0;
  const random4 = (): Uint8Array => {
    if (used + 4 > pool.length) {
      pool = randomBytes(RANDOM_POOL_BYTES);
      used = 0;
      if (pool.length < 4) throw new Error('randomBytes returned fewer than 4 bytes');
    }
    used += 4;
    return pool.subarray(used - 4, used);
  };
  const tick = () => {
    const wall = Math.floor(now());
    if (wall > ms) {
      ms = wall;
      counter = 0;
    } else if (++counter >= COUNTER_LIMIT) {
      ms++;
      counter = 0;
    }
  };
  return {
    next() {
      tick();
      return format(ms, counter, random4());
    },
    reserve(count) {
      if (!Number.isInteger(count) || count < 1) throw new Error(`cannot reserve ${count} ids`);
      tick();
      if (counter + count > COUNTER_LIMIT) {
        ms++;
        counter = 0;
      }
      const block = { ms, counter };
      counter += count - 1;
      return block;
    },
    observe(id) {
      const seen = readClock(id);
      if (!seen) return;
      if (seen.ms > ms || (seen.ms === ms && seen.counter > counter)) {
        ms = seen.ms;
        counter = seen.counter;
      }
    },
  };
}

function format(ms: number, counter: number, random: Uint8Array): string {
  if (random.length < 4) throw new Error('randomBytes returned fewer than 4 bytes');
  const hex = (value: number, digits: number) => value.toString(16).padStart(digits, '0');
  const h =
    hex(ms, 12) +
    '7' +
    hex(Math.floor(counter / 2 ** 30), 3) +
    hex(8 + (Math.floor(counter / 2 ** 28) % 4), 1) +
    hex(counter % 2 ** 28, 7) +
    HEX[random[0]!]! +
    HEX[random[1]!]! +
    HEX[random[2]!]! +
    HEX[random[3]!]!;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * SQL for the id at `offset` (an SQL expression, from 0) in a reserved block: the same layout as
 * `format`. Its last 32 bits spread a random `tail` (one per block) over the offsets, so the same
 * offset always gives the same id (a copy names its cause by computing it again) while two
 * devices' blocks still never meet.
 */
export function idSql(block: IdBlock, offset: string, tail: number): string {
  const c = `(${block.counter} + ${offset})`;
  const random = `((${tail >>> 0} + (${offset}) * 2654435761) & 4294967295)`;
  return `printf('%08x-%04x-7%03x-%x%03x-%04x%08x', ${Math.floor(block.ms / 2 ** 16)}, ${block.ms % 2 ** 16}, ${c} >> 30, 8 + ((${c} >> 28) & 3), (${c} >> 16) & 4095, ${c} & 65535, ${random})`;
}

/** The clock reading in a UUIDv7; any other id (v4, made by an older build) reads as nothing. */
export function readClock(id: string): { ms: number; counter: number } | undefined {
  if (!UUID.test(id)) return undefined;
  const h = id.replaceAll('-', '').toLowerCase();
  if (h[12] !== '7') return undefined;
  const ms = parseInt(h.slice(0, 12), 16);
  const counter = parseInt(h.slice(13, 16), 16) * 2 ** 30 + (parseInt(h[16]!, 16) % 4) * 2 ** 28 + parseInt(h.slice(17, 24), 16);
  return { ms, counter };
}

export const isUuid = (id: string): boolean => UUID.test(id);

/**
 * Two event ids in the order the log keeps them (migration 0065): an id in the log's own form
 * (36 characters, lowercase hex) is stored as its 16 bytes, which sort as its text does; any other
 * (a v4 id in capitals from another app's backup) stays text, which SQLite sorts before every
 * blob. Whatever sorts events in memory to write them in id order sorts them so, as the indexes do.
 */
export function compareIds(a: string, b: string): number {
  const aBytes = LOG_FORM.test(a);
  if (aBytes !== LOG_FORM.test(b)) return aBytes ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Whether `next` may follow `previous` in a backup: in the log's order, or in their text's, which
 * a backup written before 0065 followed. The two differ only where an id is not in the log's form.
 */
export const followsInBackup = (previous: string, next: string): boolean => compareIds(previous, next) < 0 || previous < next;
