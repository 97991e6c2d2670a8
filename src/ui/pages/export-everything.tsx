import { createSignal, Show } from 'solid-js';
import { cardPng, fileNameOf } from '../authoring/card-files.ts';
import { downloadBlob } from '../backup-file.ts';
import type { AppClient } from '../engine-client.ts';
import { ErrorNote } from '../error-note.tsx';
import { t } from '../i18n/index.ts';

/**
 * "Export everything": every bot as a PNG card and every chat as a SillyTavern JSONL, in one zip
 * other apps can take in, file by file. (A backup is this app's own, whole; this is for leaving,
 * or for sharing.) Each file is made in turn, with a progress bar; the zip is built in memory.
 */
export function ExportEverything(props: { client: AppClient }) {
  const [progress, setProgress] = createSignal<{ done: number; total: number } | null>(null);
  const [finished, setFinished] = createSignal<string | null>(null);
  const [error, setError] = createSignal<string | null>(null);

  const exportAll = async () => {
    setError(null);
    setFinished(null);
    try {
      const [bots, chats, { zipSync }] = await Promise.all([props.client.engine.listBots(), props.client.engine.listChats(), import('fflate')]);
      const total = bots.length + chats.length;
      setProgress({ done: 0, total });
      const files: Record<string, Uint8Array | [Uint8Array, { level: 0 }]> = {};
      const taken = new Set<string>();
      /** Two bots or chats of one name get "(2)", "(3)"… rather than one replacing the other. */
      const unique = (folder: string, name: string, extension: string) => {
        let path = `${folder}/${name}${extension}`;
        for (let n = 2; taken.has(path.toLowerCase()); n++) path = `${folder}/${name} (${n})${extension}`;
        taken.add(path.toLowerCase());
        return path;
      };
      let done = 0;
      for (const bot of bots) {
        const card = await props.client.engine.exportCard(bot.id);
        // A PNG is compressed already: stored as it is.
        files[unique('bots', fileNameOf(card.name, 'character'), '.png')] = [await cardPng(props.client, card), { level: 0 }];
        setProgress({ done: ++done, total });
      }
      for (const chat of chats) {
        const text = await props.client.engine.exportChat(chat.id, 'sillytavern');
        files[unique('chats', fileNameOf(`${chat.botName ?? t('people.someone')} - ${chat.title}`, 'chat'), '.jsonl')] = new TextEncoder().encode(text);
        setProgress({ done: ++done, total });
      }
      const zip = zipSync(files, { level: 6 });
      downloadBlob(new Blob([zip as Uint8Array<ArrayBuffer>], { type: 'application/zip' }), `roleplay-engine-export-${new Date().toISOString().slice(0, 10)}.zip`);
      setFinished(t('exportAll.done', t('counts.bots', bots.length), t('chats.count', chats.length)));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setProgress(null);
    }
  };

  return (
    <div class="stack" data-testid="export-everything">
      <p class="muted small-text">{t('exportAll.about')}</p>
      <button type="button" class="self-start" disabled={progress() !== null} onClick={() => void exportAll()}>
        {t('settings.exportEverything')}
      </button>
      <Show when={progress()}>
        {(p) => (
          <label class="stack small-text">
            {t('exportAll.progress', p().done, p().total)}
            <progress max={p().total} value={p().done} />
          </label>
        )}
      </Show>
      <Show when={finished()}>
        {(text) => (
          <p class="ok" role="status">
            {text()}
          </p>
        )}
      </Show>
      <ErrorNote message={error()} />
    </div>
  );
}
