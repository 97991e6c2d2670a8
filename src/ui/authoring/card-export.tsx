import { createSignal } from 'solid-js';
import type { AppClient } from '../engine-client.ts';
import { ErrorNote } from '../error-note.tsx';
import { hueOf, initialsOf } from '../avatar.tsx';

function base64Utf8(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = Object.assign(document.createElement('a'), { href: url, download: name });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
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

/** "Export card": the bot as a PNG card (V3 in `ccv3`, a V2 copy in `chara`) or as V3 JSON. */
export function CardExport(props: { client: AppClient; botId: string }) {
  const [error, setError] = createSignal<string | null>(null);
  const [busy, setBusy] = createSignal(false);
  const run = async (as: 'png' | 'json') => {
    setError(null);
    setBusy(true);
    try {
      const card = await props.client.engine.exportCard(props.botId);
      const file = card.name.replace(/[\\/:*?"<>|]+/g, '_') || 'character';
      if (as === 'json') {
        download(new Blob([JSON.stringify(card.v3, null, 2)], { type: 'application/json' }), `${file}.json`);
        return;
      }
      const { withTextChunks } = await import('../../engine/for-ui-files.ts');
      const png = withTextChunks(await facePng(props.client, card.name, card.avatar), [
        { keyword: 'ccv3', text: base64Utf8(JSON.stringify(card.v3)) },
        { keyword: 'chara', text: base64Utf8(JSON.stringify(card.v2)) },
      ]);
      download(new Blob([png as Uint8Array<ArrayBuffer>], { type: 'image/png' }), `${file}.png`);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="card-export-title">
      <h2 id="card-export-title">Character card</h2>
      <p class="muted small-text">Save this bot as a card other apps read. A card it came from keeps every field this app does not use.</p>
      <div class="button-row">
        <button type="button" disabled={busy()} onClick={() => void run('png')}>
          Export card (PNG)
        </button>
        <button type="button" class="quiet" disabled={busy()} onClick={() => void run('json')}>
          Export card (JSON)
        </button>
      </div>
      <ErrorNote message={error()} />
    </section>
  );
}
