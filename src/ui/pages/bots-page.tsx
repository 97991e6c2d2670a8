import { A } from '@solidjs/router';
import { t } from '../i18n/index.ts';
import { createSignal, For, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { Avatar } from '../avatar.tsx';
import { CardImport } from './card-import.tsx';
import { createFileDrop, FileButton } from '../file-input.tsx';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';
import { ErrorNote } from '../error-note.tsx';

export function BotsPage() {
  const client = useClient();
  const bots = createLiveQuery(client, { query: 'listBots' }, () => client.engine.listBots());
  const { run, busy, error } = createAction();
  /** The bot just deleted, for its Undo. */
  const [deleted, setDeleted] = createSignal<{ id: string; name: string } | null>(null);
  const remove = (bot: { id: string; name: string }) => void run(() => client.engine.deleteBot(bot.id).then(() => setDeleted(bot)));
  const undo = (bot: { id: string }) => void run(() => client.engine.restoreBot(bot.id).then(() => setDeleted(null)));
  /** A card file chosen or dropped: its preview asks before anything is saved. */
  const [cardFile, setCardFile] = createSignal<File | null>(null);
  const [imported, setImported] = createSignal<{ id: string; name: string } | null>(null);
  const drop = createFileDrop(setCardFile);
  return (
    <section aria-labelledby="bots-title" classList={{ 'drop-target': drop.dragging() }} {...drop.handlers}>
      <div class="title-row">
        <h1 id="bots-title">{t('bots.title')}</h1>
        <div class="row">
          <A class="button quiet" href="/deleted">
            {t('chats.recentlyDeleted')}
          </A>
          <FileButton label={t('bots.importCard')} title={t('bots.importCardHint')} accept=".png,.json,.charx,image/png,application/json" onFile={setCardFile} />
          <A class="button primary" href="/bots/new">
            {t('bots.newBot')}
          </A>
        </div>
      </div>
      <Show when={cardFile()}>
        {(file) => (
          <CardImport
            client={client}
            file={file()}
            existing={bots() ?? []}
            onClose={() => setCardFile(null)}
            onImported={(id, name) => {
              setCardFile(null);
              setImported({ id, name });
            }}
          />
        )}
      </Show>
      <Show when={imported()}>
        {(bot) => (
          <div class="toast inline-toast" role="status" data-testid="imported-toast">
            <span>{t('bots.imported', bot().name)}</span>
            <A class="button small" href={`/bots/${bot().id}/start`}>
              {t('bots.startChat')}
            </A>
          </div>
        )}
      </Show>
      <Show when={deleted()}>
        {(bot) => (
          <div class="toast inline-toast" role="status" data-testid="deleted-toast">
            <span>{t('bots.deleted', bot().name)}</span>
            <button type="button" class="small" disabled={busy()} onClick={() => undo(bot())}>
              {t('chats.undo')}
            </button>
          </div>
        )}
      </Show>
      <ErrorNote message={error()} />
      <Show when={bots()} fallback={<p class="muted">{t('chats.loading')}</p>}>
        {(list) => (
          <Show when={list().length > 0} fallback={<p class="muted">{t('bots.none')}</p>}>
            <ul class="cards" aria-label={t('bots.list')}>
              <For each={list()}>
                {(bot) => (
                  <li class="card">
                    <Avatar client={client} name={bot.name} hash={bot.avatar} size="large" />
                    <div class="card-main">
                      <strong>{bot.name}</strong>
                      <Show when={bot.persona}>
                        <p class="muted clamp">{bot.persona}</p>
                      </Show>
                    </div>
                    <div class="row">
                      <A class="button" href={`/bots/${bot.id}/edit`} aria-label={t('bots.editBot', bot.name)}>
                        {t('bots.edit')}
                      </A>
                      <button type="button" class="quiet" aria-label={t('bots.deleteBot', bot.name)} disabled={busy()} onClick={() => remove(bot)}>
                        {t('bots.delete')}
                      </button>
                      <A class="button primary" href={`/bots/${bot.id}/start`} aria-label={t('bots.startChatWith', bot.name)}>
                        {t('bots.startChat')}
                      </A>
                    </div>
                  </li>
                )}
              </For>
            </ul>
          </Show>
        )}
      </Show>
    </section>
  );
}
