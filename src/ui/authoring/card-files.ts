import type { AppClient } from '../engine-client.ts';
import { hueOf, initialsOf } from '../avatar.tsx';

/** A name as a file's name: what file systems refuse replaced, never empty. */
export const fileNameOf = (name: string, otherwise: string) => name.replace(/[\\/:*?"<>|]+/g, '_').trim() || otherwise;

function base64Utf8(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The bot's face as PNG bytes: its picture redrawn, or its initials on its colour. */
async function facePng(client: AppClient, name: string, avatar: string | null): Promise<Uint8Array> {
  const canvas = new OffscreenCanvas(512, 512);
  const context = canvas.getContext('2d')!;
  const image = avatar ? await client.engine.image(avatar) : null;
  if (image) {
    const bitmap = await createImageBitmap(new Blob([Uint8Array.from(atob(image.data), (c) => c.charCodeAt(0))], { type: image.mime }));
    context.drawImage(bitmap, 0, 0, 512, 512);
  } else {
    context.fillStyle = `hsl(${hueOf(name)} 45% 34%)`;
    context.fillRect(0, 0, 512, 512);
    context.fillStyle = '#fff';
    context.font = 'bold 200px sans-serif';
    context.textAlign = 'center';
    context.textBaseline = 'middle';
    context.fillText(initialsOf(name), 256, 270);
  }
  return new Uint8Array(await (await canvas.convertToBlob({ type: 'image/png' })).arrayBuffer());
}

type ExportedCard = Awaited<ReturnType<AppClient['engine']['exportCard']>>;
const extensionOf = (mime: string) => mime.slice('image/'.length).replace('jpeg', 'jpg');

/**
 * A bot's card as PNG bytes: its face, with the V3 card in `ccv3` and a V2 copy in `chara`, as other
 * apps read them, and its background as a `chara-ext-asset_:` chunk the V3 card names (RisuAI's way).
 */
export async function cardPng(client: AppClient, card: ExportedCard): Promise<Uint8Array> {
  const { withTextChunks, withBackgroundAsset, PNG_BACKGROUND } = await import('../../engine/for-ui-files.ts');
  const v3 = card.background ? withBackgroundAsset(card.v3, PNG_BACKGROUND.uri, extensionOf(card.background.mime)) : card.v3;
  return withTextChunks(await facePng(client, card.name, card.avatar), [
    { keyword: 'ccv3', text: base64Utf8(JSON.stringify(v3)) },
    { keyword: 'chara', text: base64Utf8(JSON.stringify(card.v2)) },
    ...(card.background ? [{ keyword: PNG_BACKGROUND.keyword, text: card.background.data }] : []),
  ]);
}

/** A bot's card as V3 JSON, its background in it as a `data:` URI. */
export async function cardJson(card: ExportedCard): Promise<string> {
  const { withBackgroundAsset } = await import('../../engine/for-ui-files.ts');
  const { background } = card;
  const v3 = background ? withBackgroundAsset(card.v3, `data:${background.mime};base64,${background.data}`, extensionOf(background.mime)) : card.v3;
  return JSON.stringify(v3, null, 2);
}
