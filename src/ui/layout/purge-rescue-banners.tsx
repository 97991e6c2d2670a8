import { useNavigate } from '@solidjs/router';
import { createEffect, createSignal, For, on, onCleanup, onMount, Show } from 'solid-js';
import type { PurgeRescue } from '../../engine/for-ui.ts';
import { downloadBlob } from '../backup-file.ts';
import { useClient } from '../context.ts';
import { t } from '../i18n/index.ts';

/**
 * Stories another device deleted forever that held turns written here it never had: each said in
 * a banner on every screen until the player keeps it (a new chat, or a file) or lets it go. The
 * copies are taken by the merge that brought the purge (engine `log/purge-rescue.ts`).
 */
export function PurgeRescueBanners() {
  const client = useClient();
  const navigate = useNavigate();
  const [rescues, setRescues] = createSignal<PurgeRescue[]>([]);
  const [problem, setProblem] = createSignal<string | null>(null);
  const load = () => void client.engine.purgeRescues().then(setRescues, () => undefined);
  onMount(load);
  // A purge arrives with a merge, which every tab hears of as a rebuild.
  onCleanup(client.onChange((notice) => (notice === 'everything' || notice.rebuilt) && load()));
  createEffect(on(() => client.status().epoch, load, { defer: true }));
  const act = async (work: () => Promise<unknown>) => {
    setProblem(null);
    try {
      await work();
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    }
    load();
  };
  const keep = (rescue: PurgeRescue) => act(async () => navigate(`/chats/${await client.engine.keepRescuedChat(rescue.chatId)}`));
  const download = (rescue: PurgeRescue) =>
    act(async () => {
      const text = await client.engine.rescuedChatFile(rescue.chatId);
      downloadBlob(new Blob([text], { type: 'application/jsonl' }), `${rescue.title.replace(/[\\/:*?"<>|]+/g, '_').trim() || 'chat'}.jsonl`);
    });
  return (
    <For each={rescues()}>
      {(rescue) => (
        <div class="banner warn" data-banner="purge-rescue" role="alert">
          <span class="banner-text">
            {t('shell.rescued', rescue.title, t('shell.rescuedTurns', rescue.unsyncedTurns))}
            <Show when={problem()}>{(message) => <span class="error"> {message()}</span>}</Show>
          </span>
          <span class="banner-actions">
            <button type="button" class="small" disabled={!rescue.botId} title={rescue.botId ? undefined : t('shell.keepCopyNoBot')} onClick={() => void keep(rescue)}>
              {t('shell.keepCopy')}
            </button>
            <button type="button" class="small" onClick={() => void download(rescue)}>
              {t('shell.downloadCopy')}
            </button>
            <button type="button" class="small quiet" onClick={() => void act(() => client.engine.letRescueGo(rescue.chatId))}>
              {t('shell.letGo')}
            </button>
          </span>
        </div>
      )}
    </For>
  );
}
