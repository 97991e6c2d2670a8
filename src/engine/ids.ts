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
}

const COUNTER_LIMIT = 2 ** 42;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createIdClock(now: () => number, randomBytes: (length: number) => Uint8Array): IdClock {
  let ms = -1;
  let counter = 0;
  return {
    next() {
      const wall = Math.floor(now());
      if (wall > ms) {
        ms = wall;
        counter = 0;
      } else if (++counter >= COUNTER_LIMIT) {
        ms++;
        counter = 0;
      }
      return format(ms, counter, randomBytes(4));
    },
    observe(id) {
      const seen = parse(id);
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
    Array.from(random.subarray(0, 4), (b) => hex(b, 2)).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The clock reading in a UUIDv7; any other id (v4, made by an older build) reads as nothing. */
function parse(id: string): { ms: number; counter: number } | undefined {
  if (!UUID.test(id)) return undefined;
  const h = id.replaceAll('-', '').toLowerCase();
  if (h[12] !== '7') return undefined;
  const ms = parseInt(h.slice(0, 12), 16);
  const counter = parseInt(h.slice(13, 16), 16) * 2 ** 30 + (parseInt(h[16]!, 16) % 4) * 2 ** 28 + parseInt(h.slice(17, 24), 16);
  return { ms, counter };
}

export const isUuid = (id: string): boolean => UUID.test(id);
