import { createSignal } from 'solid-js';
import type { AppClient } from '../engine-client.ts';
import { ErrorNote } from '../error-note.tsx';
import { downloadBlob } from '../backup-file.ts';
import { cardJson, cardPng, fileNameOf } from './card-files.ts';
import { t } from '../i18n/index.ts';

/** "Export card": the bot as a PNG card (V3 in `ccv3`, a V2 copy in `chara`) or as V3 JSON. */
export function CardExport(props: { client: AppClient; botId: string }) {
  const [error, setError] = createSignal<string | null>(null);
  const [busy, setBusy] = createSignal(false);
  const run = async (as: 'png' | 'json') => {
    setError(null);
    setBusy(true);
    try {
      const card = await props.client.engine.exportCard(props.botId);
      const file = fileNameOf(card.name, 'character');
      if (as === 'json') {
        downloadBlob(new Blob([await cardJson(card)], { type: 'application/json' }), `${file}.json`);
        return;
      }
      downloadBlob(new Blob([(await cardPng(props.client, card)) as Uint8Array<ArrayBuffer>], { type: 'image/png' }), `${file}.png`);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="card-export-title">
      <h2 id="card-export-title">{t('card.title')}</h2>
      <p class="muted small-text">{t('card.exportHint')}</p>
      <div class="button-row">
        <button type="button" disabled={busy()} onClick={() => void run('png')}>
          {t('card.exportPng')}
        </button>
        <button type="button" class="quiet" disabled={busy()} onClick={() => void run('json')}>
          {t('card.exportJson')}
        </button>
      </div>
      <ErrorNote message={error()} />
    </section>
  );
}
