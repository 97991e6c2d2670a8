import { A } from '@solidjs/router';
import { t } from '../../i18n/index.ts';
import { For, Show } from 'solid-js';
import { createLiveQuery } from '../../live-query.ts';
import type { DrawerScope } from './drawer-scope.ts';

/** The lorebooks attached to this chat, switched on and off here. */
export function LoreSection(props: { d: DrawerScope }) {
  const d = props.d;
  const lorebooks = createLiveQuery(d.client, { query: 'chatLorebooks' }, () => d.client.engine.chatLorebooks(d.chatId()));
  return (
    <section aria-labelledby="drawer-lore">
      <h2 id="drawer-lore">{t('drawer.lore')}</h2>
      <Show
        when={(lorebooks() ?? []).length > 0}
        fallback={
          <p class="small-text muted">
            {t('drawerMore.loreNoneBefore')}
            <A href="/lore">{t('drawerMore.lorePage')}</A>
            {t('drawerMore.loreNoneAfter', d.name(d.drawer().botId))}
          </p>
        }
      >
        <p class="small-text muted">{t('drawerMore.loreHint')}</p>
        <ul class="plain">
          <For each={lorebooks()}>
            {(book) => (
              <li>
                <label class="check-row">
                  <input
                    type="checkbox"
                    checked={book.attached}
                    disabled={d.busy()}
                    onChange={(e) => void d.act(() => d.client.engine.attachLorebook(d.chatId(), book.lorebookId, e.currentTarget.checked))}
                  />
                  {book.name}
                </label>
              </li>
            )}
          </For>
        </ul>
      </Show>
    </section>
  );
}
