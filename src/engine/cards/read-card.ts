import { dataUriBytes, mainAsset, pngAssetBytes } from './assets.ts';
import { cardFromChunk, parseCardJson, type ParsedCard } from './card-json.ts';
import { readCharx, zipStart } from './charx.ts';
import { CardError, MAX_CARD_BYTES } from './errors.ts';
import { isPng, pngTexts, readPngChunks } from './png.ts';

export interface ReadCard {
  card: ParsedCard;
  /** The picture to use as the bot's avatar: the PNG itself, or the CHARX's main icon. */
  picture: Uint8Array | null;
  /** The card's own background (a V3 `background` asset it carries), to show behind its chats. */
  background: Uint8Array | null;
  format: 'png' | 'json' | 'charx';
  warnings: string[];
}

const startsWith = (bytes: Uint8Array, text: string, at = 0) => [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0));

/**
 * Reads a character card from a file's bytes, whatever it is: a PNG (or APNG) with a `ccv3` or
 * `chara` text chunk (`ccv3` wins), JSON (V1, V2, V3 or a hybrid), or a CHARX zip. Anything else
 * gets a specific refusal. Compressed PNG text is unpacked here, never past the card size limit.
 */
export async function readCard(bytes: Uint8Array): Promise<ReadCard> {
  if (bytes.length > MAX_CARD_BYTES) throw new CardError(`This file is ${Math.round(bytes.length / 1024 / 1024)} MB: cards of up to 20 MB are read.`);
  if (bytes.length === 0) throw new CardError('This file is empty.');
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8)) {
    throw new CardError('This is a WebP picture: character cards are PNG, JSON or CHARX files. If a site gave you a WebP, download the PNG version.');
  }
  if (isPng(bytes)) {
    const warnings: string[] = [];
    const texts = pngTexts(readPngChunks(bytes), warnings);
    const find = (keyword: string) => texts.find((t) => t.keyword.toLowerCase() === keyword);
    const chunk = find('ccv3') ?? find('chara');
    if (!chunk) throw new CardError('This PNG holds no character card: it is only a picture.');
    const card = cardFromChunk(chunk.text);
    const backdrop = mainAsset(card, 'background');
    const background = backdrop ? pngAssetBytes(backdrop, texts) : null;
    return { card, picture: bytes, background, format: 'png', warnings: [...warnings, ...card.warnings] };
  }
  const head = new TextDecoder('utf-8').decode(bytes.subarray(0, 64)).replace(/^\uFEFF/, '').trimStart();
  if (head.startsWith('{')) {
    const card = parseCardJson(new TextDecoder('utf-8').decode(bytes));
    const backdrop = mainAsset(card, 'background');
    return { card, picture: null, background: backdrop ? dataUriBytes(backdrop.uri) : null, format: 'json', warnings: card.warnings };
  }
  if (zipStart(bytes) >= 0) {
    const { card, icon, background } = readCharx(bytes);
    return { card, picture: icon?.bytes ?? null, background, format: 'charx', warnings: card.warnings };
  }
  throw new CardError('This file is not a character card: cards are PNG, JSON or CHARX files.');
}
