import { withTextChunks } from '../../src/engine/cards/png.ts';

/** A 1x1 PNG, the picture the card tests carry their text in. */
export const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

/**
 * That PNG with one more chunk before IEND, written by hand: its CRC-32 (over type and data) spoilt
 * by one bit when asked, its length field a lie when asked.
 */
export function rawChunk(type: string, data: Uint8Array, options: { badCrc?: boolean; lieLength?: number } = {}): Uint8Array {
  const base = withTextChunks(new Uint8Array(PIXEL), []);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(options.lieLength ?? data.length, 0);
  out.write(type, 4, 'latin1');
  Buffer.from(data).copy(out, 8);
  let crc = 0xffffffff;
  for (const byte of out.subarray(4, 8 + data.length)) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  out.writeUInt32BE((crc ^ 0xffffffff ^ (options.badCrc ? 1 : 0)) >>> 0, 8 + data.length);
  const iend = base.length - 12;
  return new Uint8Array(Buffer.concat([base.subarray(0, iend), out, base.subarray(iend)]));
}
