import { A, useNavigate } from '@solidjs/router';
import { createSignal, For, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { useClient } from '../context.ts';
import { ErrorNote } from '../error-note.tsx';
import { FileButton } from '../file-input.tsx';
import { createLiveQuery } from '../live-query.ts';
import type { LorebookRef } from '../../engine/for-ui.ts';
import { t } from '../i18n/index.ts';

/** Where a lorebook's page is: its own, or a bot's card book. */
export const lorebookHref = (ref: LorebookRef) => ('botId' in ref ? `/lore/bot/${ref.botId}` : `/lore/book/${ref.lorebookId}`);

/**
 * "Lore": every lorebook here, those imported on their own (SillyTavern world info, V3 lorebooks)
 * and those that came with a bot's card, each opening on its entries.
 */
export function LorePage() {
  const client = useClient();
  const books = createLiveQuery(client, { query: 'listLorebooks' }, () => client.engine.listLorebooks());
  const { run, busy, error } = createAction();
  const navigate = useNavigate();
  const [added, setAdded] = createSignal<{ id: string; name: string } | null>(null);
  const addFile = (file: File) =>
    void run(async () => {
      const id = await client.engine.addLorebook({ text: await file.text(), fileName: file.name });
      const book = await client.engine.lorebook({ lorebookId: id });
      setAdded({ id, name: book?.name ?? file.name });
    });
  return (
    <section aria-labelledby="lore-title">
      <div class="title-row">
        <h1 id="lore-title">{t('nav.lore')}</h1>
        <form
          class="row new-lorebook"
          aria-label={t('lore.newLorebook')}
          onSubmit={(event) => {
            event.preventDefault();
            const name = String(new FormData(event.currentTarget).get('name') ?? '');
            void run(async () => navigate(`/lore/book/${await client.engine.createLorebook(name)}`));
          }}
        >
          <input name="name" aria-label={t('lore.newName')} placeholder={t('lore.newName')} maxLength={120} required />
          <button type="submit" disabled={busy()}>
            {t('lore.newLorebook')}
          </button>
        </form>
        <FileButton
          label={t('lore.import')}
          title={t('lore.importHint')}
          accept=".json,application/json"
          disabled={busy()}
          onFile={(file) => {
            setAdded(null);
            addFile(file);
          }}
        />
      </div>
      <p class="muted">
        {t('lore.about')}
      </p>
      <ErrorNote message={error()} />
      <Show when={added()}>
        {(book) => (
          <div class="toast inline-toast" role="status" data-testid="lorebook-added">
            <span>{t('bots.imported', book().name)}</span>
            <A class="button small" href={`/lore/book/${book().id}`}>
              {t('lore.openIt')}
            </A>
          </div>
        )}
      </Show>
      <Show when={books()} fallback={<p class="muted">{t('settings.loading')}</p>}>
        {(list) => (
          <Show when={list().length > 0} fallback={<p class="muted">{t('lore.none')}</p>}>
            <ul class="cards" aria-label={t('drawer.lore')}>
              <For each={list()}>
                {(book) => (
                  <li class="card">
                    <A href={lorebookHref(book.ref)} class="card-link">
                      <span class="card-text">
                        <strong>{book.name}</strong>
                        <span class="muted small">
                          {book.kind === 'card' ? t('lore.fromCard', book.owner ?? t('lore.aBot')) : book.kind === 'made' ? t('lore.madeHere') : t('lore.imported')} · {t('lore.entries', book.entries)}
                          {book.enabled < book.entries ? t('lore.off', book.entries - book.enabled) : ''}
                        </span>
                      </span>
                    </A>
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
