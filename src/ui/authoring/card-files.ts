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

/** A bot's card as PNG bytes: its face, with the V3 card in `ccv3` and a V2 copy in `chara`, as other apps read them. */
export async function cardPng(client: AppClient, card: Awaited<ReturnType<AppClient['engine']['exportCard']>>): Promise<Uint8Array> {
  const { withTextChunks } = await import('../../engine/for-ui-files.ts');
  return withTextChunks(await facePng(client, card.name, card.avatar), [
    { keyword: 'ccv3', text: base64Utf8(JSON.stringify(card.v3)) },
    { keyword: 'chara', text: base64Utf8(JSON.stringify(card.v2)) },
  ]);
}
