import { CardError } from './errors.ts';
import { inflateCapped } from './inflate.ts';

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export interface PngChunk {
  type: string;
  data: Uint8Array;
  /** The stored CRC matched the chunk: a mismatch is a warning, not a refusal (editors write bad ones). */
  crcOk: boolean;
}

let crcTable: Uint32Array | undefined;
function crc32(bytes: Uint8Array): number {
  crcTable ??= Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  let crc = 0xffffffff;
  for (const byte of bytes) crc = crcTable[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const ascii = (bytes: Uint8Array) => String.fromCharCode(...bytes);

export const isPng = (bytes: Uint8Array) => bytes.length >= 8 && SIGNATURE.every((b, i) => bytes[i] === b);

/** Every chunk up to IEND. A file cut short is refused: its card may be cut too. */
export function readPngChunks(bytes: Uint8Array): PngChunk[] {
  if (!isPng(bytes)) throw new CardError('This is not a PNG file.');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks: PngChunk[] = [];
  let at = 8;
  for (;;) {
    if (at + 12 > bytes.length) throw new CardError('The PNG is cut short: it ends before its last chunk.');
    const length = view.getUint32(at);
    const type = ascii(bytes.subarray(at + 4, at + 8));
    if (!/^[A-Za-z]{4}$/.test(type)) throw new CardError('The PNG is damaged: a chunk has no valid name.');
    const end = at + 12 + length;
    if (end > bytes.length) throw new CardError(`The PNG is cut short: its ${type} chunk runs past the end of the file.`);
    const data = bytes.subarray(at + 8, at + 8 + length);
    const crcOk = crc32(bytes.subarray(at + 4, at + 8 + length)) === view.getUint32(at + 8 + length);
    chunks.push({ type, data, crcOk });
    at = end;
    if (type === 'IEND') return chunks;
  }
}


export interface PngText {
  /** As written; match it ignoring case. */
  keyword: string;
  text: string;
}

const latin1 = (bytes: Uint8Array) => {
  let out = '';
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return out;
};

/**
 * The text chunks (tEXt, zTXt, iTXt), decoded. A chunk that cannot be decoded is skipped with a
 * warning; one that unpacks past the card size limit refuses the file, saying so.
 */
export function pngTexts(chunks: readonly PngChunk[], warnings: string[]): PngText[] {
  const texts: PngText[] = [];
  const utf8 = new TextDecoder('utf-8');
  for (const chunk of chunks) {
    if (chunk.type !== 'tEXt' && chunk.type !== 'zTXt' && chunk.type !== 'iTXt') continue;
    const nul = chunk.data.indexOf(0);
    if (nul <= 0) continue;
    const keyword = latin1(chunk.data.subarray(0, nul));
    if (!chunk.crcOk) warnings.push(`The ${chunk.type} chunk "${keyword}" has a wrong checksum; it was read anyway.`);
    try {
      if (chunk.type === 'tEXt') texts.push({ keyword, text: latin1(chunk.data.subarray(nul + 1)) });
      else if (chunk.type === 'zTXt') texts.push({ keyword, text: latin1(inflateCapped(chunk.data.subarray(nul + 2), 'zlib', `The picture's "${keyword}" text`)) });
      else {
        // iTXt: keyword, NUL, compression flag, method, language tag, NUL, translated keyword, NUL, text.
        const compressed = chunk.data[nul + 1] === 1;
        const languageEnd = chunk.data.indexOf(0, nul + 3);
        const translatedEnd = chunk.data.indexOf(0, languageEnd + 1);
        if (languageEnd < 0 || translatedEnd < 0) throw new Error('malformed');
        const body = chunk.data.subarray(translatedEnd + 1);
        texts.push({ keyword, text: utf8.decode(compressed ? inflateCapped(body, 'zlib', `The picture's "${keyword}" text`) : body) });
      }
    } catch (error) {
      if (error instanceof CardError && /unpacks to more than/.test(error.message)) throw error;
      warnings.push(`The ${chunk.type} chunk "${keyword}" could not be decoded; it was skipped.`);
    }
  }
  return texts;
}

function chunkBytes(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/**
 * The PNG with these tEXt chunks written just before IEND, replacing any text chunk of the same
 * keywords (a card's old `chara` and `ccv3` go). Text must be Latin-1: cards carry base64.
 */
export function withTextChunks(png: Uint8Array, texts: readonly PngText[]): Uint8Array {
  const replaced = new Set(texts.map((t) => t.keyword.toLowerCase()));
  const kept = readPngChunks(png).filter((c) => {
    if (c.type !== 'tEXt' && c.type !== 'zTXt' && c.type !== 'iTXt') return true;
    const nul = c.data.indexOf(0);
    return !replaced.has(latin1(c.data.subarray(0, nul < 0 ? 0 : nul)).toLowerCase());
  });
  const parts: Uint8Array[] = [Uint8Array.from(SIGNATURE)];
  for (const chunk of kept) {
    if (chunk.type === 'IEND') {
      for (const t of texts) {
        if (/[^\x00-\xff]/.test(t.text)) throw new Error(`tEXt "${t.keyword}" must be Latin-1`);
        parts.push(chunkBytes('tEXt', Uint8Array.from(`${t.keyword}\u0000${t.text}`, (c) => c.charCodeAt(0))));
      }
    }
    parts.push(chunkBytes(chunk.type, chunk.data));
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
