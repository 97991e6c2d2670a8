import { Inflate, Unzlib } from 'fflate';
import { CardError, MAX_CARD_BYTES } from './errors.ts';

/** Compressed bytes are fed this much at a time, so one step cannot inflate past a few megabytes. */
const STEP = 4 * 1024;

/**
 * Inflates zlib (`zlib`: PNG text) or raw deflate (`raw`: a zip entry) data, stopping as soon as the
 * output passes `cap` bytes. A decompression bomb (a 1 MB picture whose text inflates to 1 GiB) is
 * refused after inflating `cap` bytes, in milliseconds, instead of filling memory for a minute.
 */
export function inflateCapped(bytes: Uint8Array, format: 'zlib' | 'raw', what: string, cap = MAX_CARD_BYTES): Uint8Array {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let over = false;
  const stream = format === 'zlib' ? new Unzlib() : new Inflate();
  stream.ondata = (chunk) => {
    size += chunk.length;
    if (size > cap) over = true;
    else chunks.push(chunk);
  };
  try {
    for (let at = 0; at < bytes.length && !over; at += STEP) stream.push(bytes.subarray(at, at + STEP), at + STEP >= bytes.length);
  } catch {
    if (!over) throw new CardError(`${what} is damaged: its compressed data cannot be unpacked.`);
  }
  if (over) throw new CardError(`${what} unpacks to more than ${Math.round(cap / 1024 / 1024)} MB, far more than any card holds: it is refused.`);
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
