import type { AppClient } from '../../engine-client.ts';
import { t } from '../../i18n/index.ts';
import type { DrawerScope } from './drawer-scope.ts';

/** Take this chat elsewhere: SillyTavern's format, or Markdown. */
export function ExportSection(props: { d: DrawerScope }) {
  const d = props.d;
  return (
    <section aria-labelledby="drawer-export">
      <h2 id="drawer-export">{t('drawer.export')}</h2>
      <div class="button-row">
        <button type="button" class="small" disabled={d.busy()} onClick={() => void d.act(() => saveChat(d.client, d.chatId(), d.drawer().title, 'sillytavern'))}>
          {t('drawerMore.exportSillyTavern')}
        </button>
        <button type="button" class="small quiet" disabled={d.busy()} onClick={() => void d.act(() => saveChat(d.client, d.chatId(), d.drawer().title, 'markdown'))}>
          {t('drawerMore.exportMarkdown')}
        </button>
      </div>
    </section>
  );
}

/** The chat as a file the browser saves: SillyTavern's .jsonl, or Markdown to read anywhere. */
async function saveChat(client: AppClient, chatId: string, title: string, as: 'sillytavern' | 'markdown'): Promise<void> {
  const text = await client.engine.exportChat(chatId, as);
  const name = (title.replace(/[\\/:*?"<>|]+/g, '_').trim() || 'chat') + (as === 'markdown' ? '.md' : '.jsonl');
  const url = URL.createObjectURL(new Blob([text], { type: as === 'markdown' ? 'text/markdown' : 'application/jsonl' }));
  Object.assign(document.createElement('a'), { href: url, download: name }).click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
