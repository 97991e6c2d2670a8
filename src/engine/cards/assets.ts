import { fromBase64 } from '../base64.ts';
import type { ParsedCard } from './card-json.ts';
import { MAX_CARD_BYTES } from './errors.ts';
import type { PngText } from './png.ts';

/** A V3 card's asset entry (`data.assets[]`): what it is for, where its bytes are, its name. */
export interface CardAsset {
  type: string;
  uri: string;
  name: string;
}

/** The assets a V3 card lists, well-formed ones only (a V1/V2 card has none). */
export function assetsOf(card: ParsedCard): CardAsset[] {
  const data = (card.original.data ?? card.original) as Record<string, unknown>;
  if (!Array.isArray(data.assets)) return [];
  return data.assets.flatMap((a: unknown) => {
    if (typeof a !== 'object' || a === null) return [];
    const { type, uri, name } = a as Record<string, unknown>;
    return typeof type === 'string' && typeof uri === 'string' ? [{ type, uri, name: typeof name === 'string' ? name : '' }] : [];
  });
}

/** The asset of a type the card would show first: the one named "main", else the first listed. */
export function mainAsset(card: ParsedCard, type: string): CardAsset | undefined {
  const ofType = assetsOf(card).filter((a) => a.type === type);
  return ofType.find((a) => a.name === 'main') ?? ofType[0];
}

/** The path inside a CHARX zip (or a PNG's asset chunks) an asset URI names; null for a web address, `ccdefault:` or a `data:` URI. */
export function embeddedPath(uri: string): string | null {
  const match = /^(?:embed{1,2}ed:\/\/|__asset:)(.+)$/.exec(uri.trim());
  return match ? match[1]!.replace(/^\/+/, '') : null;
}

/** A `data:` URI's picture bytes (base64 only); null for anything else or past the card size limit. */
export function dataUriBytes(uri: string): Uint8Array | null {
  const match = /^data:image\/[a-z0-9.+-]+;base64,([A-Za-z0-9+/=\s]+)$/i.exec(uri.trim());
  if (!match || match[1]!.length > (MAX_CARD_BYTES / 3) * 4) return null;
  const clean = match[1]!.replace(/\s+/g, '');
  return fromBase64(clean + '='.repeat((4 - (clean.length % 4)) % 4));
}

/**
 * An asset's bytes from a PNG card: RisuAI writes each one as a `chara-ext-asset_:<path>` text chunk
 * (older files `chara-ext-asset_<path>`) of base64, named by `__asset:<path>` or `embeded://<path>`.
 */
export function pngAssetBytes(asset: CardAsset, texts: readonly PngText[]): Uint8Array | null {
  const inline = dataUriBytes(asset.uri);
  if (inline) return inline;
  const path = embeddedPath(asset.uri);
  if (path === null) return null;
  const wanted = new Set([`chara-ext-asset_:${path}`, `chara-ext-asset_${path}`].map((k) => k.toLowerCase()));
  const chunk = texts.find((t) => wanted.has(t.keyword.toLowerCase()));
  if (!chunk) return null;
  const clean = chunk.text.replace(/\s+/g, '');
  return fromBase64(clean + '='.repeat((4 - (clean.length % 4)) % 4));
}

/**
 * A V3 card whose background is the one at `uri` (`__asset:background` with its PNG chunk, or a
 * `data:` URI in JSON): any earlier background asset dropped, the others kept; a card that listed
 * no assets gets the default icon listed too, as V3 reads a missing list.
 */
export function withBackgroundAsset(v3: Record<string, unknown>, uri: string, ext: string): Record<string, unknown> {
  const data = { ...(v3.data as Record<string, unknown>) };
  const others = Array.isArray(data.assets)
    ? data.assets.filter((a: unknown) => !(typeof a === 'object' && a !== null && (a as { type?: unknown }).type === 'background'))
    : [{ type: 'icon', uri: 'ccdefault:', name: 'main', ext: 'png' }];
  data.assets = [...others, { type: 'background', uri, name: 'main', ext }];
  return { ...v3, data };
}

/** The text chunk a PNG card carries an asset in, as RisuAI writes it, and the URI that names it. */
export const PNG_BACKGROUND = { keyword: 'chara-ext-asset_:background', uri: '__asset:background' } as const;
