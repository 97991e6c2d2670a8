import { dataUriBytes, embeddedPath, mainAsset } from './assets.ts';
import { parseCardJson, type ParsedCard } from './card-json.ts';
import { CardError, MAX_CARD_BYTES } from './errors.ts';
import { inflateCapped } from './inflate.ts';

const LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];

/** Where the zip starts: CHARX files may carry a JPEG (or anything) before it. -1 when there is none. */
export function zipStart(bytes: Uint8Array): number {
  outer: for (let i = 0; i + 4 <= bytes.length; i++) {
    for (let k = 0; k < 4; k++) if (bytes[i + k] !== LOCAL_HEADER[k]) continue outer;
    return i;
  }
  return -1;
}

interface ZipEntry {
  name: string;
  encrypted: boolean;
  /** What the directory says it unpacks to: checked first, never trusted. */
  size: number;
  method: number;
  compressedSize: number;
  /** Where its local header starts. */
  offset: number;
}

/** The central directory's entries: name, flags and declared size, read without inflating anything. */
function directory(zip: Uint8Array): ZipEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new CardError('The CHARX file is damaged: its zip has no directory at the end.');
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const names = new TextDecoder('utf-8');
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== 0x02014b50) throw new CardError('The CHARX file is damaged: its zip directory is cut short.');
    const nameLength = view.getUint16(at + 28, true);
    entries.push({
      name: names.decode(zip.subarray(at + 46, at + 46 + nameLength)),
      encrypted: (view.getUint16(at + 8, true) & 1) === 1,
      size: view.getUint32(at + 24, true),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      offset: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

export interface CharxCard {
  card: ParsedCard;
  /** The card's main icon, when the zip holds it. */
  icon: { bytes: Uint8Array; name: string } | null;
  /** The card's main `background` asset, when the zip (or a `data:` URI) holds it. */
  background: Uint8Array | null;
}

/**
 * A CHARX card: a zip with `card.json`, maybe after other bytes. Only `card.json`, the main
 * icon and the main background are inflated, and only up to the card size limit, whatever the zip declares: a zip bomb
 * is refused before it is inflated and again if it lied about its sizes.
 */
export function readCharx(bytes: Uint8Array): CharxCard {
  const start = zipStart(bytes);
  if (start < 0) throw new CardError('This is not a CHARX file: there is no zip inside it.');
  const zip = bytes.subarray(start);
  const entries = directory(zip);
  if (entries.some((e) => e.encrypted)) throw new CardError('This card is encrypted: it cannot be read without its password.');
  const card = entries.find((e) => e.name === 'card.json');
  if (!card) throw new CardError('This CHARX file has no card.json.');
  const tooBig = (size: number) => size > MAX_CARD_BYTES;
  if (tooBig(card.size)) throw new CardError('The card inside this CHARX file is larger than 20 MB once unpacked.');
  /**
   * One entry's bytes, unpacked here and never past the card size limit, whatever its headers say:
   * a zip that lies about its sizes is refused after 20 MB of output, in milliseconds.
   */
  const unpack = (name: string): Uint8Array | undefined => {
    const entry = entries.find((e) => e.name === name);
    if (!entry) return undefined;
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    if (entry.offset + 30 > zip.length || view.getUint32(entry.offset, true) !== 0x04034b50) throw new CardError(`The CHARX file is damaged: ${name} could not be found in it.`);
    const start = entry.offset + 30 + view.getUint16(entry.offset + 26, true) + view.getUint16(entry.offset + 28, true);
    const data = zip.subarray(start, start + entry.compressedSize);
    if (entry.method === 0) {
      if (tooBig(data.length)) throw new CardError(`${name} is larger than 20 MB once unpacked.`);
      return data.slice();
    }
    if (entry.method !== 8) throw new CardError(`The CHARX file packs ${name} in a way this app does not read (method ${entry.method}).`);
    return inflateCapped(data, 'raw', `${name} in this CHARX file`);
  };
  const json = unpack('card.json');
  if (!json) throw new CardError('The card inside this CHARX file could not be unpacked.');
  const parsed = parseCardJson(new TextDecoder('utf-8').decode(json));
  /** An asset's bytes from the zip (or its `data:` URI); a missing or oversized one is none: a card is still a card without its art. */
  const asset = (type: string): { bytes: Uint8Array; name: string } | null => {
    const listed = mainAsset(parsed, type);
    if (!listed) return null;
    const inline = dataUriBytes(listed.uri);
    if (inline) return { bytes: inline, name: listed.name };
    const path = embeddedPath(listed.uri);
    const declared = path ? entries.find((e) => e.name === path) : undefined;
    const bytes = path && declared && !tooBig(declared.size) ? unpack(path) : undefined;
    return bytes && path ? { bytes, name: path } : null;
  };
  let background: Uint8Array | null = null;
  try {
    background = asset('background')?.bytes ?? null;
  } catch (error) {
    // A background that cannot be unpacked leaves the card without one; the card itself is fine.
    if (!(error instanceof CardError)) throw error;
    parsed.warnings.push(`Its background picture could not be read: ${error.message}`);
  }
  return { card: parsed, icon: asset('icon'), background };
}
