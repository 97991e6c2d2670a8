/**
 * UUIDv7 (RFC 9562): 48 bits of Unix milliseconds, then randomness. Ids sort by creation time, and
 * two devices never mint the same one, so logs can one day merge. Within one millisecond a counter
 * in `rand_a` keeps ids from this generator strictly increasing.
 */
export function createIdGenerator(now: () => number, randomBytes: (length: number) => Uint8Array): () => string {
  let lastMs = -1;
  let counter = 0;
  return () => {
    let ms = now();
    if (ms <= lastMs) {
      ms = lastMs;
      counter++;
      if (counter > 0xfff) {
        // 4096 ids in one millisecond: borrow the next millisecond rather than repeat an id.
        ms = ++lastMs;
        counter = 0;
      }
    } else {
      counter = 0;
    }
    lastMs = ms;
    const bytes = randomBytes(16);
    if (bytes.length < 16) throw new Error('randomBytes returned fewer than 16 bytes');
    for (let i = 5; i >= 0; i--) {
      bytes[i] = ms % 256;
      ms = Math.floor(ms / 256);
    }
    bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
    bytes[7] = counter & 0xff;
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}
