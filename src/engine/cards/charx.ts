import { unzipSync } from 'fflate';
import { parseCardJson, type ParsedCard } from './card-json.ts';
import { CardError, MAX_CARD_BYTES } from './errors.ts';

const LOCAL_HEADER = [0x50, 0x4b, 0x03, 0x04];

/** Where the zip starts: CHARX files may carry a JPEG (or anything) before it. -1 when there is none. */
export function zipStart(bytes: Uint8Array): number {
  outer: for (let i = 0; i + 4 <= bytes.length; i++) {
    for (let k = 0; k < 4; k++) if (bytes[i + k] !== LOCAL_HEADER[k]) continue outer;
    return i;
  }
  return -1;
}

/** The central directory's entries: name, flags and declared size, read without inflating anything. */
function directory(zip: Uint8Array): { name: string; encrypted: boolean; size: number }[] {
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
  const entries: { name: string; encrypted: boolean; size: number }[] = [];
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== 0x02014b50) throw new CardError('The CHARX file is damaged: its zip directory is cut short.');
    const nameLength = view.getUint16(at + 28, true);
    entries.push({
      name: names.decode(zip.subarray(at + 46, at + 46 + nameLength)),
      encrypted: (view.getUint16(at + 8, true) & 1) === 1,
      size: view.getUint32(at + 24, true),
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
  const unpack = (name: string) => {
    let files: Record<string, Uint8Array>;
    try {
      files = unzipSync(zip, { filter: (file) => file.name === name && !tooBig(file.originalSize) });
    } catch {
      throw new CardError(`The CHARX file is damaged: ${name} could not be unpacked.`);
    }
    const file = files[name];
    if (file && tooBig(file.length)) throw new CardError(`${name} is larger than 20 MB once unpacked.`);
    return file;
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
