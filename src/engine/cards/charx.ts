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
}

/** The path inside the zip an asset URI names, or null for one that is not in it (a web address, `ccdefault:`). */
function assetPath(uri: string): string | null {
  const match = /^(?:embed{1,2}ed:\/\/|__asset:)(.+)$/.exec(uri);
  return match ? match[1]!.replace(/^\/+/, '') : null;
}

/**
 * A CHARX card: a zip with `card.json`, maybe after other bytes. Only `card.json` and the main
 * icon are inflated, and only up to the card size limit, whatever the zip declares: a zip bomb
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
  const data = (parsed.original.data ?? parsed.original) as Record<string, unknown>;
  const icons = (Array.isArray(data.assets) ? data.assets : []).filter(
    (a): a is { type: string; uri: string; name?: string } => typeof a === 'object' && a !== null && (a as { type?: unknown }).type === 'icon' && typeof (a as { uri?: unknown }).uri === 'string',
  );
  const main = icons.find((a) => a.name === 'main') ?? icons[0];
  const path = main ? assetPath(main.uri) : null;
  const declared = path ? entries.find((e) => e.name === path) : undefined;
  const icon = path && declared && !tooBig(declared.size) ? unpack(path) : undefined;
  return { card: parsed, icon: icon && path ? { bytes: icon, name: path } : null };
}
